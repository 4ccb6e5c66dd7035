#include "record/reexecute.h"

#include <fmt/format.h>
#include <optional>
#include <set>

#include "common/error.h"
#include "hw/config.h"
#include "sim/executor.h"
#include "sim/state_access.h"
#include "sim/recorded_syscalls.h"
#include "window/recorded_window.h"

namespace snr::record {
namespace {

namespace pb = snapshot::pb;

sim::ProgramImage code_image(const snapshot::Snapshot& snapshot, bool flat) {
  std::vector<sim::CodeBytes> ranges;
  for (const pb::Chip& chip : snapshot.chips) {
    for (const pb::CodeRange& range : chip.code()) ranges.push_back({range.address(), range.data()});
  }
  return sim::program_from_recorded_code(ranges, flat, "snapshot code");
}

std::span<const uint8_t> bytes_of(const std::string& data) {
  return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size());
}

std::vector<sim::RecordedSyscall> recorded_syscalls(const pb::Chip& chip) {
  std::vector<sim::RecordedSyscall> calls;
  for (const pb::Syscall& call : chip.syscalls()) {
    sim::RecordedSyscall& out = calls.emplace_back();
    out.instruction = call.instruction();
    out.number = call.number();
    out.args.assign(call.args().begin(), call.args().end());
    out.result = call.result();
    for (const pb::MemoryRegion& written : call.written()) out.written.emplace_back(written.address(), written.data());
  }
  return calls;
}

// Each chip's recorded window and what the device reached (`pcs` holds the
// decoded pc sequences the windows point into).
std::vector<window::ChipWindow> recorded_windows(const snapshot::Snapshot& snapshot,
                                                 std::vector<std::vector<uint64_t>>& pcs) {
  std::vector<window::ChipWindow> windows;
  pcs.reserve(snapshot.chips.size());
  for (const pb::Chip& chip : snapshot.chips) {
    window::ChipWindow& out = windows.emplace_back();
    out.chip = chip.chip();
    const pb::FinalState& final_state = chip.final_state();
    if (chip.recorded()) {
      out.pcs = pcs.emplace_back(snapshot::decode_pcs(chip));
      out.end.known = true;
      out.end.pc = final_state.pc();
      out.end.x.assign(final_state.x().begin(), final_state.x().end());
      out.syscalls = recorded_syscalls(chip);
    }
    for (const pb::RegisterValue& value : chip.registers()) {
      if (value.kind() == pb::STATE_X && value.index() < 32) out.end.saved_x_mask |= 1u << value.index();
    }
    for (const pb::Interval& interval : final_state.written_memory()) {
      out.end.written_memory.push_back({interval.address(), interval.length()});
    }
    out.end.written_memory_hash = final_state.written_memory_hash();
    for (const pb::RegisterValue& value : final_state.written_state()) {
      out.end.written_state.push_back({snapshot::to_isa_state_kind(value.kind()), value.index(), value.value()});
    }
  }
  return windows;
}

}  // namespace

hw::HwConfig snapshot_hardware(const snapshot::pb::Header& header) {
  hw::HwConfig config = hw::parse_config_yaml(header.hw_config_yaml(), "snapshot hardware config");
  config.validate();
  if (config.chip_count != header.chip_count()) {
    throw Error(fmt::format("snapshot header says {} chips, its hardware config {}", header.chip_count(),
                            config.chip_count));
  }
  return config;
}

std::unique_ptr<sim::System> load_snapshot(const snapshot::Snapshot& snapshot, sim::EventBus* bus) {
  hw::HwConfig config = snapshot_hardware(snapshot.header);
  const bool flat = snapshot.header.address_space() == pb::ADDRESS_SPACE_FLAT;
  auto system = std::make_unique<sim::System>(config, bus);
  if (flat) system->use_flat_address_space();
  system->load(code_image(snapshot, flat));
  std::vector<sim::SavedRegion> regions;
  for (const pb::Chip& record : snapshot.chips) {
    sim::ChipState& chip = sim::recorded_chip(*system, record.chip());
    if (record.recorded()) chip.pc = record.first_pc();
    with_error_context(fmt::format("installing chip {}", record.chip()), [&] {
      for (const pb::RegisterValue& value : record.registers()) {
        sim::install_state(chip, snapshot::to_isa_state_kind(value.kind()), value.index(), bytes_of(value.value()));
      }
      // Flat: exactly the pages the window touched exist.
      for (const pb::Interval& pages : record.pages()) {
        sim::map_recorded_pages(chip, pages.address(), pages.length(),
                                snapshot::kMaxFlatPages * snapshot::kFlatPageBytes);
      }
    });
    for (const pb::MemoryRegion& region : record.memory()) {
      if (flat && region.space() != pb::SPACE_FLAT) {
        throw Error(fmt::format("snapshot region of chip {} ({} bytes at {:#x}, {}) is not inside its recorded pages",
                                record.chip(), region.data().size(), region.address(),
                                pb::MemorySpace_Name(region.space())));
      }
      regions.push_back({record.chip(), region.address(), region.data(), nullptr});
    }
  }
  sim::install_memory(*system, regions);
  return system;
}

CheckResult check_snapshot(const snapshot::Snapshot& snapshot) {
  CheckResult result;
  std::unique_ptr<sim::System> system = load_snapshot(snapshot);
  std::vector<std::vector<uint64_t>> pcs;
  window::RecordedWindow window(*system, recorded_windows(snapshot, pcs));
  sim::Executor executor(*system);
  executor.set_syscall_handler(window.syscall_handler());
  std::set<uint32_t> recorded;
  for (const pb::Chip& chip : snapshot.chips) {
    if (chip.recorded()) recorded.insert(chip.chip());
  }
  auto diverged = [&](std::string problem) {
    result.matched = false;
    result.problems.push_back(std::move(problem));
    return result;
  };
  for (const auto& [chip_id, run] : snapshot::decode_schedule(snapshot.header)) {
    if (!recorded.count(chip_id)) {
      throw Error(fmt::format("schedule step {} names chip {}, which was not recorded", window.steps(), chip_id));
    }
    sim::ChipState& chip = system->chip(chip_id);
    for (uint64_t k = 0; k < run; ++k) {
      if (std::optional<std::string> why = window.divergence(chip_id, chip.pc)) return diverged(*why);
      const std::string where =
          fmt::format("step {} (chip {} instruction {})", window.steps(), chip_id, window.position(chip_id));
      const uint64_t pc = chip.pc;
      sim::StepResult step_result;
      try {
        step_result = window.step(executor, chip_id, "re-execution");
      } catch (const Error& e) {
        return diverged(fmt::format("{}: the simulator faulted: {}", where, e.what()));
      }
      if (step_result == sim::StepResult::kBlocked || step_result == sim::StepResult::kBreak) {
        return diverged(fmt::format("{}: pc {:#x} ({}) {} in the simulator, but retired on the device", where, pc,
                                    window::describe_instruction(*system, pc),
                                    step_result == sim::StepResult::kBlocked ? "blocked" : "stopped at ebreak"));
      }
      ++result.instructions;
    }
  }
  for (std::string& problem : window.unfinished_chips("re-execution")) result.problems.push_back(std::move(problem));
  for (std::string& problem : window.end_state_problems("simulator")) result.problems.push_back(std::move(problem));
  result.matched = result.problems.empty();
  return result;
}

}  // namespace snr::record
