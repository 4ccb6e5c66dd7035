#include "window/recorded_window.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "common/error.h"
#include "common/hash.h"
#include "formats/snapshot/snapshot.h"
#include "isa/disasm.h"
#include "sim/state_access.h"

namespace snr::window {
namespace {

constexpr uint32_t kA0 = 10;  // where the kernel puts a system call's result

}  // namespace

std::string describe_instruction(const sim::System& system, uint64_t pc) {
  const isa::DecodedInstruction* d = system.fetch(pc);
  if (d == nullptr) return "outside the recorded code";
  return fmt::format("{:#010x} {}", d->word, isa::disassemble(*d, pc));
}

RecordedWindow::RecordedWindow(sim::System& system, std::vector<ChipWindow> chips)
    : system_(system), chips_(std::move(chips)), window_of_(system.chip_count(), nullptr),
      position_(system.chip_count(), 0), x_written_(system.chip_count(), 0), syscalls_(system) {
  for (const ChipWindow& chip : chips_) {
    if (chip.chip >= system.chip_count()) {
      throw Error(fmt::format("chip {} is outside the {}-chip system", chip.chip, system.chip_count()));
    }
    if (window_of_[chip.chip] != nullptr) throw Error(fmt::format("chip {} has two recorded windows", chip.chip));
    window_of_[chip.chip] = &chip;
    if (system.flat_address_space()) syscalls_.set_calls(chip.chip, chip.syscalls);
  }
}

sim::SyscallHandler* RecordedWindow::syscall_handler() {
  return system_.flat_address_space() ? &syscalls_ : nullptr;
}

uint64_t RecordedWindow::window_instructions(uint32_t chip) const {
  const ChipWindow* window = window_of_.at(chip);
  return window == nullptr ? 0 : window->pcs.size();
}

bool RecordedWindow::all_finished() const {
  for (uint32_t c = 0; c < system_.chip_count(); ++c) {
    if (!finished(c)) return false;
  }
  return true;
}

std::optional<std::string> RecordedWindow::divergence(uint32_t chip, uint64_t pc) const {
  const uint64_t index = position(chip);
  const std::string where = fmt::format("step {} (chip {} instruction {})", steps_, chip, index);
  if (index >= window_instructions(chip)) {
    return fmt::format("{}: the window has {} recorded instructions, actual pc {:#x} ({})", where,
                       window_instructions(chip), pc, describe_instruction(system_, pc));
  }
  const uint64_t expected = window_of_[chip]->pcs[index];
  if (pc == expected) return std::nullopt;
  return fmt::format("{}: expected pc {:#x} ({}), actual pc {:#x} ({})", where, expected,
                     describe_instruction(system_, expected), pc, describe_instruction(system_, pc));
}

void RecordedWindow::advance(uint32_t chip, const isa::DecodedInstruction* d) {
  x_written_.at(chip) |= system_.register_use(d).x_writes;
  if (system_.flat_address_space() && d->opcode == isa::Opcode::kEcall) x_written_[chip] |= 1u << kA0;
  ++position_[chip];
  ++steps_;
}

void RecordedWindow::follow(sim::TimingSimulator& timing, std::string_view run) {
  for (uint32_t c = 0; c < system_.chip_count(); ++c) timing.set_instruction_limit(c, window_instructions(c));
  system_.bus().instruction_issued.subscribe([this, run = std::string(run)](const sim::InstructionIssued& e) {
    if (std::optional<std::string> why = divergence(e.chip, e.pc)) {
      throw Error(fmt::format("{} diverged at {} (cycle {})", run, *why, e.cycle));
    }
    advance(e.chip, e.instruction);
  });
}

void RecordedWindow::require_at_next_pc(uint32_t chip, std::string_view run) const {
  if (std::optional<std::string> why = divergence(chip, system_.chip(chip).pc)) {
    throw Error(fmt::format("{} diverged at {}", run, *why));
  }
}

sim::StepResult RecordedWindow::step(sim::Executor& executor, uint32_t chip, std::string_view run) {
  require_at_next_pc(chip, run);
  sim::ChipState& state = system_.chip(chip);
  const isa::DecodedInstruction* d = system_.fetch(state.pc);
  const sim::StepResult result = executor.step(state);  // throws on a pc outside the text
  if (result != sim::StepResult::kBlocked && result != sim::StepResult::kBreak) advance(chip, d);
  return result;
}

std::vector<std::string> RecordedWindow::unfinished_chips(std::string_view run) const {
  std::vector<std::string> problems;
  for (uint32_t c = 0; c < system_.chip_count(); ++c) {
    if (!finished(c)) {
      problems.push_back(fmt::format("chip {}: the {} ran {} of its {} recorded instructions", c, run, position(c),
                                     window_instructions(c)));
    }
  }
  return problems;
}

void RecordedWindow::require_finished(std::string_view run) const {
  if (std::vector<std::string> problems = unfinished_chips(run); !problems.empty()) throw Error(problems.front());
}

std::vector<std::string> RecordedWindow::end_state_problems(std::string_view run) const {
  std::vector<std::string> problems;
  for (const ChipWindow& window : chips_) {
    sim::ChipState& chip = system_.chip(window.chip);
    const RecordedEnd& end = window.end;
    if (end.known) {
      if (chip.pc != end.pc) {
        problems.push_back(fmt::format("chip {}: final pc: device {:#x}, {} {:#x}", window.chip, end.pc, run, chip.pc));
      }
      const uint32_t known = end.saved_x_mask | x_written_[window.chip];
      for (size_t i = 1; i < 32 && i < end.x.size(); ++i) {
        if ((known >> i & 1) != 0 && chip.x[i] != end.x[i]) {
          problems.push_back(fmt::format("chip {}: final x{}: device {:#x}, {} {:#x}", window.chip, i, end.x[i], run,
                                         chip.x[i]));
        }
      }
    }
    if (system_.flat_address_space() && !window.pcs.empty() && syscalls_.unused(window.chip) != 0) {
      problems.push_back(fmt::format("chip {}: {} recorded system calls were never reached", window.chip,
                                     syscalls_.unused(window.chip)));
    }
    uint64_t hash = kFnvOffsetBasis;
    for (const MemoryInterval& interval : end.written_memory) {
      const std::string bytes =
          sim::read_memory(system_, chip, interval.address, interval.length_bytes, "written memory");
      hash = snapshot::hash_region(hash, interval.address, bytes);
    }
    if (hash != end.written_memory_hash) {
      problems.push_back(fmt::format("chip {}: written memory ({} intervals) differs from the device: device hash "
                                     "{:#018x}, {} {:#018x}", window.chip, end.written_memory.size(),
                                     end.written_memory_hash, run, hash));
    }
    for (const StateValue& value : end.written_state) {
      const std::span<const uint8_t> actual = sim::state_bytes(chip, value.kind, value.index);
      if (actual.size() != value.bytes.size() || std::memcmp(actual.data(), value.bytes.data(), actual.size()) != 0) {
        problems.push_back(fmt::format("chip {}: final {}{} differs from the device", window.chip,
                                       isa::state_kind_name(value.kind), value.index));
      }
    }
  }
  return problems;
}

}  // namespace snr::window
