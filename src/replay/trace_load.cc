#include "replay/trace_load.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "formats/snapshot/snapshot.h"
#include "isa/isa.h"
#include "sim/npu_math.h"

namespace snr::replay {
namespace {

namespace pb = snapshot::pb;

std::span<uint8_t> state_bytes(sim::ChipState& chip, pb::StateKind kind, uint32_t index, uint64_t& csr_value) {
  auto bytes_of = [](auto& container) {
    return std::span<uint8_t>(reinterpret_cast<uint8_t*>(container.data()), container.size() * sizeof(container[0]));
  };
  switch (kind) {
    case pb::STATE_X:
      if (index >= 32) break;
      return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&chip.x[index]), 8);
    case pb::STATE_V:
      if (index >= chip.v.size()) break;
      return bytes_of(chip.v[index].element);
    case pb::STATE_SEMAPHORE:
      if (index >= chip.semaphore.size()) break;
      return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&chip.semaphore[index]), 4);
    case pb::STATE_MXU_WEIGHTS:
      if (index >= chip.mxu.size()) break;
      return bytes_of(chip.mxu[index].weights_bf16);
    case pb::STATE_MXU_ACCUMULATOR:
      if (index >= chip.mxu.size()) break;
      return bytes_of(chip.mxu[index].accumulator);
    case pb::STATE_PC: return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&chip.pc), 8);
    case pb::STATE_CSR: return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&csr_value), 8);
    default:
      throw Error(fmt::format("chip {}: unknown state kind {}", chip.chip_id, static_cast<int>(kind)));
  }
  throw Error(fmt::format("chip {}: {} {} does not exist on the replay hardware", chip.chip_id,
                          pb::StateKind_Name(kind), index));
}

void install_state(sim::ChipState& chip, const SavedState& state) {
  uint64_t csr_value = 0;
  std::span<uint8_t> target = state_bytes(chip, state.kind, state.index, csr_value);
  if (target.size() != state.bytes.size()) {
    throw Error(fmt::format("chip {}: {} {} holds {} bytes, the recording has {}", chip.chip_id,
                            pb::StateKind_Name(state.kind), state.index, target.size(), state.bytes.size()));
  }
  std::memcpy(target.data(), state.bytes.data(), target.size());
  if (state.kind == pb::STATE_CSR && (state.index == isa::kCsrInstret || state.index == isa::kCsrCycle)) {
    chip.instret = csr_value;
  } else if (state.kind == pb::STATE_MXU_WEIGHTS) {
    sim::MatrixUnitState& unit = chip.mxu[state.index];
    for (size_t i = 0; i < unit.weights_bf16.size(); ++i) unit.weights_f32[i] = sim::f32_from_bf16(unit.weights_bf16[i]);
  }
}

// A memory's saved regions as its initializer: the replay reads them in
// place from the snapshot's buffers instead of copying hundreds of MB of
// weights into pages (PagedMemory materializes only what the window writes).
struct SavedRegionSource {
  struct Piece {
    uint64_t offset = 0;  // within the memory
    std::string_view bytes;
  };
  std::vector<Piece> pieces;  // sorted by offset, disjoint
  std::vector<std::shared_ptr<const void>> storage;

  void operator()(uint64_t offset, std::span<uint8_t> out) const {
    const uint64_t end = offset + out.size();
    auto it = std::upper_bound(pieces.begin(), pieces.end(), offset,
                               [](uint64_t at, const Piece& p) { return at < p.offset + p.bytes.size(); });
    for (; it != pieces.end() && it->offset < end; ++it) {
      const uint64_t begin = std::max(offset, it->offset), stop = std::min(end, it->offset + it->bytes.size());
      std::memcpy(out.data() + (begin - offset), it->bytes.data() + (begin - it->offset), stop - begin);
    }
  }
};

// A foreign process's window: exactly its pages mapped in a flat address
// space, the code and saved bytes at their own addresses (copied: a flat
// window's saved memory is what one program touched, not an accelerator's
// tiles).
LoadedReplay load_flat(const ReplayInput& input, const hw::HwConfig& config, sim::EventBus* bus) {
  std::vector<sim::CodeBytes> code;
  for (const auto& [address, bytes] : input.flat_code) code.push_back({address, bytes});
  LoadedReplay loaded;
  loaded.system = std::make_unique<sim::System>(config, bus);
  sim::System& system = *loaded.system;
  system.use_flat_address_space();
  system.load(sim::program_from_code_bytes(code, sim::kMaxFlatTextSpanBytes, "recorded code"));
  for (const ReplayChip& record : input.chips) {
    if (record.chip >= system.chip_count()) {
      throw Error(fmt::format("chip {} is outside the {}-chip replay system", record.chip, system.chip_count()));
    }
    sim::ChipState& chip = system.chip(record.chip);
    for (const SavedState& state : record.registers) install_state(chip, state);
    if (record.recorded && !record.pcs.empty()) chip.pc = record.pcs.front();
    uint64_t page_bytes = 0;
    for (const WrittenInterval& pages : record.pages) {
      page_bytes += pages.length;
      if (pages.length > snapshot::kMaxFlatPages * snapshot::kFlatPageBytes ||
          page_bytes > snapshot::kMaxFlatPages * snapshot::kFlatPageBytes) {
        throw Error(fmt::format("chip {}: its pages exceed the limit of {} pages", record.chip, snapshot::kMaxFlatPages));
      }
      chip.flat_memory->map(pages.address, pages.length);
    }
    for (const SavedMemory& region : record.memory) {
      const std::string_view bytes = region.bytes.view();
      if (!chip.flat_memory->contains(region.address, bytes.size())) {
        throw Error(fmt::format("saved region of chip {} ({} bytes at {:#x}) is not inside its recorded pages",
                                record.chip, bytes.size(), region.address));
      }
      chip.flat_memory->write(region.address,
                              std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    }
  }
  return loaded;
}

}  // namespace

LoadedReplay load_replay(const ReplayInput& input, const hw::HwConfig& config, sim::EventBus* bus) {
  if (input.isa_hash != isa::isa_table_hash()) {
    throw Error(fmt::format("the recording was made for ISA {:#018x}, this simulator implements {:#018x}",
                            input.isa_hash, isa::isa_table_hash()));
  }
  if (config.chip_count < input.chip_count) {
    throw Error(fmt::format("the recording has {} chips, the replay hardware {}", input.chip_count, config.chip_count));
  }
  if (input.flat_address_space) return load_flat(input, config, bus);
  std::map<uint64_t, uint32_t> words;
  for (const CodeRange& range : input.code) {
    for (size_t i = 0; i < range.words.size(); ++i) {
      auto [it, inserted] = words.emplace(range.address + 4 * i, range.words[i]);
      if (!inserted && it->second != range.words[i]) {
        throw Error(fmt::format("chips disagree on the instruction at {:#x} ({:#010x} vs {:#010x})", it->first,
                                it->second, range.words[i]));
      }
    }
  }
  if (words.empty()) throw Error("the recording holds no executed code");
  const uint64_t base = words.begin()->first;
  const uint64_t end = words.rbegin()->first + 4;
  std::vector<uint32_t> text((end - base) / 4, 0);
  for (const auto& [address, word] : words) text[(address - base) / 4] = word;

  LoadedReplay loaded;
  loaded.system = std::make_unique<sim::System>(config, bus);
  struct InstalledRegion {
    sim::MemoryTarget target;
    const SavedMemory* region;
  };
  std::vector<InstalledRegion> regions;  // every chip's, in file order
  loaded.system->load(sim::program_from_words(text, base, "recorded code"));
  for (const ReplayChip& record : input.chips) {
    if (record.chip >= loaded.system->chip_count()) {
      throw Error(fmt::format("chip {} is outside the {}-chip replay system", record.chip, loaded.system->chip_count()));
    }
    sim::ChipState& chip = loaded.system->chip(record.chip);
    for (const SavedState& state : record.registers) install_state(chip, state);
    if (record.recorded && !record.pcs.empty()) chip.pc = record.pcs.front();
    for (const SavedMemory& region : record.memory) {
      const std::string_view bytes = region.bytes.view();
      sim::MemoryTarget target = loaded.system->resolve_local(chip, region.address, bytes.size(),
                                                              fmt::format("saved region of chip {}", record.chip));
      regions.push_back({target, &region});
    }
  }
  // Shared bytes outlive the system (it holds their storage), so they are
  // read in place; owned ones, and every region of a memory whose regions
  // overlap (the later must win, as a write would) or that already has
  // pages, are copied in file order.
  std::map<sim::PagedMemory*, SavedRegionSource> sources;
  for (const InstalledRegion& r : regions) {
    if (r.region->bytes.storage() == nullptr) continue;
    SavedRegionSource& source = sources[r.target.memory];
    source.pieces.push_back({r.target.offset, r.region->bytes.view()});
    if (source.storage.empty() || source.storage.back() != r.region->bytes.storage()) {
      source.storage.push_back(r.region->bytes.storage());
    }
  }
  std::set<const sim::PagedMemory*> lazy;
  for (auto& [memory, source] : sources) {
    std::stable_sort(source.pieces.begin(), source.pieces.end(),
                     [](const SavedRegionSource::Piece& a, const SavedRegionSource::Piece& b) {
                       return a.offset < b.offset;
                     });
    bool disjoint = true;
    for (size_t i = 1; i < source.pieces.size(); ++i) {
      disjoint &= source.pieces[i - 1].offset + source.pieces[i - 1].bytes.size() <= source.pieces[i].offset;
    }
    if (disjoint && memory->materialized_page_count() == 0) {
      memory->set_initializer(std::move(source));
      lazy.insert(memory);
    }
  }
  for (const InstalledRegion& r : regions) {
    if (r.region->bytes.storage() != nullptr && lazy.count(r.target.memory)) continue;
    const std::string_view bytes = r.region->bytes.view();
    r.target.memory->write(r.target.offset,
                           std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  return loaded;
}

}  // namespace snr::replay
