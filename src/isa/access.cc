#include "isa/access.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::isa {
namespace {

class AccessBuilder {
 public:
  explicit AccessBuilder(Accesses& out) : out_(out) { out_.clear(); }

  void read(StateKind kind, unsigned index) { push(out_.reads_storage, out_.read_count, kind, index, false, 0); }
  void write(StateKind kind, unsigned index) { push(out_.writes_storage, out_.write_count, kind, index, false, 0); }
  void read_write(StateKind kind, unsigned index) {
    read(kind, index);
    write(kind, index);
  }
  void remote_semaphore_read_write(unsigned index, uint32_t chip) {
    push(out_.reads_storage, out_.read_count, StateKind::kSemaphore, index, true, chip);
    push(out_.writes_storage, out_.write_count, StateKind::kSemaphore, index, true, chip);
  }
  void read_x(unsigned index) {
    if (index != 0) read(StateKind::kX, index);
  }
  void write_x(unsigned index) {
    if (index != 0) write(StateKind::kX, index);
  }

  // A local (non-DMA) access: the address is used as-is.
  void local_region(bool is_write, uint64_t address, uint64_t row_bytes, uint64_t rows,
                    uint64_t stride) {
    MemoryRegion& m = next_region();
    m.is_write = is_write;
    m.address = address;
    m.local_address = address;
    m.space = memory_space_of(address);
    m.row_bytes = row_bytes;
    m.rows = rows;
    m.row_stride_bytes = rows > 1 ? stride : 0;
  }
  // A DMA side: the address is global.
  MemoryRegion& global_region(bool is_write, uint64_t address, uint64_t row_bytes, uint64_t rows,
                              uint64_t stride) {
    const GlobalAddress g = split_global_address(address);
    MemoryRegion& m = next_region();
    m.is_write = is_write;
    m.address = address;
    m.remote = g.remote;
    m.chip = g.chip;
    m.local_address = g.local_address;
    m.space = memory_space_of(g.local_address);
    m.row_bytes = row_bytes;
    m.rows = rows;
    m.row_stride_bytes = rows > 1 ? stride : 0;
    return m;
  }

 private:
  void push(std::array<StateRef, Accesses::kMaxState>& list, int& count, StateKind kind,
            unsigned index, bool remote, uint32_t chip) {
    if (count >= Accesses::kMaxState) throw Error("compute_accesses: state list overflow");
    list[static_cast<size_t>(count++)] =
        StateRef{kind, static_cast<uint16_t>(index), remote, chip};
  }
  MemoryRegion& next_region() {
    if (out_.memory_count >= Accesses::kMaxRegions) throw Error("compute_accesses: region list overflow");
    MemoryRegion& m = out_.memory_storage[static_cast<size_t>(out_.memory_count++)];
    m = MemoryRegion{};
    return m;
  }
  Accesses& out_;
};

void add_operand_registers(const DecodedInstruction& d, AccessBuilder& b) {
  for (OperandKind kind : d.row->operands) {
    switch (kind) {
      case OperandKind::kRd: b.write_x(d.rd); break;
      case OperandKind::kRs1: b.read_x(d.rs1); break;
      case OperandKind::kRs2: b.read_x(d.rs2); break;
      case OperandKind::kRs3: b.read_x(d.rs3); break;
      case OperandKind::kMemI:
      case OperandKind::kMemS: b.read_x(d.rs1); break;
      case OperandKind::kVd: b.write(StateKind::kV, d.vd); break;
      case OperandKind::kVs1: b.read(StateKind::kV, d.vs1); break;
      case OperandKind::kVs2: b.read(StateKind::kV, d.vs2); break;
      case OperandKind::kVs3: b.read(StateKind::kV, d.vs3); break;
      case OperandKind::kVsRd: b.read(StateKind::kV, d.vs1); break;
      default: break;  // immediates, CSR numbers, semaphore/MXU indices: handled by effect
    }
  }
}

void add_csr_access(const DecodedInstruction& d, AccessBuilder& b) {
  const bool immediate_form = d.opcode == Opcode::kCsrrwi || d.opcode == Opcode::kCsrrsi ||
                              d.opcode == Opcode::kCsrrci;
  const bool swap = d.opcode == Opcode::kCsrrw || d.opcode == Opcode::kCsrrwi;
  // Zicsr: csrrw/csrrwi with rd = x0 do not read the CSR; csrrs/c with a
  // zero source do not write it.
  const bool reads_csr = !swap || d.rd != 0;
  const bool source_is_zero = immediate_form ? d.imm == 0 : d.rs1 == 0;
  const bool writes_csr = swap || !source_is_zero;
  if (reads_csr) b.read(StateKind::kCsr, d.csr);
  if (writes_csr) b.write(StateKind::kCsr, d.csr);
}

void add_effect(const DecodedInstruction& d, XRegisterReader x, AccessBuilder& b) {
  switch (d.row->effect) {
    case Effect::kNone:
    case Effect::kBreak:
    case Effect::kFenceAll:
    case Effect::kFenceVector:
    case Effect::kFenceDmaOnly: break;
    case Effect::kLoad:
    case Effect::kStore: {
      const uint64_t address = x(d.rs1) + static_cast<uint64_t>(d.imm);
      b.local_region(d.row->effect == Effect::kStore, address, d.row->mem_bytes, 1, 0);
      break;
    }
    case Effect::kControl:
      b.read(StateKind::kPc, 0);
      b.write(StateKind::kPc, 0);
      break;
    case Effect::kPcRead: b.read(StateKind::kPc, 0); break;
    case Effect::kCsrAccess: add_csr_access(d, b); break;
    case Effect::kSystemCall: {
      constexpr unsigned kA0 = 10, kA1 = 11, kA2 = 12, kA7 = 17;
      b.read_x(kA7);
      const uint64_t call = x(kA7);
      if (call == kSyscallExit) {
        b.read_x(kA0);
      } else if (call == kSyscallWrite) {
        b.read_x(kA0);
        b.read_x(kA1);
        b.read_x(kA2);
        b.write_x(kA0);
        if (x(kA2) != 0) b.local_region(false, x(kA1), x(kA2), 1, 0);
      }
      break;
    }
    case Effect::kVecLoad:
    case Effect::kVecStore: {
      const uint64_t stride = x(d.rs2) == 0 ? kVectorRowBytes : x(d.rs2);
      b.local_region(d.row->effect == Effect::kVecStore, x(d.rs1), kVectorRowBytes, kSublanes, stride);
      break;
    }
    case Effect::kMxuLoadWeights: {
      const uint64_t stride = x(d.rs2) == 0 ? kMxuWeightRowBytes : x(d.rs2);
      b.local_region(false, x(d.rs1), kMxuWeightRowBytes, kMxuTileDim, stride);
      b.write(StateKind::kMxuWeights, d.mxu);
      break;
    }
    case Effect::kMxuPush:
      b.read(StateKind::kMxuWeights, d.mxu);
      b.read_write(StateKind::kMxuAccumulator, d.mxu);
      break;
    case Effect::kMxuPop: b.read_write(StateKind::kMxuAccumulator, d.mxu); break;
    case Effect::kDma1d:
    case Effect::kDma2d: {
      uint64_t rows = 1, row_bytes = x(d.rs3), src_stride = 0, dst_stride = 0;
      if (d.row->effect == Effect::kDma2d) {
        const uint64_t shape = x(d.rs3);
        const uint64_t strides = x(d.rs3 + 1u);
        b.read_x(d.rs3 + 1u);
        rows = shape >> 32;
        row_bytes = shape & 0xFFFF'FFFF;
        src_stride = strides >> 32;
        dst_stride = strides & 0xFFFF'FFFF;
      }
      if (rows != 0 && row_bytes != 0) {
        b.global_region(false, x(d.rs1), row_bytes, rows, src_stride);
        b.global_region(true, x(d.rs2), row_bytes, rows, dst_stride);
      }
      b.read_write(StateKind::kSemaphore, d.sem);
      const GlobalAddress dst = split_global_address(x(d.rs2));
      if (dst.remote) b.remote_semaphore_read_write(d.sem, dst.chip);
      break;
    }
    case Effect::kSemSignalLocal:
    case Effect::kSemWait:
    case Effect::kSemRead:
      if (d.row->effect == Effect::kSemRead) {
        b.read(StateKind::kSemaphore, d.sem);
      } else {
        b.read_write(StateKind::kSemaphore, d.sem);
      }
      break;
    case Effect::kSemSignalRemote:
      b.remote_semaphore_read_write(d.sem, static_cast<uint32_t>(x(d.rs1)));
      break;
  }
}

}  // namespace

void compute_accesses(const DecodedInstruction& inst, XRegisterReader x, Accesses& out) {
  AccessBuilder builder(out);
  if (!inst.valid()) return;
  add_operand_registers(inst, builder);
  add_effect(inst, x, builder);
}

std::string_view state_kind_name(StateKind kind) {
  switch (kind) {
    case StateKind::kX: return "x";
    case StateKind::kV: return "v";
    case StateKind::kCsr: return "csr";
    case StateKind::kSemaphore: return "sem";
    case StateKind::kMxuWeights: return "mxuw";
    case StateKind::kMxuAccumulator: return "mxuacc";
    case StateKind::kPc: return "pc";
  }
  return "?";
}

std::string format_accesses(const Accesses& a) {
  auto state = [](const StateRef& s) {
    if (s.kind == StateKind::kPc) return std::string("pc");
    if (s.kind == StateKind::kCsr) return fmt::format("csr{:#x}", s.index);
    std::string text = fmt::format("{}{}", state_kind_name(s.kind), s.index);
    if (s.remote) text += fmt::format("@chip{}", s.chip);
    return text;
  };
  std::string out = "reads";
  for (const auto& s : a.reads()) out += " " + state(s);
  out += " | writes";
  for (const auto& s : a.writes()) out += " " + state(s);
  for (const auto& m : a.memory()) {
    out += fmt::format(" | mem {} {}{} {:#x} {}", m.is_write ? "w" : "r", memory_space_name(m.space),
                       m.remote ? fmt::format("@chip{}", m.chip) : std::string(), m.local_address,
                       m.row_bytes);
    if (m.rows > 1) out += fmt::format("x{} stride {}", m.rows, m.row_stride_bytes);
  }
  return out;
}

}  // namespace snr::isa
