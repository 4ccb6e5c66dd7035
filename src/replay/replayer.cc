#include "replay/replayer.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <span>

#include "common/error.h"
#include "common/hash.h"
#include "isa/disasm.h"
#include "replay/trace_load.h"
#include "sim/recorded_syscalls.h"
#include "sim/timing.h"
#include "tracker/tracker.h"

namespace snr::replay {
namespace {

std::string describe_at(const sim::System& system, uint64_t pc) {
  const isa::DecodedInstruction* d = system.fetch(pc);
  if (d == nullptr) return "outside the recorded code";
  return fmt::format("{:#010x} {}", d->word, isa::disassemble(*d, pc));
}

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

// Follows each chip through its recorded window: checks every issued pc,
// notes the scalar registers the window wrote and keeps the per-chip
// summary (and total cycles) for runs without the tracker. The timing
// model stops each chip at the end of its window (instruction limit).
class WindowChecker {
 public:
  WindowChecker(sim::System& system, const ReplayInput& input, bool summarize)
      : system_(system), expected_(system.chip_count()), position_(system.chip_count(), 0),
        x_written_(system.chip_count(), 0), summary_(system.chip_count()) {
    for (const ReplayChip& chip : input.chips) {
      if (chip.recorded && !chip.pcs.empty()) expected_[chip.chip] = &chip.pcs;
    }
    for (uint32_t c = 0; c < system.chip_count(); ++c) {
      summary_[c].chip = c;
      summary_[c].first_cycle = UINT64_MAX;
    }
    system.bus().instruction_issued.subscribe([this](const sim::InstructionIssued& e) { on_issued(e); });
    if (summarize) {
      system.bus().instruction_retired.subscribe(
          [this](const sim::InstructionRetired& e) { total_cycles_ = std::max(total_cycles_, e.complete_cycle); });
      system.bus().dma.subscribe([this](const sim::DmaEvent& e) {
        if (e.phase == sim::DmaPhase::kTransferEnd || e.phase == sim::DmaPhase::kWaitEnd) {
          total_cycles_ = std::max(total_cycles_, e.cycle);
        }
      });
    }
  }

  [[nodiscard]] uint64_t window_instructions(uint32_t chip) const {
    return expected_[chip] == nullptr ? 0 : expected_[chip]->size();
  }

  void finish() const {
    for (uint32_t c = 0; c < system_.chip_count(); ++c) {
      if (position_[c] != window_instructions(c)) {
        throw Error(fmt::format("chip {}: the replay retired {} of {} recorded instructions", c, position_[c],
                                window_instructions(c)));
      }
    }
  }
  [[nodiscard]] std::span<const uint32_t> x_written_masks() const { return x_written_; }
  [[nodiscard]] uint64_t steps() const { return step_; }

  // The summary a tracker would have produced (ReplayOptions::collect_run_data = false).
  void fill_summary(rundb::RunData& data) const {
    data.chips = summary_;
    for (rundb::ChipSummary& chip : data.chips) {
      if (chip.first_cycle == UINT64_MAX) chip.first_cycle = 0;
    }
    data.total_cycles = total_cycles_;
  }

 private:
  void on_issued(const sim::InstructionIssued& e) {
    const std::vector<uint64_t>* expected = expected_[e.chip];
    const uint64_t index = position_[e.chip];
    if (expected == nullptr || index >= expected->size() || e.pc != (*expected)[index]) {
      const uint64_t want = expected != nullptr && index < expected->size() ? (*expected)[index] : 0;
      throw Error(fmt::format("replay diverged at step {} (chip {} instruction {} of {}, cycle {}): expected pc {:#x} "
                              "({}), actual pc {:#x} ({})",
                              step_, e.chip, index, window_instructions(e.chip), e.cycle, want,
                              expected == nullptr ? "no instruction recorded" : describe_at(system_, want), e.pc,
                              describe_at(system_, e.pc)));
    }
    ++position_[e.chip];
    ++step_;
    x_written_[e.chip] |= e.registers.x_writes;
    rundb::ChipSummary& chip = summary_[e.chip];
    ++chip.instructions;
    chip.first_cycle = std::min(chip.first_cycle, e.cycle);
    chip.last_cycle = std::max(chip.last_cycle, e.cycle + 1);
    chip.stall_cycles += e.stall_cycles;
    total_cycles_ = std::max(total_cycles_, e.cycle + 1);
  }

  sim::System& system_;
  std::vector<const std::vector<uint64_t>*> expected_;
  std::vector<uint64_t> position_;
  std::vector<uint32_t> x_written_;
  std::vector<rundb::ChipSummary> summary_;
  uint64_t total_cycles_ = 0;
  uint64_t step_ = 0;
};

}  // namespace

std::vector<std::string> end_state_problems(sim::System& system, const ReplayInput& input,
                                            std::span<const uint32_t> x_written) {
  std::vector<std::string> problems;
  for (const ReplayChip& record : input.chips) {
    sim::ChipState& chip = system.chip(record.chip);
    if (record.end.known) {
      if (chip.pc != record.end.pc) {
        problems.push_back(fmt::format("chip {}: final pc: device {:#x}, replay {:#x}", record.chip, record.end.pc, chip.pc));
      }
      uint32_t known = record.chip < x_written.size() ? x_written[record.chip] : 0;
      for (const SavedState& state : record.registers) {
        if (state.kind == snapshot::pb::STATE_X && state.index < 32) known |= 1u << state.index;
      }
      for (size_t i = 1; i < 32 && i < record.end.x.size(); ++i) {
        if ((known >> i & 1) != 0 && chip.x[i] != record.end.x[i]) {
          problems.push_back(fmt::format("chip {}: final x{}: device {:#x}, replay {:#x}", record.chip, i,
                                         record.end.x[i], chip.x[i]));
        }
      }
    }
    uint64_t hash = kFnvOffsetBasis;
    for (const WrittenInterval& interval : record.end.written_memory) {
      if (chip.flat_memory && !chip.flat_memory->contains(interval.address, interval.length)) {
        throw Error(fmt::format("chip {}: written memory [{:#x}, +{}) is outside the recorded pages", record.chip,
                                interval.address, interval.length));
      }
      std::string bytes(interval.length, '\0');
      const std::span<uint8_t> out(reinterpret_cast<uint8_t*>(bytes.data()), bytes.size());
      if (chip.flat_memory) {
        chip.flat_memory->read(interval.address, out);
      } else {
        sim::MemoryTarget target = system.resolve_local(chip, interval.address, interval.length, "written memory");
        target.memory->read(target.offset, out);
      }
      hash = snapshot::hash_region(hash, interval.address, bytes);
    }
    if (hash != record.end.written_memory_hash) {
      problems.push_back(fmt::format("chip {}: written memory ({} intervals) differs from the device", record.chip,
                                     record.end.written_memory.size()));
    }
  }
  return problems;
}

hw::HwConfig replay_hw_config(const ReplayInput& input, const ReplayOptions& options) {
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
  // A foreign process's system calls are answered from the recording.
  sim::RecordedSyscalls syscalls(system);
  if (input.flat_address_space) {
    for (const ReplayChip& record : input.chips) syscalls.set_calls(record.chip, record.syscalls);
    timing.set_syscall_handler(&syscalls);
  }
  std::unique_ptr<tracker::PerformanceTracker> tracker;
  if (options.collect_run_data) {
    tracker::TrackerHooks hooks;
    hooks.op_of_pc = [&input](uint64_t pc) { return op_containing(input.ops, pc); };
    hooks.link_name = [&timing](uint32_t link) { return timing.dma().link_name(link); };
    hooks.vmem_page_bytes = config.vmem_page_bytes.count;
    tracker = std::make_unique<tracker::PerformanceTracker>(system.bus(), system.chip_count(), hooks);
  }
  WindowChecker checker(system, input, !options.collect_run_data);
  for (uint32_t c = 0; c < system.chip_count(); ++c) timing.set_instruction_limit(c, checker.window_instructions(c));
  timing.run(options.max_cycles);
  checker.finish();

  ReplayResult result;
  result.instructions = checker.steps();
  result.final_state_problems = end_state_problems(system, input, checker.x_written_masks());
  for (const ReplayChip& record : input.chips) {
    if (input.flat_address_space && syscalls.unused(record.chip) != 0) {
      result.final_state_problems.push_back(fmt::format("chip {}: {} recorded system calls were never reached",
                                                        record.chip, syscalls.unused(record.chip)));
    }
  }
  if (tracker) {
    result.data = tracker->finish();
  } else {
    checker.fill_summary(result.data);
  }
  result.data.hw_config_yaml = config.to_yaml();
  result.data.meta.emplace_back("source", input.identity);
  result.data.meta.emplace_back("chips", std::to_string(system.chip_count()));
  result.data.meta.emplace_back("clock_hz", fmt::format("{:.0f}", config.clock.hertz));
  result.data.meta.emplace_back("hw_preset", config.preset_name);
  std::string overrides;
  for (const std::string& o : options.overrides) overrides += (overrides.empty() ? "" : " ") + o;
  result.data.meta.emplace_back("hw_overrides", overrides);
  result.data.meta.emplace_back("final_state", result.final_state_problems.empty() ? "matched" : "differs");
  result.data.meta.emplace_back(
      "replay_wall_ns",
      std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - wall_start).count()));
  result.system = std::move(loaded.system);
  return result;
}

}  // namespace snr::replay
