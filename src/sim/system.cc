#include "sim/system.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/error.h"
#include "isa/access.h"
#include "isa/address_map.h"
#include "isa/compressed.h"

namespace snr::sim {

ProgramImage program_from_words(const std::vector<uint32_t>& words, uint64_t text_address, std::string name) {
  ProgramImage image;
  image.name = std::move(name);
  image.entry = text_address;
  ProgramSegment text;
  text.address = text_address;
  text.executable = true;
  for (uint32_t word : words) {
    for (int i = 0; i < 4; ++i) text.bytes.push_back(static_cast<uint8_t>(word >> (8 * i)));
  }
  text.memory_bytes = text.bytes.size();
  image.segments.push_back(std::move(text));
  return image;
}

ProgramImage program_from_code_bytes(const std::vector<CodeBytes>& ranges, uint64_t max_span_bytes, std::string name,
                                     uint64_t instruction_align_bytes) {
  const uint64_t misaligned = instruction_align_bytes - 1;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const CodeBytes& range : ranges) {
    const uint64_t size = range.bytes.size();
    if ((range.address & misaligned) != 0 || (size & misaligned) != 0 || size == 0 ||
        range.address + size < range.address) {
      throw Error(fmt::format("{}: code range at {:#x} of {} bytes is not whole aligned {}-byte instructions", name,
                              range.address, size, instruction_align_bytes));
    }
    lo = std::min(lo, range.address);
    hi = std::max(hi, range.address + size);
  }
  if (lo == UINT64_MAX) throw Error(fmt::format("{}: no executed code", name));
  // One dense predecoded text: code spread wider than this is refused, not allocated.
  if (hi - lo > max_span_bytes) {
    throw Error(fmt::format("{}: the executed code spans [{:#x}, {:#x}), more than the {} MiB the simulator's text "
                            "holds", name, lo, hi, max_span_bytes >> 20));
  }
  ProgramSegment text;
  text.address = lo;
  text.executable = true;
  text.bytes.assign(hi - lo, 0);
  text.memory_bytes = hi - lo;
  std::vector<bool> known(hi - lo, false);
  for (const CodeBytes& range : ranges) {
    for (size_t i = 0; i < range.bytes.size(); ++i) {
      const uint64_t at = range.address - lo + i;
      const auto byte = static_cast<uint8_t>(range.bytes[i]);
      if (known[at] && text.bytes[at] != byte) {
        throw Error(fmt::format("{}: chips disagree on the code byte at {:#x} ({:#04x} vs {:#04x}); the simulator "
                                "runs one text for all chips", name, lo + at, text.bytes[at], byte));
      }
      text.bytes[at] = byte;
      known[at] = true;
    }
  }
  ProgramImage image;
  image.name = std::move(name);
  image.entry = lo;
  image.segments.push_back(std::move(text));
  return image;
}

System::System(hw::HwConfig config, EventBus* bus) : config_(std::move(config)), topology_(config_) {
  config_.validate();
  if (isa::kVmemBase + config_.vmem_bytes() > isa::kVmemWindowLimit) {
    throw Error(fmt::format("VMEM of {} does not fit the VMEM window", format_bytes(Bytes{config_.vmem_bytes()})));
  }
  if (bus == nullptr) {
    own_bus_ = std::make_unique<EventBus>();
    bus = own_bus_.get();
  }
  bus_ = bus;
  for (uint32_t id = 0; id < config_.chip_count; ++id) chips_.push_back(std::make_unique<ChipState>(id, config_));
}

void System::use_flat_address_space() {
  flat_ = true;
  text_shift_ = 1;
  text_align_mask_ = 1;
  for (auto& chip : chips_) chip->flat_memory = std::make_unique<FlatMemory>();
}

void System::load(const ProgramImage& program) {
  uint64_t text_lo = UINT64_MAX, text_hi = 0;
  for (const ProgramSegment& seg : program.segments) {
    if (flat_) {
      if (seg.memory_bytes < seg.bytes.size() || seg.address + seg.memory_bytes < seg.address) {
        throw Error(fmt::format("{}: segment at {:#x} of {} bytes wraps the address space", program.name,
                                seg.address, seg.memory_bytes));
      }
    } else if (seg.memory_bytes < seg.bytes.size() || seg.address > config_.smem_bytes.count ||
               seg.memory_bytes > config_.smem_bytes.count - seg.address) {
      throw Error(fmt::format("{}: segment at {:#x} of {} bytes does not fit the scalar space [0, {:#x})",
                              program.name, seg.address, seg.memory_bytes, config_.smem_bytes.count));
    }
    if (seg.executable) {
      text_lo = std::min(text_lo, seg.address);
      text_hi = std::max(text_hi, seg.address + seg.memory_bytes);
    }
  }
  if (text_lo == UINT64_MAX) throw Error(fmt::format("{}: no executable segment", program.name));
  if (program.entry < text_lo || program.entry >= text_hi || (program.entry & text_align_mask_) != 0) {
    throw Error(fmt::format("{}: entry point {:#x} is not in the text [{:#x}, {:#x})", program.name,
                            program.entry, text_lo, text_hi));
  }
  text_lo &= ~text_align_mask_;
  text_hi = (text_hi + text_align_mask_) & ~text_align_mask_;
  for (auto& chip : chips_) {
    for (const ProgramSegment& seg : program.segments) {
      if (flat_) {
        chip->flat_memory->map(seg.address, seg.memory_bytes);
        chip->flat_memory->write(seg.address, seg.bytes);
      } else {
        chip->scalar_memory.write(seg.address, seg.bytes);
      }
    }
    chip->pc = program.entry;
    chip->x.fill(0);
    if (!flat_) chip->x[2] = config_.smem_bytes.count & ~uint64_t{15};  // sp at the top of SMEM
    chip->status = ChipStatus::kRunning;
  }
  text_base_ = text_lo;
  text_.assign((text_hi - text_lo) >> text_shift_, isa::DecodedInstruction{});
  const ChipState& first = *chips_.front();
  register_use_.assign(text_.size(), RegisterUse{});
  const std::array<uint64_t, 32> zero_registers{};
  isa::Accesses accesses;
  for (size_t i = 0; i < text_.size(); ++i) {
    const uint64_t address = text_lo + (uint64_t{i} << text_shift_);
    if (!flat_) {
      text_[i] = isa::decode(first.scalar_memory.load<uint32_t>(address));
    } else {
      // Every halfword: a 32-bit instruction, or a compressed one expanded
      // through the table (the upper half is not read past the text).
      uint32_t word = first.flat_memory->load<uint16_t>(address);
      if (isa::instruction_bytes(word) == 4 && address + 4 <= text_hi) {
        word |= uint32_t{first.flat_memory->load<uint16_t>(address + 2)} << 16;
      }
      text_[i] = isa::decode_with_compressed(word);
    }
    isa::compute_accesses(text_[i], std::span<const uint64_t, 32>(zero_registers), accesses);
    RegisterUse& use = register_use_[i];
    for (const isa::StateRef& ref : accesses.reads()) {
      if (ref.kind == isa::StateKind::kX) use.x_reads |= 1u << ref.index;
      if (ref.kind == isa::StateKind::kV) use.v_reads |= 1u << ref.index;
    }
    for (const isa::StateRef& ref : accesses.writes()) {
      if (ref.kind == isa::StateKind::kX) use.x_writes |= 1u << ref.index;
      if (ref.kind == isa::StateKind::kV) use.v_writes |= 1u << ref.index;
    }
  }
}

MemoryTarget System::resolve_local(ChipState& chip, uint64_t address, uint64_t length, std::string_view what) {
  switch (isa::memory_space_of(address)) {
    case isa::MemorySpace::kScalar:
      if (chip.scalar_memory.contains(address, length)) {
        return {&chip, MemoryKind::kSmem, &chip.scalar_memory, address};
      }
      break;
    case isa::MemorySpace::kVmem:
      if (chip.vmem.contains(address - isa::kVmemBase, length)) {
        return {&chip, MemoryKind::kVmem, &chip.vmem, address - isa::kVmemBase};
      }
      break;
    case isa::MemorySpace::kHbm:
      if (chip.hbm.contains(address - isa::kHbmBase, length)) {
        return {&chip, MemoryKind::kHbm, &chip.hbm, address - isa::kHbmBase};
      }
      break;
    case isa::MemorySpace::kDebugWindow:
    case isa::MemorySpace::kUnmapped:
      break;
  }
  throw Error(fmt::format("{} of {} bytes at {:#x} on chip {} is outside mapped memory (SMEM [0, {:#x}), "
                          "VMEM [{:#x}, {:#x}), HBM [{:#x}, {:#x}))",
                          what, length, address, chip.chip_id, config_.smem_bytes.count, isa::kVmemBase,
                          isa::kVmemBase + config_.vmem_bytes(), isa::kHbmBase,
                          isa::kHbmBase + config_.hbm_bytes.count));
}

MemoryTarget System::resolve_global(ChipState& issuer, uint64_t address, uint64_t length, std::string_view what) {
  const isa::GlobalAddress global = isa::split_global_address(address);
  if (!global.remote) return resolve_local(issuer, global.local_address, length, what);
  if (global.chip >= chips_.size()) {
    throw Error(fmt::format("{} at global address {:#x} names chip {}, but the system has {} chips", what,
                            address, global.chip, chips_.size()));
  }
  return resolve_local(*chips_[global.chip], global.local_address, length, what);
}

}  // namespace snr::sim
