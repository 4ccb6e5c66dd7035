#include "compiler/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "common/error.h"
#include "isa/address_map.h"
#include "sim/elf_loader.h"

namespace snr::compiler {
namespace {

void check_fits(const sim::ChipState& chip, uint64_t address, uint64_t size_bytes, const std::string& what) {
  if (address < isa::kHbmBase || !chip.hbm.contains(address - isa::kHbmBase, size_bytes)) {
    throw Error(fmt::format("HBM region {} of {} bytes at {:#x} does not fit chip {}'s HBM", what, size_bytes,
                            address, chip.chip_id));
  }
}

// A chip's initial HBM, made page by page on first touch: a model's weights
// are around a GiB, and a recorded window or a short run reads a fraction of
// them. Tensors, then regions, in image order, as an eager install would
// write them, so overlapping contents resolve the same way.
struct HbmPageSource {
  std::vector<GeneratedTensor> tensors;
  std::vector<ExplicitRegion> regions;
  uint64_t seed = 0;

  void operator()(uint64_t page_offset, std::span<uint8_t> page) const {
    const uint64_t page_begin = isa::kHbmBase + page_offset, page_end = page_begin + page.size();
    // Calls fill(into, from_byte) for the part of [address, address + size) inside the page.
    auto overlap = [&](uint64_t address, uint64_t size_bytes, auto&& fill) {
      const uint64_t begin = std::max(address, page_begin), end = std::min(address + size_bytes, page_end);
      if (begin < end) fill(page.subspan(begin - page_begin, end - begin), begin - address);
    };
    for (const GeneratedTensor& t : tensors) {
      overlap(t.address, t.size_bytes(),
              [&](std::span<uint8_t> into, uint64_t from_byte) { t.materialize_range(seed, from_byte, into); });
    }
    for (const ExplicitRegion& r : regions) {
      overlap(r.address, r.bytes.size(), [&](std::span<uint8_t> into, uint64_t from_byte) {
        std::memcpy(into.data(), r.bytes.data() + from_byte, into.size());
      });
    }
  }
};

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
    for (const GeneratedTensor& t : image.hbm[c].tensors) check_fits(chip, t.address, t.size_bytes(), t.name);
    for (const ExplicitRegion& r : image.hbm[c].regions) check_fits(chip, r.address, r.bytes.size(), r.name);
    chip.hbm.set_initializer(HbmPageSource{image.hbm[c].tensors, image.hbm[c].regions, image.seed});
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
