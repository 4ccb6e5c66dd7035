#include "compiler/runner.h"

#include <fmt/format.h>

#include <cstring>

#include "common/error.h"
#include "isa/address_map.h"
#include "sim/elf_loader.h"

namespace snr::compiler {
namespace {

void write_hbm(sim::ChipState& chip, uint64_t address, const std::vector<uint8_t>& bytes, const std::string& what) {
  const uint64_t offset = address - isa::kHbmBase;
  if (address < isa::kHbmBase || !chip.hbm.contains(offset, bytes.size())) {
    throw Error(fmt::format("HBM region {} of {} bytes at {:#x} does not fit chip {}'s HBM", what, bytes.size(),
                            address, chip.chip_id));
  }
  chip.hbm.write(offset, bytes);
}

}  // namespace

hw::HwConfig system_config(const ModelImage& image) {
  hw::HwConfig config = image.hw;
  config.set("chips", std::to_string(image.chips()));
  config.validate();
  return config;
}

void install(const ModelImage& image, sim::System& system) {
  if (system.chip_count() != image.chips()) {
    throw Error(fmt::format("the model was compiled for {} chips, the system has {}", image.chips(),
                            system.chip_count()));
  }
  const elf::Section* text0 = nullptr;
  for (const auto& s : image.programs.at(0).sections) {
    if (s.execute) text0 = &s;
  }
  for (uint32_t c = 1; c < image.chips(); ++c) {
    for (const auto& s : image.programs[c].sections) {
      if (s.execute && (text0 == nullptr || s.address != text0->address || s.data != text0->data)) {
        throw Error(fmt::format("chip {}'s program text differs from chip 0's; the simulator runs one text", c));
      }
    }
  }
  system.load(sim::program_from_elf(image.programs[0], image.name + " chip 0"));
  for (uint32_t c = 0; c < image.chips(); ++c) {
    sim::ChipState& chip = system.chip(c);
    // Per-chip .data (collective address tables) over chip 0's.
    for (const auto& s : image.programs[c].sections) {
      if (!s.execute && s.alloc && !s.data.empty()) chip.scalar_memory.write(s.address, s.data);
    }
    for (const GeneratedTensor& t : image.hbm[c].tensors) write_hbm(chip, t.address, t.materialize(image.seed), t.name);
    for (const ExplicitRegion& r : image.hbm[c].regions) write_hbm(chip, r.address, r.bytes, r.name);
  }
}

std::vector<float> read_hbm_f32(const sim::System& system, uint32_t chip, uint64_t address, uint64_t bytes) {
  std::vector<float> out(bytes / 4);
  const sim::ChipState& c = system.chip(chip);
  const uint64_t offset = address - isa::kHbmBase;
  if (!c.hbm.contains(offset, bytes)) throw Error(fmt::format("read of {} bytes at {:#x} is outside HBM", bytes, address));
  c.hbm.read(offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), bytes));
  return out;
}

}  // namespace snr::compiler
