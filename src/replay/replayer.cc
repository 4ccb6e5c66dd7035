#include "replay/replayer.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <optional>
#include <span>

#include "common/error.h"
#include "replay/trace_load.h"
#include "sim/timing.h"
#include "tracker/tracker.h"

namespace snr::replay {
namespace {

// Innermost symbol containing a pc, so nested op symbols name the op.
std::string op_containing(const std::vector<OpSymbol>& ops, uint64_t pc) {
  const OpSymbol* best = nullptr;
  for (const OpSymbol& op : ops) {
    if (pc >= op.address && pc < op.address + std::max<uint64_t>(op.size_bytes, 1) &&
        (best == nullptr || op.size_bytes < best->size_bytes)) {
      best = &op;
    }
  }
  return best == nullptr ? std::string() : best->name;
}

// The per-chip summary and total cycles a tracker would have produced, for
// runs without one (ReplayOptions::collect_run_data = false).
class RunSummary {
 public:
  explicit RunSummary(sim::System& system) : chips_(system.chip_count()) {
    for (uint32_t c = 0; c < system.chip_count(); ++c) {
      chips_[c].chip = c;
      chips_[c].first_cycle = UINT64_MAX;
    }
    system.bus().instruction_issued.subscribe([this](const sim::InstructionIssued& e) {
      rundb::ChipSummary& chip = chips_[e.chip];
      ++chip.instructions;
      chip.first_cycle = std::min(chip.first_cycle, e.cycle);
      chip.last_cycle = std::max(chip.last_cycle, e.cycle + 1);
      chip.stall_cycles += e.stall_cycles;
      total_cycles_ = std::max(total_cycles_, e.cycle + 1);
    });
    system.bus().instruction_retired.subscribe(
        [this](const sim::InstructionRetired& e) { total_cycles_ = std::max(total_cycles_, e.complete_cycle); });
    system.bus().dma.subscribe([this](const sim::DmaEvent& e) {
      if (e.phase == sim::DmaPhase::kTransferEnd || e.phase == sim::DmaPhase::kWaitEnd) {
        total_cycles_ = std::max(total_cycles_, e.cycle);
      }
    });
  }

  void fill(rundb::RunData& data) const {
    data.chips = chips_;
    for (rundb::ChipSummary& chip : data.chips) {
      if (chip.first_cycle == UINT64_MAX) chip.first_cycle = 0;
    }
    data.total_cycles = total_cycles_;
  }

 private:
  std::vector<rundb::ChipSummary> chips_;
  uint64_t total_cycles_ = 0;
};

}  // namespace

std::vector<window::ChipWindow> recorded_windows(const ReplayInput& input) {
  std::vector<window::ChipWindow> windows;
  windows.reserve(input.chips.size());
  for (const ReplayChip& record : input.chips) {
    window::ChipWindow& out = windows.emplace_back();
    out.chip = record.chip;
    if (record.recorded) out.pcs = record.pcs;
    out.end.known = record.end.known;
    out.end.pc = record.end.pc;
    out.end.x = record.end.x;
    for (const SavedState& state : record.registers) {
      if (state.kind == snapshot::pb::STATE_X && state.index < 32) out.end.saved_x_mask |= 1u << state.index;
    }
    for (const WrittenInterval& interval : record.end.written_memory) {
      out.end.written_memory.push_back({interval.address, interval.length});
    }
    out.end.written_memory_hash = record.end.written_memory_hash;
    out.syscalls = record.syscalls;
  }
  return windows;
}

hw::HwConfig replay_hw_config(const ReplayInput& input, const ReplayOptions& options) {
  if (!options.hw_config_yaml.empty()) {
    hw::HwConfig config = hw::parse_config_yaml(options.hw_config_yaml, "the run's hardware config");
    hw::apply_overrides(config, options.overrides);
    config.validate();
    return config;
  }
  hw::HwConfig config = options.hw_preset_or_file.empty()
                            ? hw::parse_config_yaml(input.hw_config_yaml, "recorded hardware config")
                            : hw::load_preset_or_file(options.hw_preset_or_file);
  if (!options.hw_preset_or_file.empty()) config.set("chips", std::to_string(input.chip_count));
  hw::apply_overrides(config, options.overrides);
  config.validate();
  return config;
}

ReplayResult run_replay(const ReplayInput& input, const ReplayOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const hw::HwConfig config = replay_hw_config(input, options);
  LoadedReplay loaded = load_replay(input, config, nullptr);  // the system owns its bus
  sim::System& system = *loaded.system;
  sim::TimingSimulator timing(system);
  window::RecordedWindow window(system, recorded_windows(input));
  timing.set_syscall_handler(window.syscall_handler());
  std::unique_ptr<tracker::PerformanceTracker> tracker;
  if (options.collect_run_data) {
    tracker::TrackerHooks hooks;
    hooks.op_of_pc = [&input](uint64_t pc) { return op_containing(input.ops, pc); };
    hooks.link_name = [&timing](uint32_t link) { return timing.dma().link_name(link); };
    hooks.vmem_page_bytes = config.vmem_page_bytes.count;
    tracker = std::make_unique<tracker::PerformanceTracker>(system.bus(), system.chip_count(), hooks);
  }
  std::optional<RunSummary> summary;
  if (!options.collect_run_data) summary.emplace(system);
  window.follow(timing, "replay");
  timing.run(options.max_cycles);
  window.require_finished("replay");

  ReplayResult result;
  result.instructions = window.steps();
  result.final_state_problems = window.end_state_problems("replay");
  if (tracker) {
    result.data = tracker->finish();
  } else {
    summary->fill(result.data);
  }
  result.data.hw_config_yaml = config.to_yaml();
  result.data.meta.emplace_back("source", input.identity);
  result.data.meta.emplace_back("chips", std::to_string(system.chip_count()));
  result.data.meta.emplace_back("clock_hz", fmt::format("{:.0f}", config.clock.hertz));
  result.data.meta.emplace_back("hw_preset", config.preset_name);
  std::string overrides;
  for (const std::string& o : options.overrides) overrides += (overrides.empty() ? "" : " ") + o;
  result.data.meta.emplace_back("hw_overrides", overrides);
  std::vector<uint32_t> recorded;
  for (const ReplayChip& chip : input.chips) {
    if (chip.recorded) recorded.push_back(chip.chip);
  }
  if (!recorded.empty()) rundb::set_recorded_chips(result.data, recorded);
  result.data.meta.emplace_back("final_state", result.final_state_problems.empty() ? "matched" : "differs");
  result.data.meta.emplace_back(
      "replay_wall_ns",
      std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - wall_start).count()));
  result.system = std::move(loaded.system);
  return result;
}

}  // namespace snr::replay
