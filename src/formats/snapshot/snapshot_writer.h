// Writing a snapshot and keeping it for replay in one pass: `snr demo`
// replays the window it just recorded. Reading the file back would map the
// compressed file and decompress every chip section again; the serialized
// sections the writer made are exactly what that decoding yields, so they
// become the replay's buffers instead (peak memory: the window's bytes once,
// plus one chip's in serialization).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "formats/snapshot/shared_snapshot.h"
#include "formats/snapshot/snapshot.h"

namespace snr::snapshot {

struct WrittenSnapshot {
  SharedSnapshot shared;  // equal to read_snapshot_shared(path) of the file written
  uint64_t file_bytes = 0;
};

// The two halves of write_snapshot_shared, for a caller that replays while
// the file is written: the sections serialized (each chip message released
// once serialized) and decoded as the file will be, then the file. Writing
// only reads the sections, so a replay of `shared` may run meanwhile; the
// identity is the file's hash, so it is known once the file is written.
struct SerializedSnapshot {
  SharedSnapshot shared;                       // identity_hash not set
  std::string header_section;                  // the header's message
  std::vector<std::string_view> chip_sections;  // inside shared.storage, one per chip
};
SerializedSnapshot serialize_snapshot_shared(Snapshot&& snapshot);
// Writes the file (atomically) and returns its size.
uint64_t write_serialized_snapshot(const std::filesystem::path& path, const SerializedSnapshot& serialized,
                                   int zstd_level);

// Writes encode_snapshot(snapshot, zstd_level)'s bytes atomically to `path`
// (write_snapshot_streaming) and returns the snapshot as read_snapshot_shared
// would decode that file, identity hash included. Throws snr::Error.
WrittenSnapshot write_snapshot_shared(const std::filesystem::path& path, Snapshot&& snapshot, int zstd_level);

// fnv1a64 of the whole file, read sequentially (SharedSnapshot::identity_hash).
uint64_t file_identity_hash(const std::filesystem::path& path);

}  // namespace snr::snapshot
