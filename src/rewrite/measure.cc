#include "rewrite/measure.h"

#include <algorithm>
#include <span>

#include "metrics/run_metrics.h"
#include "replay/replayer.h"
#include "replay/trace_load.h"
#include "sim/timing.h"

namespace snr::rewrite {
namespace {

struct DmaTimes {
  uint32_t chip = 0;
  uint64_t pc = 0;
  bool waited = false;
  uint32_t wait_chip = 0;
  uint64_t base_done = 0, transfer_end = 0, wait_start = 0, wait_end = 0;
};

}  // namespace

ReplaySummary measure_replay(const replay::ReplayInput& input, const replay::ReplayOptions& options) {
  const hw::HwConfig config = replay::replay_hw_config(input, options);
  sim::EventBus bus;
  replay::LoadedReplay loaded = replay::load_replay(input, config, &bus);
  sim::System& system = *loaded.system;
  std::vector<DmaTimes> dmas;
  uint64_t total_cycles = 0;
  bus.instruction_issued.subscribe(
      [&](const sim::InstructionIssued& e) { total_cycles = std::max(total_cycles, e.cycle + 1); });
  bus.instruction_retired.subscribe(
      [&](const sim::InstructionRetired& e) { total_cycles = std::max(total_cycles, e.complete_cycle); });
  bus.dma.subscribe([&](const sim::DmaEvent& e) {
    if (e.dma_id >= dmas.size()) dmas.resize(e.dma_id + 1);
    DmaTimes& dma = dmas[e.dma_id];
    switch (e.phase) {
      case sim::DmaPhase::kIssued:
        dma.chip = e.chip;
        dma.pc = e.pc;
        break;
      case sim::DmaPhase::kBaseLatencyDone:
        dma.base_done = e.cycle;
        break;
      case sim::DmaPhase::kTransferEnd:
        dma.transfer_end = e.cycle;
        total_cycles = std::max(total_cycles, e.cycle);
        break;
      case sim::DmaPhase::kWaitStart:
        // The WAIT run data keeps for the DMA, so the measured stall is the
        // one snr analyze reports.
        if (!sim::dma_wait_replaces(dma.waited, dma.wait_chip, e.chip, dma.chip)) break;
        dma.waited = true;
        dma.wait_chip = e.chip;
        dma.wait_start = e.cycle;
        break;
      case sim::DmaPhase::kWaitEnd:
        if (dma.wait_chip == e.chip) dma.wait_end = e.cycle;
        total_cycles = std::max(total_cycles, e.cycle);
        break;
      default: break;
    }
  });
  sim::TimingSimulator timing(system);
  window::RecordedWindow window(system, replay::recorded_windows(input));
  timing.set_syscall_handler(window.syscall_handler());
  window.follow(timing, "replay");
  timing.run(options.max_cycles);
  window.require_finished("replay");
  ReplaySummary summary;
  summary.total_cycles = total_cycles;
  summary.final_state_problems = window.end_state_problems("replay");
  std::vector<rundb::DmaRecord> records(dmas.size());
  for (size_t i = 0; i < dmas.size(); ++i) {
    rundb::DmaRecord& record = records[i];
    record.chip = dmas[i].chip;
    record.waited = dmas[i].waited;
    record.wait_chip = dmas[i].wait_chip;
    // A chip starts one WAIT per cycle at most: its start cycle names it.
    record.wait_step = dmas[i].wait_start;
    record.base_done_cycle = dmas[i].base_done;
    record.transfer_end_cycle = dmas[i].transfer_end;
    record.wait_start_cycle = dmas[i].wait_start;
    record.wait_end_cycle = dmas[i].wait_end;
  }
  const std::vector<uint64_t> charged = metrics::charged_wait_stall_cycles(records);
  summary.dmas.reserve(dmas.size());
  for (size_t i = 0; i < dmas.size(); ++i) summary.dmas.push_back({dmas[i].chip, dmas[i].pc, charged[i]});
  return summary;
}

}  // namespace snr::rewrite
