// What recording a foreign Linux process (qemu-riscv64 and other stubs that
// are not the snr device) adds to the recorder: code fetched a halfword at a
// time (compressed instructions), and each system call stepped on its own
// with its result and the bytes the kernel wrote saved for re-execution.
#include <fmt/format.h>

#include <optional>

#include "common/error.h"
#include "record/linux_syscalls.h"
#include "record/recorder_internal.h"

namespace snr::record::detail {

uint16_t Recorder::code_halfword(ChipRecord& chip, uint64_t address) {
  const uint64_t block = address & ~(kCodeBlockBytes - 1);
  auto it = chip.code_blocks.find(block);
  if (it == chip.code_blocks.end()) {
    std::optional<std::string> bytes = target_.try_read_memory(chip.thread, block, kCodeBlockBytes);
    if (!bytes) {
      const std::string exact = target_.read_memory(chip.thread, address, 2);
      return static_cast<uint16_t>(static_cast<uint8_t>(exact[0]) | static_cast<uint8_t>(exact[1]) << 8);
    }
    it = chip.code_blocks.emplace(block, std::move(*bytes)).first;
  }
  const std::string& bytes = it->second;
  const uint64_t at = address - block;
  return static_cast<uint16_t>(static_cast<uint8_t>(bytes[at]) | static_cast<uint8_t>(bytes[at + 1]) << 8);
}

void Recorder::record_syscall(ChipRecord& chip, uint32_t word) {
  finish_steps();  // the call's result is read right after its step
  const uint64_t number = chip.x[17];
  const LinuxSyscall* call = find_linux_syscall(number);
  if (call == nullptr) {
    fail_at(chip, word, fmt::format("system call {} (a7) is not one whose effects the recorder knows, so the window "
                                    "cannot contain it (known: {})", number, known_linux_syscalls()));
  }
  save_x_register(chip, 17);
  for (uint16_t i = 0; i < call->args; ++i) save_x_register(chip, static_cast<uint16_t>(10 + i));
  SyscallArgs args{};
  for (size_t i = 0; i < args.size(); ++i) args[i] = chip.x[10 + i];
  const uint64_t old_pc = chip.pc;
  StepReply reply;
  try {
    reply = target_.step(chip.thread);
  } catch (const Error& e) {
    fail_at(chip, word, e.what());
  }
  const std::string label = linux_syscall_label(number);
  if (reply.exited) fail_at(chip, word, fmt::format("the process exited during system call {}", label));
  if (reply.signal != 5) {
    fail_at(chip, word, fmt::format("system call {} stopped with signal {}", label, reply.signal));
  }
  const RemoteTarget::GeneralRegisters regs = target_.read_general(chip.thread);
  if (regs.pc != old_pc + 4) {
    fail_at(chip, word, fmt::format("system call {} returned to {:#x}, not to the next instruction (a signal "
                                    "handler?)", label, regs.pc));
  }
  for (size_t i = 1; i < 32; ++i) {
    if (i != 10 && regs.x[i] != chip.x[i]) {
      fail_at(chip, word, fmt::format("system call {} changed x{} ({:#x} -> {:#x}); only a0 may change", label, i,
                                      chip.x[i], regs.x[i]));
    }
  }
  const uint64_t result = regs.x[10];
  std::vector<Interval> written;
  if (std::string why = call->written(args, result, written); !why.empty()) {
    fail_at(chip, word, fmt::format("system call {}: {}", label, why));
  }
  pb::Syscall& out = chip.syscalls.emplace_back();
  out.set_instruction(chip.pcs.size());
  out.set_number(number);
  for (uint8_t i = 0; i < call->args; ++i) out.add_args(args[i]);
  out.set_result(result);
  for (const Interval& range : written) {
    const uint64_t length = range.end - range.begin;
    if (range.end < range.begin || length > kMaxSyscallWriteBytes) {
      fail_at(chip, word, fmt::format("system call {} wrote {} bytes at {:#x}, more than the {} the recorder takes",
                                      label, length, range.begin, kMaxSyscallWriteBytes));
    }
    pb::MemoryRegion* region = out.add_written();
    region->set_space(pb::SPACE_FLAT);
    region->set_address(range.begin);
    try {
      region->set_data(target_.read_memory(chip.thread, range.begin, length));
    } catch (const Error& e) {
      fail_at(chip, word, fmt::format("reading what system call {} wrote: {}", label, e.what()));
    }
    chip.written_memory.add(range.begin, range.end);
  }
  chip.written_state.insert(state_key(isa::StateKind::kX, 10));
  chip.x = regs.x;
  chip.pc = regs.pc;
  retire(chip, old_pc);
  round_retired_ = true;
}

}  // namespace snr::record::detail
