#include "rewrite/measure.h"

#include <algorithm>
#include <fmt/format.h>
#include <span>

#include "common/error.h"
#include "replay/replayer.h"
#include "replay/trace_load.h"
#include "sim/timing.h"

namespace snr::rewrite {
namespace {

struct DmaTimes {
  uint32_t chip = 0;
  uint64_t pc = 0;
  bool waited = false;
  uint64_t transfer_end = 0, wait_start = 0, wait_end = 0;
};

}  // namespace

ReplaySummary measure_replay(const replay::ReplayInput& input, const replay::ReplayOptions& options) {
  const hw::HwConfig config = replay::replay_hw_config(input, options);
  sim::EventBus bus;
  replay::LoadedReplay loaded = replay::load_replay(input, config, &bus);
  sim::System& system = *loaded.system;
  const uint32_t chips = system.chip_count();
  std::vector<const std::vector<uint64_t>*> expected(chips, nullptr);
  for (const replay::ReplayChip& chip : input.chips) {
    if (chip.recorded && !chip.pcs.empty()) expected[chip.chip] = &chip.pcs;
  }
  std::vector<uint64_t> position(chips, 0);
  std::vector<uint32_t> x_written(chips, 0);
  std::vector<DmaTimes> dmas;
  uint64_t total_cycles = 0;
  bus.instruction_issued.subscribe([&](const sim::InstructionIssued& e) {
    const std::vector<uint64_t>* pcs = expected[e.chip];
    const uint64_t index = position[e.chip];
    if (pcs == nullptr || index >= pcs->size() || (*pcs)[index] != e.pc) {
      throw Error(fmt::format("replay diverged on chip {} at instruction {} (cycle {}): expected pc {:#x}, actual pc {:#x}",
                              e.chip, index, e.cycle, pcs != nullptr && index < pcs->size() ? (*pcs)[index] : 0, e.pc));
    }
    ++position[e.chip];
    x_written[e.chip] |= e.registers.x_writes;
    total_cycles = std::max(total_cycles, e.cycle + 1);
  });
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
        dma.waited = true;
        dma.wait_start = e.cycle;
        break;
      case sim::DmaPhase::kWaitEnd:
        dma.wait_end = e.cycle;
        total_cycles = std::max(total_cycles, e.cycle);
        break;
      default: break;
    }
  });
  sim::TimingSimulator timing(system);
  for (uint32_t c = 0; c < chips; ++c) timing.set_instruction_limit(c, expected[c] == nullptr ? 0 : expected[c]->size());
  timing.run(options.max_cycles);
  for (uint32_t c = 0; c < chips; ++c) {
    const uint64_t want = expected[c] == nullptr ? 0 : expected[c]->size();
    if (position[c] != want) {
      throw Error(fmt::format("chip {}: the replay retired {} of {} recorded instructions", c, position[c], want));
    }
  }
  ReplaySummary summary;
  summary.total_cycles = total_cycles;
  summary.final_state_problems = replay::end_state_problems(system, input, x_written);
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
