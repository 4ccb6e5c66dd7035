#include "sim/recorded_syscalls.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::sim {

RecordedSyscalls::RecordedSyscalls(System& system) {
  for (uint32_t c = 0; c < system.chip_count(); ++c) start_instret_.push_back(system.chip(c).instret);
}

StepResult RecordedSyscalls::on_ecall(ChipState& chip) {
  const uint64_t instruction = chip.instret - start_instret_.at(chip.chip_id);
  const auto calls = calls_.find(chip.chip_id);
  size_t& next = next_[chip.chip_id];
  if (calls == calls_.end() || next >= calls->second.size() || calls->second[next].instruction != instruction) {
    throw Error(fmt::format("the device made no recorded system call at instruction {} (a7={})", instruction,
                            chip.x[17]));
  }
  const RecordedSyscall& call = calls->second[next];
  if (chip.x[17] != call.number) {
    throw Error(fmt::format("system call {}: the device made call {}, the simulator call {}", next, call.number,
                            chip.x[17]));
  }
  for (size_t i = 0; i < call.args.size() && i < 8; ++i) {
    if (chip.x[10 + i] != call.args[i]) {
      throw Error(fmt::format("system call {} (number {}): argument a{}: device {:#x}, simulator {:#x}", next,
                              call.number, i, call.args[i], chip.x[10 + i]));
    }
  }
  if (chip.flat_memory == nullptr && !call.written.empty()) {
    throw Error(fmt::format("system call {} wrote memory, but the chip has no flat address space", next));
  }
  for (const auto& [address, bytes] : call.written) {
    if (!chip.flat_memory->contains(address, bytes.size())) {
      throw Error(fmt::format("system call {}: the kernel's {} bytes at {:#x} are outside the recorded pages", next,
                              bytes.size(), address));
    }
    chip.flat_memory->write(address, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                              bytes.size()));
  }
  chip.x[10] = call.result;
  chip.pc += 4;
  ++next;
  return StepResult::kRetired;
}

size_t RecordedSyscalls::unused(uint32_t chip) const {
  const auto calls = calls_.find(chip);
  if (calls == calls_.end()) return 0;
  const auto next = next_.find(chip);
  return calls->second.size() - (next == next_.end() ? 0 : next->second);
}

}  // namespace snr::sim
