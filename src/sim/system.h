// A multi-chip NPU system: the hardware config and topology, one ChipState
// per chip, the loaded program with its predecoded text, and address
// resolution shared by the functional core, the DMA model and debuggers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/config.h"
#include "hw/topology.h"
#include "isa/isa.h"
#include "sim/chip.h"
#include "sim/events.h"
#include "sim/program.h"

namespace snr::sim {

// A resolved piece of one chip's memory.
struct MemoryTarget {
  ChipState* chip;
  MemoryKind kind;
  PagedMemory* memory;
  uint64_t offset;  // within `memory`
};

class System {
 public:
  System(hw::HwConfig config, EventBus* bus = nullptr);

  // Loads `program` into every chip: PT_LOAD segments into the scalar space,
  // pc = entry, sp = top of SMEM, gp/other registers zero. Predecodes the
  // executable segments once (they are read-only afterwards). With a flat
  // address space the segments go to their own addresses in each chip's
  // FlatMemory (pages mapped for them) and sp stays 0.
  void load(const ProgramImage& program);

  // Gives every chip a FlatMemory (sim/flat_memory.h) in place of the NPU's
  // map for scalar loads, stores and the text: for re-executing a foreign
  // RV64 process. Call before load().
  void use_flat_address_space();
  [[nodiscard]] bool flat_address_space() const { return flat_; }

  [[nodiscard]] const hw::HwConfig& config() const { return config_; }
  [[nodiscard]] const hw::Topology& topology() const { return topology_; }
  [[nodiscard]] uint32_t chip_count() const { return static_cast<uint32_t>(chips_.size()); }
  [[nodiscard]] ChipState& chip(uint32_t id) { return *chips_[id]; }
  [[nodiscard]] const ChipState& chip(uint32_t id) const { return *chips_[id]; }
  [[nodiscard]] EventBus& bus() { return *bus_; }

  // Predecoded instruction at `pc`, or nullptr when pc is outside the text
  // or misaligned. A flat address space predecodes every halfword, so a
  // foreign program's compressed (RVC) instructions are found too.
  [[nodiscard]] const isa::DecodedInstruction* fetch(uint64_t pc) const {
    const uint64_t index = (pc - text_base_) >> text_shift_;
    if (index >= text_.size() || (pc & text_align_mask_) != 0) [[unlikely]] return nullptr;
    return &text_[index];
  }
  // Register use of the instruction `d` returned by fetch().
  [[nodiscard]] const RegisterUse& register_use(const isa::DecodedInstruction* d) const {
    return register_use_[static_cast<size_t>(d - text_.data())];
  }
  [[nodiscard]] uint64_t text_base() const { return text_base_; }
  [[nodiscard]] uint64_t text_end() const { return text_base_ + (text_.size() << text_shift_); }
  [[nodiscard]] bool overlaps_text(uint64_t address, uint64_t length) const {
    return address < text_end() && address + length > text_base_;
  }

  // Resolves a local address of `chip`; throws snr::Error describing the
  // access (what, address, length, window bounds) when it does not fit.
  MemoryTarget resolve_local(ChipState& chip, uint64_t address, uint64_t length, std::string_view what);
  // Resolves a DMA global address issued by `issuer` (remote flag + chip id).
  MemoryTarget resolve_global(ChipState& issuer, uint64_t address, uint64_t length, std::string_view what);

 private:
  hw::HwConfig config_;
  hw::Topology topology_;
  std::unique_ptr<EventBus> own_bus_;
  EventBus* bus_;
  std::vector<std::unique_ptr<ChipState>> chips_;
  std::vector<isa::DecodedInstruction> text_;
  std::vector<RegisterUse> register_use_;
  uint64_t text_base_ = 0;
  uint32_t text_shift_ = 2;         // log2 of the bytes per text_ entry (1 when flat)
  uint64_t text_align_mask_ = 3;
  bool flat_ = false;
};

}  // namespace snr::sim
