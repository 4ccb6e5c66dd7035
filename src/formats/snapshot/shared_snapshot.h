// Decoding for replay: a snapshot's saved memory, nearly all of its bytes,
// is not copied into protobuf messages. Each chip section is decompressed
// once into a buffer; the MemoryRegion payloads stay there and are handed
// out as views sharing that buffer, the rest of the Chip message is parsed
// as usual (its `memory` field left empty). The file is mapped, not read.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "formats/snapshot/snapshot.h"

namespace snr::snapshot {

struct SharedRegion {
  pb::MemorySpace space = pb::SPACE_SMEM;
  uint64_t address = 0;   // local address in the chip's map
  std::string_view data;  // inside SharedSnapshot::storage
};

struct SharedSnapshot {
  Snapshot snapshot;                              // chips without their `memory`
  std::vector<std::vector<SharedRegion>> memory;  // per chip section, in file order
  std::shared_ptr<const void> storage;            // keeps every region's bytes alive
  // fnv1a64 of the whole file, computed in the checksum pass.
  uint64_t identity_hash = 0;
};

// Same checks and error messages as decode_snapshot.
Result<SharedSnapshot> decode_snapshot_shared(std::span<const uint8_t> bytes, std::string_view origin);
Result<SharedSnapshot> read_snapshot_shared(const std::string& path);

// The snapshot's identity as a replay records it (run.db meta `source`) and
// the analyzer looks it up: "<file name> fnv1a64 0x<hash of the whole file>".
std::string snapshot_identity(const std::string& path, uint64_t file_hash);
inline std::string snapshot_identity(const std::string& path, const SharedSnapshot& snapshot) {
  return snapshot_identity(path, snapshot.identity_hash);
}

// validate_snapshot plus the memory-region checks on the shared regions.
std::vector<std::string> validate_shared_snapshot(const SharedSnapshot& snapshot);

}  // namespace snr::snapshot
