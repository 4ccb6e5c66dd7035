#include "sim/executor.h"

#include <fmt/format.h>

#include <bit>

#include "common/error.h"
#include "isa/address_map.h"
#include "isa/compressed.h"
#include "isa/disasm.h"

namespace snr::sim {
namespace {

using isa::Opcode;

constexpr int64_t sext32(uint64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }

// 128-bit products for mulh*; __extension__ keeps -Wpedantic quiet about the
// GCC/Clang builtin type.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

uint64_t mulh_signed(int64_t a, int64_t b) {
  return static_cast<uint64_t>((static_cast<Int128>(a) * static_cast<Int128>(b)) >> 64);
}
uint64_t mulh_unsigned(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<UInt128>(a) * b) >> 64);
}
uint64_t mulh_signed_unsigned(int64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<Int128>(a) * static_cast<Int128>(b)) >> 64);
}

// RISC-V division rules: x/0 = -1 (all ones), x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0.
int64_t div_signed(int64_t a, int64_t b) {
  if (b == 0) return -1;
  if (a == INT64_MIN && b == -1) return a;
  return a / b;
}
int64_t rem_signed(int64_t a, int64_t b) {
  if (b == 0) return a;
  if (a == INT64_MIN && b == -1) return 0;
  return a % b;
}
uint64_t div_unsigned(uint64_t a, uint64_t b) { return b == 0 ? UINT64_MAX : a / b; }
uint64_t rem_unsigned(uint64_t a, uint64_t b) { return b == 0 ? a : a % b; }

// A scalar load of the width its opcode names, sign- or zero-extended,
// from either memory a chip may have (the NPU's SMEM, a foreign program's
// recorded pages).
template <typename Memory>
uint64_t load_extended(const Memory& m, Opcode opcode, uint64_t address) {
  switch (opcode) {
    case Opcode::kLb: return static_cast<uint64_t>(static_cast<int64_t>(m.template load<int8_t>(address)));
    case Opcode::kLh: return static_cast<uint64_t>(static_cast<int64_t>(m.template load<int16_t>(address)));
    case Opcode::kLw: return static_cast<uint64_t>(static_cast<int64_t>(m.template load<int32_t>(address)));
    case Opcode::kLd: return m.template load<uint64_t>(address);
    case Opcode::kLbu: return m.template load<uint8_t>(address);
    case Opcode::kLhu: return m.template load<uint16_t>(address);
    default: return m.template load<uint32_t>(address);  // lwu
  }
}

template <typename Memory>
void store_width(Memory& m, uint64_t width_bytes, uint64_t address, uint64_t value) {
  switch (width_bytes) {
    case 1: m.template store<uint8_t>(address, static_cast<uint8_t>(value)); break;
    case 2: m.template store<uint16_t>(address, static_cast<uint16_t>(value)); break;
    case 4: m.template store<uint32_t>(address, static_cast<uint32_t>(value)); break;
    default: m.template store<uint64_t>(address, value); break;
  }
}

}  // namespace

void signal_dma_completion(System& system, const DmaRequest& request, uint64_t cycle) {
  auto signal = [&](uint32_t chip_id) {
    ChipState& chip = system.chip(chip_id);
    uint32_t& sem = chip.semaphore[request.semaphore];
    sem += 1;  // 32-bit counters wrap, like the hardware register
    if (system.bus().semaphore.active()) {
      system.bus().semaphore.publish(
          SemaphoreEvent{chip_id, cycle, request.semaphore, SemaphoreOp::kSignal, 1, sem, request.issuing_chip});
    }
  };
  signal(request.issuing_chip);
  if (request.dst_chip != request.issuing_chip) signal(request.dst_chip);
}

Executor::Executor(System& system, DmaCompletionPolicy* policy) : system_(system), policy_(policy) {}

std::string Executor::describe(const ChipState& chip, const isa::DecodedInstruction& d) const {
  return fmt::format("chip {} pc {:#x} ({:#010x} {})", chip.chip_id, chip.pc, d.word, isa::disassemble(d, chip.pc));
}

void Executor::fault(const ChipState& chip, const isa::DecodedInstruction& d, const std::string& why) const {
  throw Error(fmt::format("{}: {}", describe(chip, d), why));
}

StepResult Executor::run(ChipState& chip, uint64_t max_instructions, uint64_t& retired) {
  retired = 0;
  while (retired < max_instructions) {
    StepResult result = step(chip);
    if (result != StepResult::kRetired) return result;
    ++retired;
  }
  return StepResult::kRetired;
}

void Executor::publish_memory(const ChipState& chip, MemoryKind kind, uint64_t offset, uint64_t row_bytes,
                              uint64_t rows, uint64_t stride, bool is_write) const {
  const Channel<MemoryAccess>& channel = system_.bus().memory;
  if (channel.active() && row_bytes != 0 && rows != 0) {
    channel.publish(MemoryAccess{chip.chip_id, chip.cycle, kind, offset, row_bytes, rows, stride, is_write, chip.pc, kNoDma});
  }
}

StepResult Executor::step(ChipState& chip) {
  const isa::DecodedInstruction* d = system_.fetch(chip.pc);
  if (d == nullptr) [[unlikely]] {
    throw Error(fmt::format("chip {}: instruction fetch at pc {:#x} outside the program text [{:#x}, {:#x})",
                            chip.chip_id, chip.pc, system_.text_base(), system_.text_end()));
  }
  if (!d->valid()) [[unlikely]] fault(chip, *d, "illegal instruction");
  if (policy_ == nullptr) chip.cycle = chip.instret;  // functional events count instructions
  if (system_.bus().register_access.active()) publish_registers(chip, *d);
  StepResult result = execute(chip, *d);
  if (result == StepResult::kRetired) {
    ++chip.instret;
    if (publish_retired_ && system_.bus().instruction_retired.active()) {
      system_.bus().instruction_retired.publish(InstructionRetired{chip.chip_id, chip.cycle, chip.cycle, chip.pc, d});
    }
  }
  return result;
}

uint64_t Executor::flat_load(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address) {
  const uint64_t width = d.row->mem_bytes;
  const FlatMemory& m = *chip.flat_memory;
  if (!m.contains(address, width)) [[unlikely]] {
    fault(chip, d, fmt::format("load of {} bytes at {:#x} is outside the pages the recorded window touched", width,
                               address));
  }
  publish_memory(chip, MemoryKind::kSmem, address, width, 1, 0, false);
  return load_extended(m, d.opcode, address);
}

void Executor::flat_store(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address, uint64_t value) {
  const uint64_t width = d.row->mem_bytes;
  FlatMemory& m = *chip.flat_memory;
  if (!m.contains(address, width)) [[unlikely]] {
    fault(chip, d, fmt::format("store of {} bytes at {:#x} is outside the pages the recorded window touched", width,
                               address));
  }
  if (system_.overlaps_text(address, width)) [[unlikely]] {
    fault(chip, d, fmt::format("store at {:#x} into the recorded code [{:#x}, {:#x}) (text is fetch-only)",
                               address, system_.text_base(), system_.text_end()));
  }
  publish_memory(chip, MemoryKind::kSmem, address, width, 1, 0, true);
  store_width(m, width, address, value);
}

uint64_t Executor::scalar_load(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address) {
  if (chip.flat_memory) [[unlikely]] return flat_load(chip, d, address);
  const uint64_t width = d.row->mem_bytes;
  if (!chip.scalar_memory.contains(address, width)) [[unlikely]] {
    fault(chip, d, fmt::format("load of {} bytes at {:#x} is outside SMEM [0, {:#x}) (scalar loads reach only the "
                               "scalar space)",
                               width, address, chip.scalar_memory.size_bytes()));
  }
  publish_memory(chip, MemoryKind::kSmem, address, width, 1, 0, false);
  const PagedMemory& m = chip.scalar_memory;
  return load_extended(m, d.opcode, address);
}

void Executor::scalar_store(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address, uint64_t value) {
  if (chip.flat_memory) [[unlikely]] {
    flat_store(chip, d, address, value);
    return;
  }
  const uint64_t width = d.row->mem_bytes;
  if (!chip.scalar_memory.contains(address, width)) [[unlikely]] {
    fault(chip, d, fmt::format("store of {} bytes at {:#x} is outside SMEM [0, {:#x})", width, address,
                               chip.scalar_memory.size_bytes()));
  }
  if (system_.overlaps_text(address, width)) [[unlikely]] {
    fault(chip, d, fmt::format("store at {:#x} into instruction memory [{:#x}, {:#x}) (text is fetch-only)",
                               address, system_.text_base(), system_.text_end()));
  }
  publish_memory(chip, MemoryKind::kSmem, address, width, 1, 0, true);
  PagedMemory& m = chip.scalar_memory;
  store_width(m, width, address, value);
}

StepResult Executor::execute(ChipState& chip, const isa::DecodedInstruction& d) {
  auto& x = chip.x;
  const uint64_t a = x[d.rs1];
  const uint64_t b = x[d.rs2];
  const auto imm = static_cast<uint64_t>(d.imm);
  uint64_t next_pc = chip.pc + isa::instruction_bytes(d.word);  // 2 for a foreign program's RVC
  uint64_t result = 0;
  bool writes_rd = true;
  switch (d.opcode) {
    case Opcode::kLui: result = static_cast<uint64_t>(sext32(imm << 12)); break;
    case Opcode::kAuipc: result = chip.pc + static_cast<uint64_t>(sext32(imm << 12)); break;
    case Opcode::kJal: result = next_pc; next_pc = chip.pc + imm; break;
    case Opcode::kJalr: result = next_pc; next_pc = (a + imm) & ~uint64_t{1}; break;
    case Opcode::kBeq: writes_rd = false; if (a == b) next_pc = chip.pc + imm; break;
    case Opcode::kBne: writes_rd = false; if (a != b) next_pc = chip.pc + imm; break;
    case Opcode::kBlt: writes_rd = false; if (static_cast<int64_t>(a) < static_cast<int64_t>(b)) next_pc = chip.pc + imm; break;
    case Opcode::kBge: writes_rd = false; if (static_cast<int64_t>(a) >= static_cast<int64_t>(b)) next_pc = chip.pc + imm; break;
    case Opcode::kBltu: writes_rd = false; if (a < b) next_pc = chip.pc + imm; break;
    case Opcode::kBgeu: writes_rd = false; if (a >= b) next_pc = chip.pc + imm; break;
    case Opcode::kLb: case Opcode::kLh: case Opcode::kLw: case Opcode::kLd:
    case Opcode::kLbu: case Opcode::kLhu: case Opcode::kLwu:
      result = scalar_load(chip, d, a + imm);
      break;
    case Opcode::kSb: case Opcode::kSh: case Opcode::kSw: case Opcode::kSd:
      writes_rd = false;
      scalar_store(chip, d, a + imm, b);
      break;
    case Opcode::kAddi: result = a + imm; break;
    case Opcode::kSlti: result = static_cast<int64_t>(a) < d.imm ? 1 : 0; break;
    case Opcode::kSltiu: result = a < imm ? 1 : 0; break;
    case Opcode::kXori: result = a ^ imm; break;
    case Opcode::kOri: result = a | imm; break;
    case Opcode::kAndi: result = a & imm; break;
    case Opcode::kSlli: result = a << (imm & 63); break;
    case Opcode::kSrli: result = a >> (imm & 63); break;
    case Opcode::kSrai: result = static_cast<uint64_t>(static_cast<int64_t>(a) >> (imm & 63)); break;
    case Opcode::kAdd: result = a + b; break;
    case Opcode::kSub: result = a - b; break;
    case Opcode::kSll: result = a << (b & 63); break;
    case Opcode::kSlt: result = static_cast<int64_t>(a) < static_cast<int64_t>(b) ? 1 : 0; break;
    case Opcode::kSltu: result = a < b ? 1 : 0; break;
    case Opcode::kXor: result = a ^ b; break;
    case Opcode::kSrl: result = a >> (b & 63); break;
    case Opcode::kSra: result = static_cast<uint64_t>(static_cast<int64_t>(a) >> (b & 63)); break;
    case Opcode::kOr: result = a | b; break;
    case Opcode::kAnd: result = a & b; break;
    case Opcode::kAddiw: result = static_cast<uint64_t>(sext32(a + imm)); break;
    case Opcode::kSlliw: result = static_cast<uint64_t>(sext32(a << (imm & 31))); break;
    case Opcode::kSrliw: result = static_cast<uint64_t>(sext32(static_cast<uint32_t>(a) >> (imm & 31))); break;
    case Opcode::kSraiw: result = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(a) >> (imm & 31))); break;
    case Opcode::kAddw: result = static_cast<uint64_t>(sext32(a + b)); break;
    case Opcode::kSubw: result = static_cast<uint64_t>(sext32(a - b)); break;
    case Opcode::kSllw: result = static_cast<uint64_t>(sext32(a << (b & 31))); break;
    case Opcode::kSrlw: result = static_cast<uint64_t>(sext32(static_cast<uint32_t>(a) >> (b & 31))); break;
    case Opcode::kSraw: result = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(a) >> (b & 31))); break;
    case Opcode::kMul: result = a * b; break;
    case Opcode::kMulh: result = mulh_signed(static_cast<int64_t>(a), static_cast<int64_t>(b)); break;
    case Opcode::kMulhsu: result = mulh_signed_unsigned(static_cast<int64_t>(a), b); break;
    case Opcode::kMulhu: result = mulh_unsigned(a, b); break;
    case Opcode::kDiv: result = static_cast<uint64_t>(div_signed(static_cast<int64_t>(a), static_cast<int64_t>(b))); break;
    case Opcode::kDivu: result = div_unsigned(a, b); break;
    case Opcode::kRem: result = static_cast<uint64_t>(rem_signed(static_cast<int64_t>(a), static_cast<int64_t>(b))); break;
    case Opcode::kRemu: result = rem_unsigned(a, b); break;
    case Opcode::kMulw: result = static_cast<uint64_t>(sext32(a * b)); break;
    case Opcode::kDivw: {
      const int32_t n = static_cast<int32_t>(a), m = static_cast<int32_t>(b);
      int32_t q = m == 0 ? -1 : (n == INT32_MIN && m == -1) ? n : n / m;
      result = static_cast<uint64_t>(static_cast<int64_t>(q));
      break;
    }
    case Opcode::kDivuw: {
      const uint32_t n = static_cast<uint32_t>(a), m = static_cast<uint32_t>(b);
      result = static_cast<uint64_t>(sext32(m == 0 ? UINT32_MAX : n / m));
      break;
    }
    case Opcode::kRemw: {
      const int32_t n = static_cast<int32_t>(a), m = static_cast<int32_t>(b);
      int32_t r = m == 0 ? n : (n == INT32_MIN && m == -1) ? 0 : n % m;
      result = static_cast<uint64_t>(static_cast<int64_t>(r));
      break;
    }
    case Opcode::kRemuw: {
      const uint32_t n = static_cast<uint32_t>(a), m = static_cast<uint32_t>(b);
      result = static_cast<uint64_t>(sext32(m == 0 ? n : n % m));
      break;
    }
    case Opcode::kFenceTso: case Opcode::kFence: case Opcode::kFenceI:
    case Opcode::kFenceVec: case Opcode::kFenceDma:
      writes_rd = false;  // ordering only; the timing layer models the wait
      break;
    case Opcode::kEcall: case Opcode::kEbreak:
      return execute_system(chip, d);
    case Opcode::kCsrrw: case Opcode::kCsrrs: case Opcode::kCsrrc:
    case Opcode::kCsrrwi: case Opcode::kCsrrsi: case Opcode::kCsrrci:
      execute_csr(chip, d);
      writes_rd = false;
      break;
    case Opcode::kVext: {
      const uint64_t k = b % kVectorElements;
      result = static_cast<uint64_t>(sext32(chip.v[d.vs1].element[k]));
      break;
    }
    case Opcode::kVld: case Opcode::kVst:
      writes_rd = false;
      execute_vector_memory(chip, d);
      break;
    case Opcode::kMxuLdw: case Opcode::kMxuMul: case Opcode::kMxuPop:
      writes_rd = false;
      execute_matrix(chip, d);
      break;
    case Opcode::kDmaIssue: case Opcode::kDmaIssue2d:
      writes_rd = false;
      execute_dma(chip, d);
      break;
    case Opcode::kSemSignal: case Opcode::kSemSignalRemote: case Opcode::kSemWait: case Opcode::kSemRead: {
      StepResult r = execute_semaphore(chip, d);
      if (r != StepResult::kRetired) return r;
      writes_rd = false;
      break;
    }
    default:
      writes_rd = false;
      execute_vector(chip, d);
      break;
  }
  if (writes_rd && d.rd != 0) x[d.rd] = result;
  chip.pc = next_pc;
  return StepResult::kRetired;
}

StepResult Executor::execute_system(ChipState& chip, const isa::DecodedInstruction& d) {
  if (d.opcode == Opcode::kEbreak) {
    chip.status = ChipStatus::kBreak;
    return StepResult::kBreak;
  }
  if (syscalls_ != nullptr) {
    try {
      return syscalls_->on_ecall(chip);
    } catch (const Error& e) {
      fault(chip, d, e.what());
    }
  }
  const uint64_t call = chip.x[17];  // a7
  if (call == isa::kSyscallExit) {
    chip.exit_code = static_cast<int64_t>(chip.x[10]);
    chip.status = ChipStatus::kExited;
    chip.pc += 4;
    return StepResult::kExited;
  }
  if (call == isa::kSyscallWrite) {
    const uint64_t buffer = chip.x[11], length = chip.x[12];
    if (!chip.scalar_memory.contains(buffer, length) || length > (64u << 20)) {
      fault(chip, d, fmt::format("write of {} bytes from {:#x} is outside SMEM", length, buffer));
    }
    publish_memory(chip, MemoryKind::kSmem, buffer, length, 1, 0, false);
    const size_t old_size = chip.console.size();
    chip.console.resize(old_size + length);
    chip.scalar_memory.read(buffer, std::span<uint8_t>(reinterpret_cast<uint8_t*>(chip.console.data() + old_size), length));
    chip.x[10] = length;
    chip.pc += 4;
    return StepResult::kRetired;
  }
  fault(chip, d, fmt::format("unsupported ecall a7={} (supported: 64 write, 93 exit)", call));
}

void Executor::execute_csr(ChipState& chip, const isa::DecodedInstruction& d) {
  uint64_t value = 0;
  switch (d.csr) {
    case isa::kCsrCycle: value = policy_ == nullptr ? chip.instret : chip.cycle; break;  // functional: 1 IPC
    case isa::kCsrInstret: value = chip.instret; break;
    case isa::kCsrMhartid: value = chip.chip_id; break;
    case isa::kCsrNchips: value = system_.chip_count(); break;
    default: fault(chip, d, fmt::format("unknown CSR {:#x}", d.csr));
  }
  const bool immediate = d.opcode == Opcode::kCsrrwi || d.opcode == Opcode::kCsrrsi || d.opcode == Opcode::kCsrrci;
  const bool is_write = d.opcode == Opcode::kCsrrw || d.opcode == Opcode::kCsrrwi ||
                        (immediate ? d.imm != 0 : d.rs1 != 0);
  if (is_write) fault(chip, d, fmt::format("CSR {:#x} is read-only", d.csr));
  if (d.rd != 0) chip.x[d.rd] = value;
}

StepResult Executor::execute_semaphore(ChipState& chip, const isa::DecodedInstruction& d) {
  EventBus& bus = system_.bus();
  uint32_t& sem = chip.semaphore[d.sem];
  switch (d.opcode) {
    case Opcode::kSemSignal:
      sem += static_cast<uint32_t>(d.imm);
      if (bus.semaphore.active()) {
        bus.semaphore.publish(SemaphoreEvent{chip.chip_id, chip.cycle, d.sem, SemaphoreOp::kSignal, d.imm, sem, chip.chip_id});
      }
      break;
    case Opcode::kSemSignalRemote: {
      const uint64_t target = chip.x[d.rs1];
      if (target >= system_.chip_count()) {
        fault(chip, d, fmt::format("sem.signal.remote to chip {} in a {}-chip system", target, system_.chip_count()));
      }
      ChipState& peer = system_.chip(static_cast<uint32_t>(target));
      uint32_t& peer_sem = peer.semaphore[d.sem];
      peer_sem += static_cast<uint32_t>(d.imm);
      if (peer.status == ChipStatus::kBlocked) peer.status = ChipStatus::kRunning;
      if (bus.semaphore.active()) {
        bus.semaphore.publish(SemaphoreEvent{peer.chip_id, chip.cycle, d.sem, SemaphoreOp::kSignal, d.imm, peer_sem, chip.chip_id});
      }
      break;
    }
    case Opcode::kSemWait:
      if (sem < static_cast<uint64_t>(d.imm)) {
        chip.status = ChipStatus::kBlocked;
        return StepResult::kBlocked;
      }
      sem -= static_cast<uint32_t>(d.imm);
      chip.status = ChipStatus::kRunning;
      if (bus.semaphore.active()) {
        bus.semaphore.publish(SemaphoreEvent{chip.chip_id, chip.cycle, d.sem, SemaphoreOp::kWaitEnd, d.imm, sem, chip.chip_id});
      }
      break;
    default:  // sem.read
      if (d.rd != 0) chip.x[d.rd] = chip.semaphore[d.sem];
      break;
  }
  return StepResult::kRetired;
}

void Executor::execute_dma(ChipState& chip, const isa::DecodedInstruction& d) {
  DmaRequest request;
  request.issuing_chip = chip.chip_id;
  request.semaphore = d.sem;
  request.pc = chip.pc;
  const uint64_t src = chip.x[d.rs1];
  const uint64_t dst = chip.x[d.rs2];
  if (d.opcode == Opcode::kDmaIssue) {
    request.rows = 1;
    request.row_bytes = chip.x[d.rs3];
  } else {
    if (d.rs3 == 31) fault(chip, d, "dma.issue2d needs rs3+1 for the strides; rs3 must not be x31");
    request.rows = chip.x[d.rs3] >> 32;
    request.row_bytes = chip.x[d.rs3] & 0xffffffffu;
    request.src_stride = chip.x[d.rs3 + 1u] >> 32;
    request.dst_stride = chip.x[d.rs3 + 1u] & 0xffffffffu;
  }
  if (request.row_bytes > (1ull << 32) || request.rows > (1ull << 20)) {
    fault(chip, d, fmt::format("DMA of {} rows x {} bytes is too large", request.rows, request.row_bytes));
  }
  request.bytes = request.rows * request.row_bytes;
  // The whole extent must be mapped; each row is then a plain contiguous copy.
  const uint64_t src_extent = request.rows == 0 ? 0 : (request.rows - 1) * request.src_stride + request.row_bytes;
  const uint64_t dst_extent = request.rows == 0 ? 0 : (request.rows - 1) * request.dst_stride + request.row_bytes;
  MemoryTarget from, to;
  try {
    from = system_.resolve_global(chip, src, src_extent, "DMA source");
    to = system_.resolve_global(chip, dst, dst_extent, "DMA destination");
  } catch (const Error& e) {
    fault(chip, d, e.what());
  }
  if (to.kind == MemoryKind::kSmem && system_.overlaps_text(to.offset, dst_extent)) {
    fault(chip, d, fmt::format("DMA destination {:#x} overlaps instruction memory", dst));
  }
  request.src_chip = from.chip->chip_id;
  request.src_memory = from.kind;
  request.src_address = src;
  request.dst_address = dst;
  request.src_offset = from.offset;
  request.dst_chip = to.chip->chip_id;
  request.dst_memory = to.kind;
  request.dst_offset = to.offset;
  dma_scratch_.resize(request.row_bytes);
  for (uint64_t row = 0; row < request.rows; ++row) {
    from.memory->read(from.offset + row * request.src_stride, dma_scratch_);
    to.memory->write(to.offset + row * request.dst_stride, dma_scratch_);
  }
  if (policy_ != nullptr) {
    policy_->dma_issued(chip, request);
  } else {
    signal_dma_completion(system_, request, chip.cycle);
    ChipState& dst_chip = system_.chip(request.dst_chip);
    if (dst_chip.status == ChipStatus::kBlocked) dst_chip.status = ChipStatus::kRunning;
  }
}

void Executor::publish_registers(const ChipState& chip, const isa::DecodedInstruction& d) const {
  const Channel<RegisterAccess>& channel = system_.bus().register_access;
  const RegisterUse& use = system_.register_use(&d);
  auto emit = [&](uint32_t mask, RegisterFile file, bool is_write) {
    for (; mask != 0; mask &= mask - 1) {
      channel.publish(RegisterAccess{chip.chip_id, chip.cycle, file, static_cast<uint8_t>(std::countr_zero(mask)),
                                     is_write, chip.pc});
    }
  };
  emit(use.x_reads, RegisterFile::kScalar, false);
  emit(use.v_reads, RegisterFile::kVector, false);
  emit(use.x_writes, RegisterFile::kScalar, true);
  emit(use.v_writes, RegisterFile::kVector, true);
}

}  // namespace snr::sim
