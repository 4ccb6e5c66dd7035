#include "record/reexecute.h"

#include <cstring>
#include <fmt/format.h>
#include <map>

#include "common/error.h"
#include "common/hash.h"
#include "device/memory_windows.h"
#include "hw/config.h"
#include "isa/access.h"
#include "isa/disasm.h"
#include "sim/executor.h"
#include "sim/state_access.h"
#include "sim/recorded_syscalls.h"

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

std::string describe_at(sim::System& system, uint64_t pc) {
  const isa::DecodedInstruction* d = system.fetch(pc);
  if (d == nullptr) return "outside the saved code";
  return fmt::format("{:#010x} {}", d->word, isa::disassemble(*d, pc));
}

}  // namespace

std::unique_ptr<sim::System> load_snapshot(const snapshot::Snapshot& snapshot, sim::EventBus* bus) {
  hw::HwConfig config = hw::parse_config_yaml(snapshot.header.hw_config_yaml(), "snapshot hardware config");
  if (config.chip_count != snapshot.header.chip_count()) {
    throw Error(fmt::format("snapshot header says {} chips, its hardware config {}", snapshot.header.chip_count(),
                            config.chip_count));
  }
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
  const bool flat = system->flat_address_space();
  sim::Executor executor(*system);
  std::map<uint32_t, const pb::Chip*> records;
  std::map<uint32_t, std::vector<uint64_t>> pcs;
  std::map<uint32_t, size_t> position;
  std::map<uint32_t, uint32_t> x_written;  // bit i: x_i written during re-execution
  sim::RecordedSyscalls syscalls(*system);
  if (flat) {
    for (const pb::Chip& chip : snapshot.chips) syscalls.set_calls(chip.chip(), recorded_syscalls(chip));
    executor.set_syscall_handler(&syscalls);
  }
  for (const pb::Chip& chip : snapshot.chips) {
    records[chip.chip()] = &chip;
    if (chip.recorded()) pcs[chip.chip()] = snapshot::decode_pcs(chip);
  }
  uint64_t step = 0;
  isa::Accesses accesses;
  for (const auto& [chip_id, run] : snapshot::decode_schedule(snapshot.header)) {
    if (!pcs.count(chip_id)) throw Error(fmt::format("schedule step {} names chip {}, which was not recorded", step, chip_id));
    sim::ChipState& chip = system->chip(chip_id);
    for (uint64_t k = 0; k < run; ++k, ++step) {
      size_t& index = position[chip_id];
      const std::vector<uint64_t>& expected = pcs[chip_id];
      if (index >= expected.size()) {
        throw Error(fmt::format("schedule runs chip {} past its {} recorded instructions", chip_id, expected.size()));
      }
      const std::string where = fmt::format("step {} (chip {} instruction {})", step, chip_id, index);
      if (chip.pc != expected[index]) {
        result.matched = false;
        result.problems.push_back(fmt::format("{}: expected pc {:#x} ({}), actual pc {:#x} ({})", where, expected[index],
                                              describe_at(*system, expected[index]), chip.pc,
                                              describe_at(*system, chip.pc)));
        return result;
      }
      if (const isa::DecodedInstruction* d = system->fetch(chip.pc); d != nullptr) {
        isa::compute_accesses(*d, std::span<const uint64_t, 32>(chip.x), accesses);
        for (const isa::StateRef& ref : accesses.writes()) {
          if (ref.kind == isa::StateKind::kX) x_written[chip_id] |= 1u << ref.index;
        }
        if (flat && d->opcode == isa::Opcode::kEcall) x_written[chip_id] |= 1u << 10;  // the kernel's a0
      }
      sim::StepResult step_result;
      try {
        step_result = executor.step(chip);
      } catch (const Error& e) {
        result.matched = false;
        result.problems.push_back(fmt::format("{}: the simulator faulted: {}", where, e.what()));
        return result;
      }
      if (step_result == sim::StepResult::kBlocked || step_result == sim::StepResult::kBreak) {
        result.matched = false;
        result.problems.push_back(fmt::format("{}: pc {:#x} ({}) {} in the simulator, but retired on the device", where,
                                              expected[index], describe_at(*system, expected[index]),
                                              step_result == sim::StepResult::kBlocked ? "blocked" : "stopped at ebreak"));
        return result;
      }
      ++index;
      ++result.instructions;
    }
  }
  // Final state: pc, every x register whose value is known (saved or
  // written), written memory and written accelerator state.
  for (const auto& [chip_id, record] : records) {
    sim::ChipState& chip = system->chip(chip_id);
    const pb::FinalState& final_state = record->final_state();
    if (record->recorded()) {
      if (position[chip_id] != pcs[chip_id].size()) {
        result.problems.push_back(fmt::format("chip {}: the schedule re-executed {} of {} recorded instructions",
                                              chip_id, position[chip_id], pcs[chip_id].size()));
      }
      if (chip.pc != final_state.pc()) {
        result.problems.push_back(fmt::format("chip {}: final pc: device {:#x}, simulator {:#x}", chip_id,
                                              final_state.pc(), chip.pc));
      }
      uint32_t known = x_written[chip_id];
      for (const pb::RegisterValue& value : record->registers()) {
        if (value.kind() == pb::STATE_X) known |= 1u << value.index();
      }
      for (int i = 1; i < 32 && i < final_state.x_size(); ++i) {
        if ((known >> i & 1) != 0 && chip.x[static_cast<size_t>(i)] != final_state.x(i)) {
          result.problems.push_back(fmt::format("chip {}: final x{}: device {:#x}, simulator {:#x}", chip_id, i,
                                                final_state.x(i), chip.x[static_cast<size_t>(i)]));
        }
      }
    }
    if (flat && record->recorded() && syscalls.unused(chip_id) != 0) {
      result.problems.push_back(fmt::format("chip {}: {} recorded system calls were never reached", chip_id,
                                            syscalls.unused(chip_id)));
    }
    uint64_t hash = kFnvOffsetBasis;
    for (const pb::Interval& interval : final_state.written_memory()) {
      const std::string bytes =
          sim::read_memory(*system, chip, interval.address(), interval.length(), "written memory");
      hash = snapshot::hash_region(hash, interval.address(), bytes);
    }
    if (hash != final_state.written_memory_hash()) {
      result.problems.push_back(fmt::format("chip {}: written memory ({} intervals) differs: device hash {:#018x}, "
                                            "simulator {:#018x}", chip_id, final_state.written_memory_size(),
                                            final_state.written_memory_hash(), hash));
    }
    for (const pb::RegisterValue& value : final_state.written_state()) {
      const std::span<const uint8_t> actual =
          sim::state_bytes(chip, snapshot::to_isa_state_kind(value.kind()), value.index());
      if (actual.size() != value.value().size() || std::memcmp(actual.data(), value.value().data(), actual.size()) != 0) {
        result.problems.push_back(fmt::format("chip {}: final {} {} differs from the device", chip_id,
                                              pb::StateKind_Name(value.kind()), value.index()));
      }
    }
  }
  result.matched = result.problems.empty();
  return result;
}

}  // namespace snr::record
