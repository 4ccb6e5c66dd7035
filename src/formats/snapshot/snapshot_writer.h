// Writing a snapshot and keeping it for replay in one pass: `snr demo`
// replays the window it just recorded. Reading the file back would map the
// compressed file and decompress every chip section again; the serialized
// sections the writer made are exactly what that decoding yields, so they
// become the replay's buffers instead (peak memory: the window's bytes once,
// plus one chip's in serialization).
#pragma once

#include <cstdint>
#include <filesystem>

#include "formats/snapshot/shared_snapshot.h"
#include "formats/snapshot/snapshot.h"

namespace snr::snapshot {

struct WrittenSnapshot {
  SharedSnapshot shared;  // equal to read_snapshot_shared(path) of the file written
  uint64_t file_bytes = 0;
};

// Writes encode_snapshot(snapshot, zstd_level)'s bytes atomically to `path`
// (write_snapshot_streaming) and returns the snapshot as read_snapshot_shared
// would decode that file, identity hash included. Throws snr::Error.
WrittenSnapshot write_snapshot_shared(const std::filesystem::path& path, Snapshot&& snapshot, int zstd_level);

// fnv1a64 of the whole file, read sequentially (SharedSnapshot::identity_hash).
uint64_t file_identity_hash(const std::filesystem::path& path);

}  // namespace snr::snapshot
