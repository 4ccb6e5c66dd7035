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
#include "sim/npu_math.h"
#include "sim/recorded_syscalls.h"

namespace snr::record {
namespace {

namespace pb = snapshot::pb;

// The bytes of one piece of accelerator state as the snapshot stores it.
std::span<uint8_t> state_bytes(sim::ChipState& chip, pb::StateKind kind, uint32_t index, uint64_t& scratch) {
  auto bytes_of = [](auto& container) {
    return std::span<uint8_t>(reinterpret_cast<uint8_t*>(container.data()), container.size() * sizeof(container[0]));
  };
  switch (kind) {
    case pb::STATE_X: return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&chip.x[index]), 8);
    case pb::STATE_V: return bytes_of(chip.v.at(index).element);
    case pb::STATE_SEMAPHORE: return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&chip.semaphore.at(index)), 4);
    case pb::STATE_MXU_WEIGHTS: return bytes_of(chip.mxu.at(index).weights_bf16);
    case pb::STATE_MXU_ACCUMULATOR: return bytes_of(chip.mxu.at(index).accumulator);
    case pb::STATE_PC: return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&chip.pc), 8);
    case pb::STATE_CSR:
      // Only instret/cycle hold state; mhartid and nchips come from the system.
      scratch = chip.instret;
      return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&scratch), 8);
    default: break;
  }
  throw Error(fmt::format("unknown state kind {}", static_cast<int>(kind)));
}

void install_value(sim::ChipState& chip, const pb::RegisterValue& value) {
  uint64_t scratch = 0;
  std::span<uint8_t> target = state_bytes(chip, value.kind(), value.index(), scratch);
  if (target.size() != value.value().size()) {
    throw Error(fmt::format("chip {}: {} {} holds {} bytes, the snapshot has {}", chip.chip_id,
                            pb::StateKind_Name(value.kind()), value.index(), target.size(), value.value().size()));
  }
  std::memcpy(target.data(), value.value().data(), target.size());
  if (value.kind() == pb::STATE_CSR) {
    if (value.index() == isa::kCsrInstret || value.index() == isa::kCsrCycle) chip.instret = chip.cycle = scratch;
  } else if (value.kind() == pb::STATE_MXU_WEIGHTS) {
    sim::MatrixUnitState& unit = chip.mxu[value.index()];
    for (size_t i = 0; i < unit.weights_bf16.size(); ++i) unit.weights_f32[i] = sim::f32_from_bf16(unit.weights_bf16[i]);
  }
}

sim::ProgramImage code_image(const snapshot::Snapshot& snapshot, bool flat) {
  if (flat) {
    // A foreign program's code: any mix of 2- and 4-byte instructions.
    std::vector<sim::CodeBytes> ranges;
    for (const pb::Chip& chip : snapshot.chips) {
      for (const pb::CodeRange& range : chip.code()) ranges.push_back({range.address(), range.data()});
    }
    return sim::program_from_code_bytes(ranges, sim::kMaxFlatTextSpanBytes, "snapshot code");
  }
  std::map<uint64_t, uint32_t> words;
  for (const pb::Chip& chip : snapshot.chips) {
    for (const pb::CodeRange& range : chip.code()) {
      if (range.data().size() % 4 != 0 || (range.address() & 3) != 0) {
        throw Error(fmt::format("chip {}: code range at {:#x} is not whole aligned words", chip.chip(), range.address()));
      }
      for (size_t i = 0; i < range.data().size(); i += 4) {
        uint32_t word = 0;
        std::memcpy(&word, range.data().data() + i, 4);
        auto [it, inserted] = words.emplace(range.address() + i, word);
        if (!inserted && it->second != word) {
          throw Error(fmt::format("chips disagree on the instruction at {:#x} ({:#010x} vs {:#010x}); the simulator "
                                  "runs one text for all chips", it->first, it->second, word));
        }
      }
    }
  }
  if (words.empty()) throw Error("the snapshot holds no executed code");
  std::vector<uint32_t> text((words.rbegin()->first - words.begin()->first) / 4 + 1, 0);
  for (const auto& [address, word] : words) text[(address - words.begin()->first) / 4] = word;
  return sim::program_from_words(text, words.begin()->first, "snapshot code");
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
  for (const pb::Chip& record : snapshot.chips) {
    if (record.chip() >= system->chip_count()) throw Error(fmt::format("chip {} is outside the system", record.chip()));
    sim::ChipState& chip = system->chip(record.chip());
    if (record.recorded()) chip.pc = record.first_pc();
    for (const pb::RegisterValue& value : record.registers()) {
      with_error_context(fmt::format("installing chip {}", record.chip()), [&] { install_value(chip, value); });
    }
    if (flat) {
      // Exactly the pages the window touched exist; saved bytes go to their
      // own addresses.
      uint64_t page_bytes = 0;
      for (const pb::Interval& pages : record.pages()) {
        page_bytes += pages.length();
        if (pages.length() > snapshot::kMaxFlatPages * snapshot::kFlatPageBytes ||
            page_bytes > snapshot::kMaxFlatPages * snapshot::kFlatPageBytes) {
          throw Error(fmt::format("chip {}: its pages exceed the limit of {} pages", record.chip(),
                                  snapshot::kMaxFlatPages));
        }
        chip.flat_memory->map(pages.address(), pages.length());
      }
      for (const pb::MemoryRegion& region : record.memory()) {
        if (region.space() != pb::SPACE_FLAT || !chip.flat_memory->contains(region.address(), region.data().size())) {
          throw Error(fmt::format("snapshot region of chip {} ({} bytes at {:#x}, {}) is not inside its recorded pages",
                                  record.chip(), region.data().size(), region.address(),
                                  pb::MemorySpace_Name(region.space())));
        }
        chip.flat_memory->write(region.address(), bytes_of(region.data()));
      }
      continue;
    }
    for (const pb::MemoryRegion& region : record.memory()) {
      sim::MemoryTarget target = system->resolve_local(chip, region.address(), region.data().size(),
                                                       fmt::format("snapshot region of chip {}", record.chip()));
      target.memory->write(target.offset, std::span<const uint8_t>(
                                              reinterpret_cast<const uint8_t*>(region.data().data()), region.data().size()));
    }
  }
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
      if (flat && !chip.flat_memory->contains(interval.address(), interval.length())) {
        throw Error(fmt::format("chip {}: written memory [{:#x}, +{}) is outside the recorded pages", chip_id,
                                interval.address(), interval.length()));
      }
      std::string bytes(interval.length(), '\0');
      const std::span<uint8_t> out(reinterpret_cast<uint8_t*>(bytes.data()), bytes.size());
      if (flat) {
        chip.flat_memory->read(interval.address(), out);
      } else {
        sim::MemoryTarget target = system->resolve_local(chip, interval.address(), interval.length(), "written memory");
        target.memory->read(target.offset, out);
      }
      hash = snapshot::hash_region(hash, interval.address(), bytes);
    }
    if (hash != final_state.written_memory_hash()) {
      result.problems.push_back(fmt::format("chip {}: written memory ({} intervals) differs: device hash {:#018x}, "
                                            "simulator {:#018x}", chip_id, final_state.written_memory_size(),
                                            final_state.written_memory_hash(), hash));
    }
    for (const pb::RegisterValue& value : final_state.written_state()) {
      uint64_t scratch = 0;
      std::span<uint8_t> actual = state_bytes(chip, value.kind(), value.index(), scratch);
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
