// The performance-event bus: the simulator's only output channel for
// metrics. Models publish typed events; trackers, writers and tests
// subscribe. With no subscriber on a channel, publishing is one branch on an
// empty vector, so an unobserved run pays next to nothing. Models never
// touch files; subscribers decide what to keep.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "isa/isa.h"

namespace snr::sim {

// Why an instruction could not issue in the cycle after its predecessor.
enum class StallReason : uint8_t {
  kNone,
  kDataHazard,      // a source or destination register is not ready yet
  kUnitBusy,        // the vector / matrix unit or divider is occupied
  kSemaphoreWait,   // sem.wait on a semaphore below its threshold
  kDmaQueueFull,    // dma.max_outstanding DMAs in flight
  kFence,           // fence waiting for outstanding vector / matrix / DMA work
  kBranch,          // taken-branch bubble
  kCount
};
std::string_view stall_reason_name(StallReason reason);

enum class RegisterFile : uint8_t { kScalar, kVector };
enum class MemoryKind : uint8_t { kSmem, kVmem, kHbm };
std::string_view memory_kind_name(MemoryKind kind);

// Registers an instruction reads and writes, as bit masks (bit i = x_i or
// v_i), derived once per text word from the ISA's access descriptors so the
// scoreboard and subscribers never re-derive operand roles.
struct RegisterUse {
  uint32_t x_reads = 0, x_writes = 0, v_reads = 0, v_writes = 0;
};

struct InstructionIssued {
  uint32_t chip;
  uint64_t cycle;         // issue cycle (timing) or instruction index (functional)
  uint64_t pc;
  const isa::DecodedInstruction* instruction;
  uint64_t stall_cycles;  // cycles lost before issue
  StallReason stall_reason;
  // Registers the instruction reads and then writes; subscribers that only
  // need register dependencies use this instead of per-register events.
  RegisterUse registers;
};

struct InstructionRetired {
  uint32_t chip;
  uint64_t issue_cycle;
  uint64_t complete_cycle;  // when its result is available
  uint64_t pc;
  const isa::DecodedInstruction* instruction;
};

// An asynchronous unit is occupied over [start_cycle, end_cycle).
struct UnitBusy {
  uint32_t chip;
  isa::Unit unit;
  uint64_t start_cycle;
  uint64_t end_cycle;
  uint64_t pc;  // the instruction that occupied it
};

enum class DmaPhase : uint8_t { kIssued, kBaseLatencyDone, kTransferStart, kTransferEnd, kWaitStart, kWaitEnd };
std::string_view dma_phase_name(DmaPhase phase);

// Where a DMA reads and writes: `rows` rows of `row_bytes`, row r at
// offset + r * stride of the source / destination memory, plus the global
// address operands the dma.issue named.
struct DmaGeometry {
  uint64_t src_address = 0;  // global address operand as issued
  uint64_t dst_address = 0;
  uint64_t src_offset = 0;   // within the source chip's src_memory
  uint64_t dst_offset = 0;
  uint64_t rows = 1;
  uint64_t row_bytes = 0;
  uint64_t src_stride = 0;
  uint64_t dst_stride = 0;
};

struct DmaEvent {
  uint32_t chip;        // issuing chip; for kWaitStart / kWaitEnd the waiting chip
  uint64_t dma_id;      // unique per system, in issue order
  DmaPhase phase;
  uint64_t cycle;
  uint64_t bytes;
  uint32_t src_chip;
  MemoryKind src_memory;
  uint32_t dst_chip;
  MemoryKind dst_memory;
  uint32_t link_id;     // the source-destination link (DmaEngine::link_name)
  uint8_t semaphore;
  uint64_t pc;          // the dma.issue (or wait) instruction
  DmaGeometry geometry;
};

constexpr uint64_t kNoDma = UINT64_MAX;

// A remote DMA's completion counts on its issuer's semaphore and on its
// destination chip's, so a WAIT on each chip can consume it, and each
// publishes the wait phases. Subscribers that keep one WAIT per DMA keep the
// issuer's: it waits for its own transfer, which makes a symmetric program's
// figures symmetric and lets every WAIT that consumed only its own DMAs keep
// its stall charged. Without the issuer's WAIT, the first one stays. Whether
// the wait of `waiting_chip` replaces the one kept so far (`kept_chip`, when
// `kept`):
constexpr bool dma_wait_replaces(bool kept, uint32_t kept_chip, uint32_t waiting_chip, uint32_t issuing_chip) {
  return !kept || (waiting_chip == issuing_chip && kept_chip != issuing_chip);
}

// Bytes of one chip's SMEM, VMEM or HBM read or written: `rows` rows of
// `row_bytes`, row r at offset + r * stride (a strided vector load, a 2-D
// DMA; rows = 1 for a plain range). Instructions publish while they execute
// (dma_id = kNoDma); a DMA publishes its source read and destination write
// in the cycle its transfer ends, with its id.
struct MemoryAccess {
  uint32_t chip;
  uint64_t cycle;
  MemoryKind memory;
  uint64_t offset;      // of row 0 within the chip's memory of that kind
  uint64_t row_bytes;
  uint64_t rows;
  uint64_t stride;
  bool is_write;
  uint64_t pc;          // the accessing instruction or the dma.issue
  uint64_t dma_id;
};

struct RegisterAccess {
  uint32_t chip;
  uint64_t cycle;
  RegisterFile file;
  uint8_t index;
  bool is_write;
  uint64_t pc;
};

enum class SemaphoreOp : uint8_t { kSignal, kWaitStart, kWaitEnd };

struct SemaphoreEvent {
  uint32_t chip;        // owner of the semaphore
  uint64_t cycle;
  uint8_t semaphore;
  SemaphoreOp op;
  int64_t amount;       // added (signal) or required (wait)
  uint32_t value_after;
  uint32_t from_chip;   // the chip whose instruction or DMA caused it
};

template <typename Event>
class Channel {
 public:
  using Callback = std::function<void(const Event&)>;
  void subscribe(Callback callback) { subscribers_.push_back(std::move(callback)); }
  [[nodiscard]] bool active() const { return !subscribers_.empty(); }
  void publish(const Event& event) const {
    for (const Callback& callback : subscribers_) callback(event);
  }

 private:
  std::vector<Callback> subscribers_;
};

struct EventBus {
  Channel<InstructionIssued> instruction_issued;
  Channel<InstructionRetired> instruction_retired;
  Channel<UnitBusy> unit_busy;
  Channel<DmaEvent> dma;
  Channel<MemoryAccess> memory;
  Channel<RegisterAccess> register_access;
  Channel<SemaphoreEvent> semaphore;
};

}  // namespace snr::sim
