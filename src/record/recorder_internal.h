// Internals of the recorder, shared by its source files: recorder.cc (the
// stepping loop, Algorithm 1, and the snapshot it writes) and
// recorder_foreign.cc (what a foreign Linux process adds: compressed code
// and system calls). Not an interface: use recorder.h.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/snapshot/snapshot.h"
#include "isa/access.h"
#include "isa/address_map.h"
#include "isa/compressed.h"
#include "isa/isa.h"
#include "record/interval_set.h"
#include "record/recorder.h"
#include "record/remote_target.h"

namespace snr::record::detail {

namespace pb = snapshot::pb;

// Initial memory is fetched in blocks of this size (one round trip serves
// many small loads); bigger inputs are read exactly.
constexpr uint64_t kPrefetchBlockBytes = 4096;
constexpr uint64_t kCodeBlockBytes = 256;
// Gaps of one region at most this far apart are read together.
constexpr uint64_t kCoalesceSlackBytes = 4096;
constexpr uint64_t kMaxCoalescedReadBytes = 16 << 20;

inline uint32_t state_key(isa::StateKind kind, uint16_t index) { return static_cast<uint32_t>(kind) << 16 | index; }

// A kernel's write into the process larger than this is refused: no call
// the recorder knows writes more in one go.
constexpr uint64_t kMaxSyscallWriteBytes = 64 << 20;

inline pb::MemorySpace npu_space_of(uint64_t address) {
  switch (isa::memory_space_of(address)) {
    case isa::MemorySpace::kScalar: return pb::SPACE_SMEM;
    case isa::MemorySpace::kVmem: return pb::SPACE_VMEM;
    case isa::MemorySpace::kDebugWindow: return pb::SPACE_DEBUG;
    default: return pb::SPACE_HBM;
  }
}

// Everything the recorder tracks for one chip (one stub thread).
struct ChipRecord {
  uint32_t chip = 0;
  uint32_t thread = 0;
  bool recorded = false;
  bool done = false;
  std::string end;
  std::array<uint64_t, 32> x{};
  uint64_t pc = 0;
  std::set<uint32_t> written_state, saved_state;
  std::vector<pb::RegisterValue> saved_registers;
  IntervalSet written_memory, saved_memory;
  std::map<uint64_t, std::string> saved_bytes;       // start -> bytes (disjoint)
  std::map<uint64_t, std::string> initial_blocks;    // prefetched pre-window memory
  std::set<uint64_t> unreadable_blocks;
  std::unordered_map<uint64_t, uint32_t> words;      // instruction words by pc (16-bit ones for RVC)
  std::unordered_map<uint64_t, std::string> code_blocks;  // flat targets: code bytes by block
  std::vector<uint64_t> pcs;
  std::vector<pb::Syscall> syscalls;                 // flat address space only
};

// A step sent to the stub whose reply has not been processed yet.
struct InFlightStep {
  ChipRecord* chip = nullptr;
  uint32_t word = 0;
  isa::DecodedInstruction decoded;
  isa::Accesses accesses;
  uint64_t old_pc = 0;
};

class Recorder {
 public:
  Recorder(RemoteTarget& target, const RecordOptions& options) : target_(target), options_(options) {}
  snapshot::Snapshot run();

 private:
  ChipRecord& owner(ChipRecord& issuer, bool remote, uint32_t chip);
  uint32_t fetch_word(ChipRecord& chip);
  uint16_t code_halfword(ChipRecord& chip, uint64_t address);
  // A foreign process may use compressed instructions (decoded through
  // their base expansions); the snr NPU's are 32-bit only.
  [[nodiscard]] isa::DecodedInstruction decode_word(uint32_t word) const {
    return flat_ ? isa::decode_with_compressed(word) : isa::decode(word);
  }
  std::string read_state(ChipRecord& owner_chip, const isa::StateRef& ref);
  std::string read_initial_memory(ChipRecord& chip, uint64_t begin, uint64_t end);
  void collect_gaps(ChipRecord& holder, const isa::MemoryRegion& region);
  bool inputs_saved(ChipRecord& chip, const isa::Accesses& accesses);
  void save_x_inputs(ChipRecord& chip, const isa::Accesses& accesses);
  void save_x_register(ChipRecord& chip, uint16_t index);
  // An ecall of a foreign process: stepped on its own, its result and the
  // bytes the kernel wrote recorded for re-execution to inject.
  void record_syscall(ChipRecord& chip, uint32_t word);
  void retire(ChipRecord& chip, uint64_t old_pc);
  [[nodiscard]] pb::MemorySpace space_of(uint64_t address) const {
    return flat_ ? pb::SPACE_FLAT : npu_space_of(address);
  }
  void save_inputs(ChipRecord& chip, const isa::Accesses& accesses);
  void note_outputs(ChipRecord& chip, const isa::Accesses& accesses);
  // A round-robin turn of `chip`: decides whether it steps and sends the
  // step; finish_steps() takes the replies of every step in flight.
  void start_step(ChipRecord& chip);
  void finish_steps();
  bool finish_step(const InFlightStep& step, const StepReply& reply);
  void report_progress(bool force);
  pb::Chip finish_chip(ChipRecord& chip);
  [[noreturn]] void fail_at(const ChipRecord& chip, uint32_t word, const std::string& why) const;

  RemoteTarget& target_;
  const RecordOptions& options_;
  std::vector<ChipRecord> chips_;
  std::vector<std::pair<uint32_t, uint64_t>> schedule_;
  std::vector<InFlightStep> in_flight_;
  std::vector<StepReply> replies_;
  std::vector<Interval> gaps_, unwritten_;
  bool pipeline_ = false;
  bool flat_ = false;  // a foreign RV64 process: flat address space, Linux system calls
  bool round_retired_ = false;
  uint64_t retired_ = 0;
  uint64_t not_retired_ = 0;
  std::chrono::steady_clock::time_point start_, last_progress_;
};

}  // namespace snr::record::detail
