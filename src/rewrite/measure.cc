#include "rewrite/measure.h"

#include <algorithm>
#include <span>

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
  uint64_t transfer_end = 0, wait_start = 0, wait_end = 0;
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
  summary.dmas.reserve(dmas.size());
  for (const DmaTimes& dma : dmas) {
    rundb::DmaRecord record;
    record.waited = dma.waited;
    record.transfer_end_cycle = dma.transfer_end;
    record.wait_start_cycle = dma.wait_start;
    record.wait_end_cycle = dma.wait_end;
    summary.dmas.push_back({dma.chip, dma.pc, wait_stall_cycles(record)});
  }
  return summary;
}

}  // namespace snr::rewrite
