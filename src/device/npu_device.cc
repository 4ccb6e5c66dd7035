#include "device/npu_device.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <fmt/format.h>

#include "common/error.h"
#include "device/memory_windows.h"
#include "rsp/packet.h"
#include "sim/state_access.h"

namespace snr::device {
namespace {

constexpr uint8_t kSigTrap = 5;
constexpr uint8_t kSigInt = 2;
constexpr uint8_t kSigSegv = 11;
constexpr uint32_t kRegSp = 2;
// Instructions between polls for a debugger interrupt while running.
constexpr uint64_t kInterruptPollInterval = 1 << 16;

uint32_t chip_status_code(sim::ChipStatus status) { return static_cast<uint32_t>(status); }

std::string as_string(std::span<const uint8_t> bytes) { return std::string(bytes.begin(), bytes.end()); }

}  // namespace

NpuDevice::NpuDevice(hw::HwConfig config, sim::ProgramImage program)
    : NpuDevice(std::move(config), [program = std::move(program)](sim::System& system) { system.load(program); }) {}

NpuDevice::NpuDevice(hw::HwConfig config, Loader loader) : config_(std::move(config)), loader_(std::move(loader)) {
  if (config_.mxu_count > kMaxMxuWindows) {
    throw Error(fmt::format("{} matrix units exceed the {} the debugger windows address", config_.mxu_count,
                            kMaxMxuWindows));
  }
  reset();
}

void NpuDevice::reset() {
  executor_.reset();
  system_ = std::make_unique<sim::System>(config_);
  loader_(*system_);
  executor_ = std::make_unique<sim::Executor>(*system_);
  last_stop_ = stop_on(0, kSigTrap);
}

void NpuDevice::kill() {
  breakpoints_.clear();
  reset();
}

rsp::StopEvent NpuDevice::stop_on(uint32_t chip, uint8_t signal) {
  rsp::StopEvent stop;
  stop.thread = chip + 1;
  stop.signal = signal;
  stop.expedited_registers = {kRegPc, kRegSp};
  return stop;
}

std::optional<std::string> NpuDevice::custom_query(const std::string& payload) {
  if (payload == "qSnr.HwConfig") return rsp::hex_encode(system_->config().to_yaml());
  return std::nullopt;
}

std::optional<std::string> NpuDevice::feature_document(const std::string& annex) const {
  if (annex == "target.xml") return npu_target_xml();
  return std::nullopt;
}

std::vector<rsp::ThreadId> NpuDevice::threads() const {
  std::vector<rsp::ThreadId> out;
  for (uint32_t i = 0; i < system_->chip_count(); ++i) out.push_back(i + 1);
  return out;
}

bool NpuDevice::thread_alive(rsp::ThreadId thread) const { return thread >= 1 && thread <= system_->chip_count(); }

sim::ChipState& NpuDevice::chip_of(rsp::ThreadId thread) {
  if (!thread_alive(thread)) throw Error(fmt::format("no thread {} (chips are threads 1..{})", thread, chip_count()));
  return system_->chip(thread - 1);
}

std::string NpuDevice::read_general_registers(rsp::ThreadId thread) {
  const sim::ChipState& chip = chip_of(thread);
  std::string out;
  out.reserve(33 * 8);
  for (uint64_t value : chip.x) out += rsp::le_bytes(value, 8);
  out += rsp::le_bytes(chip.pc, 8);
  return out;
}

Status NpuDevice::write_general_registers(rsp::ThreadId thread, const std::string& bytes) {
  if (bytes.size() != 33 * 8) return Error(fmt::format("G packet of {} bytes, expected 264", bytes.size()));
  sim::ChipState& chip = chip_of(thread);
  auto word = [&](uint32_t i) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 8 * i, 8);
  };
  for (uint32_t i = 0; i < 32; ++i) sim::install_state(chip, isa::StateKind::kX, i, word(i));
  sim::install_state(chip, isa::StateKind::kPc, 0, word(32));
  return {};
}

Result<std::string> NpuDevice::read_register(rsp::ThreadId thread, uint32_t regnum) {
  if (!thread_alive(thread)) return Error(fmt::format("no thread {}", thread));
  const sim::ChipState& chip = chip_of(thread);
  if (regnum < 32) return rsp::le_bytes(chip.x[regnum], 8);
  if (regnum >= kRegSemaphore0 && regnum < kRegSemaphore0 + isa::kSemaphoreCount) {
    return rsp::le_bytes(chip.semaphore[regnum - kRegSemaphore0], 4);
  }
  switch (regnum) {
    case kRegPc: return rsp::le_bytes(chip.pc, 8);
    // Functional execution retires one instruction per cycle (sim/state_access.h).
    case kRegCycle: return as_string(sim::state_bytes(chip, isa::StateKind::kCsr, isa::kCsrCycle));
    case kRegInstret: return as_string(sim::state_bytes(chip, isa::StateKind::kCsr, isa::kCsrInstret));
    case kRegMhartid: return rsp::le_bytes(chip.chip_id, 8);
    case kRegNchips: return rsp::le_bytes(system_->chip_count(), 8);
    case kRegChipStatus: return rsp::le_bytes(chip_status_code(chip.status), 4);
    case kRegExitCode: return rsp::le_bytes(static_cast<uint64_t>(chip.exit_code), 8);
    case kRegMxuCount: return rsp::le_bytes(config_.mxu_count, 4);
    default: return Error(fmt::format("no register {}", regnum));
  }
}

Status NpuDevice::write_register(rsp::ThreadId thread, uint32_t regnum, const std::string& bytes) {
  if (!thread_alive(thread)) return Error(fmt::format("no thread {}", thread));
  sim::ChipState& chip = chip_of(thread);
  const std::span<const uint8_t> value(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (regnum < 32) {
    if (bytes.size() != 8) return Error("x registers are 8 bytes");
    sim::install_state(chip, isa::StateKind::kX, regnum, value);
    return {};
  }
  if (regnum >= kRegSemaphore0 && regnum < kRegSemaphore0 + isa::kSemaphoreCount) {
    if (bytes.size() != 4) return Error("semaphores are 4 bytes");
    sim::install_state(chip, isa::StateKind::kSemaphore, regnum - kRegSemaphore0, value);
    return {};
  }
  if (bytes.size() != 8) return Error("64-bit register");
  switch (regnum) {
    case kRegPc: sim::install_state(chip, isa::StateKind::kPc, 0, value); return {};
    case kRegCycle: sim::install_state(chip, isa::StateKind::kCsr, isa::kCsrCycle, value); return {};
    case kRegInstret: sim::install_state(chip, isa::StateKind::kCsr, isa::kCsrInstret, value); return {};
    default: return Error(fmt::format("register {} is read-only", regnum));
  }
}

bool NpuDevice::access_window(sim::ChipState& chip, uint64_t address, uint64_t length, std::string* read_into,
                              const std::string* write_from) {
  // One window object (a vector register, a weight tile, ...) per access keeps
  // the bounds obvious; contiguous objects are walked by the caller.
  // Bytes [done, done + piece) of the access go to or come from `offset` within one object.
  auto access = [&](isa::StateKind kind, uint64_t index, uint64_t offset, uint64_t done = 0,
                    std::optional<uint64_t> piece = std::nullopt) {
    const uint64_t bytes = piece.value_or(length);
    if (write_from) {
      return sim::write_state_bytes(
          chip, kind, static_cast<uint32_t>(index), offset,
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(write_from->data()) + done, bytes));
    }
    const std::span<const uint8_t> object = sim::state_bytes(chip, kind, static_cast<uint32_t>(index));
    if (offset > object.size() || bytes > object.size() - offset) return false;
    read_into->append(reinterpret_cast<const char*>(object.data() + offset), bytes);
    return true;
  };
  const uint64_t mxu_count = config_.mxu_count;
  if (address >= kVectorWindowBase && address < kVectorWindowBase + isa::kVectorRegisterCount * kVectorWindowStride) {
    return access(isa::StateKind::kV, (address - kVectorWindowBase) / kVectorWindowStride,
                  (address - kVectorWindowBase) % kVectorWindowStride);
  }
  if (address >= kMxuWeightsWindowBase && address < kMxuWeightsWindowBase + mxu_count * kMxuWeightsWindowStride) {
    return access(isa::StateKind::kMxuWeights, (address - kMxuWeightsWindowBase) / kMxuWeightsWindowStride,
                  (address - kMxuWeightsWindowBase) % kMxuWeightsWindowStride);
  }
  if (address >= kMxuAccumulatorWindowBase &&
      address < kMxuAccumulatorWindowBase + mxu_count * kMxuAccumulatorWindowStride) {
    return access(isa::StateKind::kMxuAccumulator, (address - kMxuAccumulatorWindowBase) / kMxuAccumulatorWindowStride,
                  (address - kMxuAccumulatorWindowBase) % kMxuAccumulatorWindowStride);
  }
  if (address >= kSemaphoreWindowBase && address < kSemaphoreWindowBase + kSemaphoreWindowBytes) {
    // One window over all semaphores, 4 bytes each, so an access may span several.
    const uint64_t offset = address - kSemaphoreWindowBase;
    if (length > kSemaphoreWindowBytes - offset) return false;
    for (uint64_t done = 0; done < length;) {
      const uint64_t at = offset + done;
      const uint64_t piece = std::min<uint64_t>(length - done, 4 - at % 4);
      if (!access(isa::StateKind::kSemaphore, at / 4, at % 4, done, piece)) return false;
      done += piece;
    }
    return true;
  }
  return false;
}

Result<std::string> NpuDevice::read_memory(rsp::ThreadId thread, uint64_t address, uint64_t length) {
  if (!thread_alive(thread)) return Error(fmt::format("no thread {}", thread));
  sim::ChipState& chip = chip_of(thread);
  if (length == 0) return std::string();
  if (isa::memory_space_of(address) == isa::MemorySpace::kDebugWindow) {
    std::string out;
    // Walk window objects so a read may span consecutive vector registers.
    while (out.size() < length) {
      const uint64_t at = address + out.size();
      uint64_t piece = length - out.size();
      if (at >= kVectorWindowBase && at < kVectorWindowBase + isa::kVectorRegisterCount * kVectorWindowStride) {
        piece = std::min(piece, kVectorWindowStride - (at - kVectorWindowBase) % kVectorWindowStride);
      } else if (at >= kMxuWeightsWindowBase && at < kMxuAccumulatorWindowBase) {
        piece = std::min(piece, kMxuWeightsWindowStride - (at - kMxuWeightsWindowBase) % kMxuWeightsWindowStride);
      } else if (at >= kMxuAccumulatorWindowBase && at < kSemaphoreWindowBase) {
        piece = std::min(piece, kMxuAccumulatorWindowStride - (at - kMxuAccumulatorWindowBase) % kMxuAccumulatorWindowStride);
      }
      const uint64_t saved_length = piece;
      std::string chunk;
      if (!access_window(chip, at, saved_length, &chunk, nullptr)) {
        return Error(fmt::format("{:#x} is not inside a debugger window of chip {}", at, chip.chip_id));
      }
      out += chunk;
    }
    return out;
  }
  try {
    sim::MemoryTarget target = system_->resolve_local(chip, address, length, "debugger read");
    std::string out(length, '\0');
    target.memory->read(target.offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), length));
    return out;
  } catch (const Error& e) {
    return e;
  }
}

Status NpuDevice::write_memory(rsp::ThreadId thread, uint64_t address, const std::string& bytes) {
  if (!thread_alive(thread)) return Error(fmt::format("no thread {}", thread));
  sim::ChipState& chip = chip_of(thread);
  if (bytes.empty()) return {};
  if (isa::memory_space_of(address) == isa::MemorySpace::kDebugWindow) {
    if (!access_window(chip, address, bytes.size(), nullptr, &bytes)) {
      return Error(fmt::format("{:#x}+{} is not inside one debugger window object", address, bytes.size()));
    }
    return {};
  }
  if (address < system_->text_end() && address + bytes.size() > system_->text_base()) {
    // Text is predecoded once; breakpoints go through Z0, not memory writes.
    return Error(fmt::format("{:#x} is instruction memory (use Z0 breakpoints)", address));
  }
  try {
    sim::MemoryTarget target = system_->resolve_local(chip, address, bytes.size(), "debugger write");
    target.memory->write(target.offset, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    return {};
  } catch (const Error& e) {
    return e;
  }
}

Status NpuDevice::insert_breakpoint(uint64_t address) {
  if ((address & 3) != 0 || system_->fetch(address) == nullptr) {
    return Error(fmt::format("breakpoint at {:#x} is not an instruction of the text", address));
  }
  breakpoints_.insert(address);
  return {};
}

Status NpuDevice::remove_breakpoint(uint64_t address) {
  breakpoints_.erase(address);
  return {};
}

rsp::StopEvent NpuDevice::step(rsp::ThreadId thread) {
  sim::ChipState& chip = chip_of(thread);
  rsp::StopEvent stop = stop_on(chip.chip_id, kSigTrap);
  if (chip.status == sim::ChipStatus::kExited) {
    stop.extra.emplace_back("snr-chip", "exited");
    return last_stop_ = stop;
  }
  // Expedite every x register the instruction writes, so a client tracking
  // register values needs no extra read after the step.
  if (const isa::DecodedInstruction* d = system_->fetch(chip.pc); d != nullptr && d->valid()) {
    for (uint32_t mask = system_->register_use(d).x_writes; mask != 0; mask &= mask - 1) {
      const uint32_t reg = static_cast<uint32_t>(std::countr_zero(mask));
      if (reg != kRegSp) stop.expedited_registers.push_back(reg);
    }
  }
  const sim::StepResult result = executor_->step(chip);
  switch (result) {
    case sim::StepResult::kRetired: break;
    case sim::StepResult::kBlocked: stop.extra.emplace_back("snr-chip", "blocked"); break;
    case sim::StepResult::kBreak: stop.extra.emplace_back("snr-chip", "ebreak"); break;
    case sim::StepResult::kExited: {
      bool all_exited = true;
      for (uint32_t i = 0; i < chip_count(); ++i) all_exited &= system_->chip(i).status == sim::ChipStatus::kExited;
      if (all_exited) {
        stop.kind = rsp::StopEvent::Kind::kExited;
        stop.exit_code = static_cast<int>(system_->chip(0).exit_code);
      } else {
        stop.extra.emplace_back("snr-chip", "exited");
      }
      break;
    }
  }
  return last_stop_ = stop;
}

rsp::StopEvent NpuDevice::resume(const std::function<bool()>& interrupted) {
  // Round-robin, one instruction per chip per round. A chip resumed while
  // sitting on a breakpoint executes that instruction first (the debugger
  // has already seen the hit).
  const uint32_t n = chip_count();
  std::vector<bool> first(n, true);
  uint64_t executed = 0;
  for (;;) {
    bool progressed = false;
    bool any_running = false;
    for (uint32_t id = 0; id < n; ++id) {
      sim::ChipState& chip = system_->chip(id);
      if (chip.status == sim::ChipStatus::kExited) continue;
      any_running = true;
      if (!first[id] && breakpoints_.count(chip.pc) != 0) return last_stop_ = stop_on(id, kSigTrap);
      first[id] = false;
      sim::StepResult result;
      try {
        result = executor_->step(chip);
      } catch (const Error&) {
        rsp::StopEvent stop = stop_on(id, kSigSegv);
        stop.extra.emplace_back("snr-fault", "1");
        return last_stop_ = stop;
      }
      if (result == sim::StepResult::kBreak) {
        rsp::StopEvent stop = stop_on(id, kSigTrap);
        stop.extra.emplace_back("snr-chip", "ebreak");
        return last_stop_ = stop;
      }
      if (result != sim::StepResult::kBlocked) progressed = true;
      if (++executed % kInterruptPollInterval == 0 && interrupted()) return last_stop_ = stop_on(id, kSigInt);
    }
    if (!any_running) {
      rsp::StopEvent stop;
      stop.kind = rsp::StopEvent::Kind::kExited;
      stop.exit_code = static_cast<int>(system_->chip(0).exit_code);
      return last_stop_ = stop;
    }
    if (!progressed) {
      // Every live chip waits on a semaphore nobody will signal.
      rsp::StopEvent stop = stop_on(0, kSigTrap);
      stop.extra.emplace_back("snr-stop", "deadlock");
      return last_stop_ = stop;
    }
  }
}

}  // namespace snr::device
