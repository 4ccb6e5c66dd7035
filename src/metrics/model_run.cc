#include "metrics/model_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "common/error.h"
#include "isa/address_map.h"
#include "sim/elf_loader.h"

namespace snr::metrics {
namespace {

void check_fits(const sim::ChipState& chip, uint64_t address, uint64_t size_bytes, const std::string& what) {
  if (address < isa::kHbmBase || !chip.hbm.contains(address - isa::kHbmBase, size_bytes)) {
    throw Error(fmt::format("HBM region {} of {} bytes at {:#x} does not fit chip {}'s HBM", what, size_bytes,
                            address, chip.chip_id));
  }
}

// A chip's initial HBM as PagedMemory's initializer: a model's weights are
// around a GiB, and a recorded window or a short run reads a fraction of
// them, so they are generated for each read instead of installed (a write
// materializes its page from here first). Tensors, then regions, in image
// order, as an eager install would write them, so overlapping contents
// resolve the same way.
class HbmSource {
 public:
  HbmSource(const compiler::ChipHbmImage& image, uint64_t seed) : tensors_(image.tensors), regions_(image.regions), seed_(seed) {
    for (uint32_t i = 0; i < tensors_.size(); ++i) {
      index_.push_back({tensors_[i].address, tensors_[i].address + tensors_[i].size_bytes(), i});
    }
    for (uint32_t i = 0; i < regions_.size(); ++i) {
      index_.push_back({regions_[i].address, regions_[i].address + regions_[i].bytes.size(), kRegionBit | i});
    }
    std::sort(index_.begin(), index_.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
    for (size_t i = 1; i < index_.size(); ++i) disjoint_ &= index_[i - 1].end <= index_[i].begin;
  }

  void operator()(uint64_t offset, std::span<uint8_t> out) const {
    const uint64_t begin = isa::kHbmBase + offset, end = begin + out.size();
    if (begin >= cached_begin_ && end <= cached_begin_ + cached_.size()) {
      std::memcpy(out.data(), cached_.data() + (begin - cached_begin_), out.size());
      return;
    }
    generate(begin, end, out);
    // A debugger saving a DMA's input reads the range right before the DMA
    // reads it again: keep the last range generated, if small.
    if (out.size() <= kCachedBytes) {
      cached_.assign(out.begin(), out.end());
      cached_begin_ = begin;
    }
  }

 private:
  static constexpr uint32_t kRegionBit = 1u << 31;
  static constexpr size_t kCachedBytes = size_t{1} << 20;
  struct Entry {
    uint64_t begin = 0, end = 0;
    uint32_t item = 0;  // tensor index, or kRegionBit | region index
  };

  void generate(uint64_t begin, uint64_t end, std::span<uint8_t> out) const {
    if (!disjoint_) {
      for (uint32_t i = 0; i < tensors_.size(); ++i) fill(i, begin, end, out);
      for (uint32_t i = 0; i < regions_.size(); ++i) fill(kRegionBit | i, begin, end, out);
      return;
    }
    // A read (a DMA row, a scalar load) touches one or two of hundreds of
    // tensors: find the first that ends after `begin`.
    auto it = std::upper_bound(index_.begin(), index_.end(), begin,
                               [](uint64_t at, const Entry& e) { return at < e.end; });
    for (; it != index_.end() && it->begin < end; ++it) fill(it->item, begin, end, out);
  }

  // Writes the part of item `item` inside [begin, end) into `out` (which starts at `begin`).
  void fill(uint32_t item, uint64_t begin, uint64_t end, std::span<uint8_t> out) const {
    const bool region = (item & kRegionBit) != 0;
    const uint64_t address = region ? regions_[item & ~kRegionBit].address : tensors_[item].address;
    const uint64_t size_bytes = region ? regions_[item & ~kRegionBit].bytes.size() : tensors_[item].size_bytes();
    const uint64_t from = std::max(address, begin), to = std::min(address + size_bytes, end);
    if (from >= to) return;
    const std::span<uint8_t> into = out.subspan(from - begin, to - from);
    if (region) {
      std::memcpy(into.data(), regions_[item & ~kRegionBit].bytes.data() + (from - address), into.size());
    } else {
      tensors_[item].materialize_range(seed_, from - address, into);
    }
  }

  std::vector<compiler::GeneratedTensor> tensors_;
  std::vector<compiler::ExplicitRegion> regions_;
  uint64_t seed_ = 0;
  std::vector<Entry> index_;
  bool disjoint_ = true;
  // The last range generated (its contents never change). One memory, one
  // thread: a System is simulated by one thread at a time.
  mutable uint64_t cached_begin_ = 0;
  mutable std::vector<uint8_t> cached_;
};

}  // namespace

hw::HwConfig system_config(const compiler::ModelImage& image) {
  hw::HwConfig config = image.hw;
  // The programs are one per chip: a `--set chips=N` for another count
  // cannot apply, and used to be replaced by the model's count unsaid.
  if (config.chip_count != image.chips()) {
    throw Error(fmt::format("the model was compiled for {} chips; chips = {} does not apply to it", image.chips(),
                            config.chip_count));
  }
  config.set("chips", std::to_string(image.chips()));
  config.validate();
  return config;
}

void install(const compiler::ModelImage& image, sim::System& system) {
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
    for (const compiler::GeneratedTensor& t : image.hbm[c].tensors) check_fits(chip, t.address, t.size_bytes(), t.name);
    for (const compiler::ExplicitRegion& r : image.hbm[c].regions) check_fits(chip, r.address, r.bytes.size(), r.name);
    chip.hbm.set_initializer(HbmSource(image.hbm[c], image.seed));
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

}  // namespace snr::metrics
