#include "metrics/collector.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::metrics {

MetricsCollector::MetricsCollector(sim::EventBus& bus, uint32_t chips, uint64_t mxu_count)
    : builder_(chips, mxu_count), issued_(chips, 0), executing_(chips, kNone) {
  bus.instruction_issued.subscribe([this](const sim::InstructionIssued& e) {
    builder_.instruction(e.chip, e.stall_cycles, e.stall_reason);
    executing_.at(e.chip) = issued_[e.chip]++;
  });
  bus.instruction_retired.subscribe([this](const sim::InstructionRetired& e) { executing_.at(e.chip) = kNone; });
  bus.unit_busy.subscribe([this](const sim::UnitBusy& e) {
    builder_.unit_busy(e.chip, busy_unit_of(e.unit), e.start_cycle, e.end_cycle);
  });
  bus.dma.subscribe([this](const sim::DmaEvent& e) { on_dma(e); });
}

RunMetrics MetricsCollector::finish(uint64_t total_cycles) const {
  // A DMA whose completion two WAITs consumed (a remote DMA signalling a
  // semaphore on each chip) is charged to one, as run data records it
  // (sim::dma_wait_replaces).
  RunMetricsBuilder builder = builder_;
  for (uint64_t id = 0; id < dmas_.size(); ++id) {
    const OpenDma& d = dmas_[id];
    if (!d.waited) continue;
    WaitedDma w;
    w.dma_id = id;
    w.base_done_cycle = d.base_done_cycle;
    w.transfer_end_cycle = d.transfer_end_cycle;
    w.wait_start_cycle = d.wait_start_cycle;
    w.wait_end_cycle = d.wait_end_cycle;
    builder.waited_dma(d.chip, d.wait, w);
  }
  return builder.finish(total_cycles);
}

void MetricsCollector::on_dma(const sim::DmaEvent& e) {
  if (e.phase == sim::DmaPhase::kIssued) {
    if (e.dma_id >= dmas_.size()) dmas_.resize(e.dma_id + 1);
    dmas_[e.dma_id] = OpenDma{e.chip, e.bytes, e.cycle, e.cycle, e.cycle, false, {}, 0, 0};
    return;
  }
  if (e.dma_id >= dmas_.size()) {
    throw Error(fmt::format("metrics: {} event for unknown DMA {}", sim::dma_phase_name(e.phase), e.dma_id));
  }
  OpenDma& d = dmas_[e.dma_id];
  switch (e.phase) {
    case sim::DmaPhase::kBaseLatencyDone: d.base_done_cycle = e.cycle; break;
    case sim::DmaPhase::kTransferStart: d.transfer_start_cycle = e.cycle; break;
    case sim::DmaPhase::kTransferEnd:
      d.transfer_end_cycle = e.cycle;
      builder_.dma_transfer(d.chip, d.bytes, d.transfer_start_cycle, d.transfer_end_cycle);
      break;
    case sim::DmaPhase::kWaitStart: {
      if (!sim::dma_wait_replaces(d.waited, d.wait.first, e.chip, d.chip)) break;
      // The WAIT is the waiting chip's instruction in flight, or, when it
      // has not issued yet, named by the one before it (as the run data's
      // tracker names it), so every DMA it consumes gets the same key.
      const uint64_t executing = executing_.at(e.chip);
      d.waited = true;
      d.wait = {e.chip, executing != kNone ? executing : issued_[e.chip] - 1};
      d.wait_start_cycle = e.cycle;
      break;
    }
    case sim::DmaPhase::kWaitEnd:
      // A chip consumes a DMA at most once, so the chip names the WAIT.
      if (d.wait.first == e.chip) d.wait_end_cycle = e.cycle;
      break;
    case sim::DmaPhase::kIssued: break;
  }
}

}  // namespace snr::metrics
