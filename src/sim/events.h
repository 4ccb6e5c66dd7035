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

struct InstructionIssued {
  uint32_t chip;
  uint64_t cycle;         // issue cycle (timing) or instruction index (functional)
  uint64_t pc;
  const isa::DecodedInstruction* instruction;
  uint64_t stall_cycles;  // cycles lost before issue
  StallReason stall_reason;
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

struct DmaEvent {
  uint32_t chip;        // issuing chip
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
};

struct VmemPageAccess {
  uint32_t chip;
  uint64_t cycle;
  uint64_t page;        // VMEM offset / vmem.page_bytes
  bool is_write;
  uint64_t pc;
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
  Channel<VmemPageAccess> vmem_page;
  Channel<RegisterAccess> register_access;
  Channel<SemaphoreEvent> semaphore;
};

}  // namespace snr::sim
