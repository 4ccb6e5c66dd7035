// What the replayer needs from a recording, independent of the snapshot
// file: per chip the saved registers and memory, the executed code, the
// recorded pc sequence, the op map and the state the device reached.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/snapshot/snapshot.h"

namespace snr::replay {

struct SavedState {
  snapshot::pb::StateKind kind = snapshot::pb::STATE_X;
  uint32_t index = 0;
  std::string bytes;  // little-endian, natural size
};

struct SavedMemory {
  uint64_t address = 0;  // local address in the chip's map
  std::string bytes;
};

struct CodeRange {
  uint64_t address = 0;
  std::vector<uint32_t> words;
};

struct OpSymbol {
  std::string name;
  uint64_t address = 0;
  uint64_t size_bytes = 0;
};

struct WrittenInterval {
  uint64_t address = 0;
  uint64_t length = 0;
};

struct ExpectedEnd {
  bool known = false;
  uint64_t pc = 0;
  std::vector<uint64_t> x;                 // x0..x31
  std::vector<WrittenInterval> written_memory;
  uint64_t written_memory_hash = 0;        // snapshot::hash_region chain
};

struct ReplayChip {
  uint32_t chip = 0;
  bool recorded = false;
  std::vector<SavedState> registers;
  std::vector<SavedMemory> memory;
  std::vector<uint64_t> pcs;               // recorded pc sequence
  ExpectedEnd end;
};

struct ReplayInput {
  std::string identity;                    // e.g. "snapshot ring.snr fnv1a64 0x..."
  std::string hw_config_yaml;
  uint32_t chip_count = 0;
  uint64_t isa_hash = 0;
  std::vector<CodeRange> code;
  std::vector<OpSymbol> ops;
  std::vector<ReplayChip> chips;
};

// Converts a decoded snapshot; throws snr::Error naming the chip when its
// pc encoding or code is damaged.
ReplayInput replay_input_from_snapshot(const snapshot::Snapshot& snapshot, std::string identity);

}  // namespace snr::replay
