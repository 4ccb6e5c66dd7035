#include "device/npu_device.h"

#include <cstring>
#include <fmt/format.h>

#include "common/error.h"
#include "device/memory_windows.h"
#include "rsp/packet.h"
#include "sim/npu_math.h"

namespace snr::device {
namespace {

constexpr uint8_t kSigTrap = 5;
constexpr uint8_t kSigInt = 2;
constexpr uint8_t kSigSegv = 11;
constexpr uint32_t kRegSp = 2;
// Instructions between polls for a debugger interrupt while running.
constexpr uint64_t kInterruptPollInterval = 1 << 16;

uint32_t chip_status_code(sim::ChipStatus status) { return static_cast<uint32_t>(status); }

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
  auto word = [&](size_t i) {
    return rsp::from_le_bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 8 * i, 8));
  };
  for (size_t i = 1; i < 32; ++i) chip.x[i] = word(i);
  chip.pc = word(32);
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
    // Functional execution retires one instruction per cycle.
    case kRegCycle: return rsp::le_bytes(chip.instret, 8);
    case kRegInstret: return rsp::le_bytes(chip.instret, 8);
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
  const uint64_t value =
      rsp::from_le_bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  if (regnum < 32) {
    if (bytes.size() != 8) return Error("x registers are 8 bytes");
    if (regnum != 0) chip.x[regnum] = value;
    return {};
  }
  if (regnum >= kRegSemaphore0 && regnum < kRegSemaphore0 + isa::kSemaphoreCount) {
    if (bytes.size() != 4) return Error("semaphores are 4 bytes");
    chip.semaphore[regnum - kRegSemaphore0] = static_cast<uint32_t>(value);
    return {};
  }
  if (bytes.size() != 8) return Error("64-bit register");
  switch (regnum) {
    case kRegPc: chip.pc = value; return {};
    case kRegCycle:
    case kRegInstret: chip.instret = value; chip.cycle = value; return {};
    default: return Error(fmt::format("register {} is read-only", regnum));
  }
}

bool NpuDevice::access_window(sim::ChipState& chip, uint64_t address, uint64_t length, std::string* read_into,
                              const std::string* write_from) {
  // One window object (a vector register, a weight tile, ...) per access keeps
  // the bounds obvious; contiguous objects are walked by the caller.
  auto copy = [&](uint8_t* object, uint64_t object_bytes, uint64_t offset) {
    if (offset + length > object_bytes) return false;
    if (read_into) {
      read_into->append(reinterpret_cast<const char*>(object + offset), length);
    } else {
      std::memcpy(object + offset, write_from->data(), length);
    }
    return true;
  };
  const uint64_t mxu_count = config_.mxu_count;
  if (address >= kVectorWindowBase && address < kVectorWindowBase + isa::kVectorRegisterCount * kVectorWindowStride) {
    const uint64_t index = (address - kVectorWindowBase) / kVectorWindowStride;
    return copy(reinterpret_cast<uint8_t*>(chip.v[index].element.data()), kVectorWindowStride,
                (address - kVectorWindowBase) % kVectorWindowStride);
  }
  if (address >= kMxuWeightsWindowBase && address < kMxuWeightsWindowBase + mxu_count * kMxuWeightsWindowStride) {
    const uint64_t index = (address - kMxuWeightsWindowBase) / kMxuWeightsWindowStride;
    sim::MatrixUnitState& unit = chip.mxu[index];
    if (!copy(reinterpret_cast<uint8_t*>(unit.weights_bf16.data()), kMxuWeightsWindowStride,
              (address - kMxuWeightsWindowBase) % kMxuWeightsWindowStride)) {
      return false;
    }
    if (write_from) {
      for (size_t i = 0; i < unit.weights_bf16.size(); ++i) unit.weights_f32[i] = sim::f32_from_bf16(unit.weights_bf16[i]);
    }
    return true;
  }
  if (address >= kMxuAccumulatorWindowBase &&
      address < kMxuAccumulatorWindowBase + mxu_count * kMxuAccumulatorWindowStride) {
    const uint64_t index = (address - kMxuAccumulatorWindowBase) / kMxuAccumulatorWindowStride;
    return copy(reinterpret_cast<uint8_t*>(chip.mxu[index].accumulator.data()), kMxuAccumulatorWindowStride,
                (address - kMxuAccumulatorWindowBase) % kMxuAccumulatorWindowStride);
  }
  if (address >= kSemaphoreWindowBase && address < kSemaphoreWindowBase + kSemaphoreWindowBytes) {
    return copy(reinterpret_cast<uint8_t*>(chip.semaphore.data()), kSemaphoreWindowBytes, address - kSemaphoreWindowBase);
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
