#include "sim/events.h"

namespace snr::sim {

std::string_view stall_reason_name(StallReason reason) {
  switch (reason) {
    case StallReason::kNone: return "none";
    case StallReason::kDataHazard: return "data-hazard";
    case StallReason::kUnitBusy: return "unit-busy";
    case StallReason::kSemaphoreWait: return "semaphore-wait";
    case StallReason::kDmaQueueFull: return "dma-queue-full";
    case StallReason::kFence: return "fence";
    case StallReason::kBranch: return "branch";
    case StallReason::kCount: break;
  }
  return "?";
}

std::string_view memory_kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kSmem: return "smem";
    case MemoryKind::kVmem: return "vmem";
    case MemoryKind::kHbm: return "hbm";
  }
  return "?";
}

std::string_view dma_phase_name(DmaPhase phase) {
  switch (phase) {
    case DmaPhase::kIssued: return "issued";
    case DmaPhase::kBaseLatencyDone: return "base-latency-done";
    case DmaPhase::kTransferStart: return "transfer-start";
    case DmaPhase::kTransferEnd: return "transfer-end";
    case DmaPhase::kWaitStart: return "wait-start";
    case DmaPhase::kWaitEnd: return "wait-end";
  }
  return "?";
}

}  // namespace snr::sim
