// What the replayer needs from a recording, independent of the snapshot
// file: per chip the saved registers and memory, the executed code, the
// recorded pc sequence, the op map and the state the device reached.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/snapshot/shared_snapshot.h"
#include "formats/snapshot/snapshot.h"
#include "sim/recorded_syscalls.h"

namespace snr::replay {

struct SavedState {
  snapshot::pb::StateKind kind = snapshot::pb::STATE_X;
  uint32_t index = 0;
  std::string bytes;  // little-endian, natural size
};

// A saved region's bytes: owned, or a view into a decoded snapshot's
// buffers that it keeps alive, so copies of a ReplayInput (one per
// rewritten variant) share the hundreds of MB of saved memory.
class SharedBytes {
 public:
  SharedBytes() = default;
  SharedBytes(std::string owned) : owned_(std::move(owned)) {}  // NOLINT(google-explicit-constructor)
  SharedBytes(std::shared_ptr<const void> storage, std::string_view view)
      : storage_(std::move(storage)), view_(view) {}

  [[nodiscard]] std::string_view view() const { return storage_ ? view_ : std::string_view(owned_); }
  [[nodiscard]] const char* data() const { return view().data(); }
  [[nodiscard]] size_t size() const { return view().size(); }
  [[nodiscard]] bool empty() const { return view().empty(); }
  // What keeps view() alive when the bytes are shared; null when owned.
  [[nodiscard]] const std::shared_ptr<const void>& storage() const { return storage_; }

 private:
  std::string owned_;
  std::shared_ptr<const void> storage_;
  std::string_view view_;
};

struct SavedMemory {
  uint64_t address = 0;  // local address in the chip's map
  SharedBytes bytes;
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
  // Flat address space only (a foreign process): the pages the window
  // touched and its system calls, injected at replay.
  std::vector<WrittenInterval> pages;
  std::vector<sim::RecordedSyscall> syscalls;
};

struct ReplayInput {
  std::string identity;                    // e.g. "snapshot ring.snr fnv1a64 0x..."
  std::string hw_config_yaml;
  uint32_t chip_count = 0;
  uint64_t isa_hash = 0;
  bool flat_address_space = false;         // snapshot ADDRESS_SPACE_FLAT
  std::vector<CodeRange> code;             // NPU recordings (32-bit words)
  // Flat recordings instead: the executed code's bytes (2- and 4-byte
  // instructions), by address.
  std::vector<std::pair<uint64_t, std::string>> flat_code;
  std::vector<OpSymbol> ops;
  std::vector<ReplayChip> chips;
};

// Converts a decoded snapshot; throws snr::Error naming the chip when its
// pc encoding or code is damaged.
ReplayInput replay_input_from_snapshot(const snapshot::Snapshot& snapshot, std::string identity);
// The same from a snapshot decoded with its memory left in place: the
// saved regions share its buffers instead of copying them.
ReplayInput replay_input_from_snapshot(const snapshot::SharedSnapshot& snapshot, std::string identity);

}  // namespace snr::replay
