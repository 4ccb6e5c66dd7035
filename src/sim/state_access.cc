#include "sim/state_access.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <set>

#include "common/error.h"
#include "sim/npu_math.h"

namespace snr::sim {
namespace {

template <typename Container>
std::span<uint8_t> bytes_of(Container& container) {
  return std::span<uint8_t>(reinterpret_cast<uint8_t*>(container.data()), container.size() * sizeof(container[0]));
}

template <typename T>
std::span<uint8_t> bytes_of_value(T& value) {
  return std::span<uint8_t>(reinterpret_cast<uint8_t*>(&value), sizeof(T));
}

bool is_counter_csr(uint32_t index) { return index == isa::kCsrInstret || index == isa::kCsrCycle; }

// The storage behind one state object; the only place that knows the
// layout. Writers go through write_state_bytes so the invariants hold.
std::span<uint8_t> storage_of(ChipState& chip, isa::StateKind kind, uint32_t index) {
  switch (kind) {
    case isa::StateKind::kX:
      if (index < chip.x.size()) return bytes_of_value(chip.x[index]);
      break;
    case isa::StateKind::kV:
      if (index < chip.v.size()) return bytes_of(chip.v[index].element);
      break;
    case isa::StateKind::kSemaphore:
      if (index < chip.semaphore.size()) return bytes_of_value(chip.semaphore[index]);
      break;
    case isa::StateKind::kMxuWeights:
      if (index < chip.mxu.size()) return bytes_of(chip.mxu[index].weights_bf16);
      break;
    case isa::StateKind::kMxuAccumulator:
      if (index < chip.mxu.size()) return bytes_of(chip.mxu[index].accumulator);
      break;
    case isa::StateKind::kPc: return bytes_of_value(chip.pc);
    case isa::StateKind::kCsr:
      if (is_counter_csr(index)) return bytes_of_value(chip.instret);
      throw Error(fmt::format("chip {}: CSR {:#x} belongs to the system, not to the chip's state", chip.chip_id, index));
  }
  // A recording made on hardware with more matrix units than the replay's
  // (--set mxu.count=N) lands here: name the count and the key.
  const bool mxu = kind == isa::StateKind::kMxuWeights || kind == isa::StateKind::kMxuAccumulator;
  const size_t count = mxu                                 ? chip.mxu.size()
                       : kind == isa::StateKind::kV        ? chip.v.size()
                       : kind == isa::StateKind::kSemaphore ? chip.semaphore.size()
                                                           : chip.x.size();
  throw Error(fmt::format("chip {}: {}{} does not exist on this hardware, which has {} ({}0 .. {}{}){}", chip.chip_id,
                          isa::state_kind_name(kind), index, count, isa::state_kind_name(kind),
                          isa::state_kind_name(kind), count == 0 ? 0 : count - 1,
                          mxu ? fmt::format("; the state holds matrix unit {}: give mxu.count {} or more", index,
                                            index + 1)
                              : ""));
}

// Regions of one paged memory read in place from their recording's buffers
// instead of being copied into pages (PagedMemory materializes only what
// execution writes).
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

std::span<const uint8_t> span_of(std::string_view bytes) {
  return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

void install_flat_memory(System& system, const std::vector<SavedRegion>& regions) {
  for (const SavedRegion& region : regions) {
    ChipState& chip = recorded_chip(system, region.chip);
    if (!chip.flat_memory->contains(region.address, region.bytes.size())) {
      throw Error(fmt::format("saved region of chip {} ({} bytes at {:#x}) is not inside its recorded pages",
                              region.chip, region.bytes.size(), region.address));
    }
    chip.flat_memory->write(region.address, span_of(region.bytes));
  }
}

}  // namespace

std::span<const uint8_t> state_bytes(const ChipState& chip, isa::StateKind kind, uint32_t index) {
  // storage_of only hands out the address; nothing is written through it here.
  return storage_of(const_cast<ChipState&>(chip), kind, index);
}

void install_state(ChipState& chip, isa::StateKind kind, uint32_t index, std::span<const uint8_t> bytes) {
  if (kind == isa::StateKind::kCsr && !is_counter_csr(index)) return;  // the system's, see the header
  const size_t size = storage_of(chip, kind, index).size();
  if (size != bytes.size()) {
    throw Error(fmt::format("chip {}: {}{} holds {} bytes, the recording has {}", chip.chip_id,
                            isa::state_kind_name(kind), index, size, bytes.size()));
  }
  write_state_bytes(chip, kind, index, 0, bytes);
}

bool write_state_bytes(ChipState& chip, isa::StateKind kind, uint32_t index, uint64_t offset_bytes,
                       std::span<const uint8_t> bytes) {
  if (kind == isa::StateKind::kX && index == 0) return offset_bytes + bytes.size() <= 8;
  std::span<uint8_t> target = storage_of(chip, kind, index);
  if (offset_bytes > target.size() || bytes.size() > target.size() - offset_bytes) return false;
  std::memcpy(target.data() + offset_bytes, bytes.data(), bytes.size());
  if (kind == isa::StateKind::kCsr) set_retired_instructions(chip, chip.instret);
  if (kind == isa::StateKind::kMxuWeights) refresh_weight_cache(chip.mxu[index]);
  return true;
}

void set_retired_instructions(ChipState& chip, uint64_t count) {
  chip.instret = count;
  chip.cycle = count;
}

void refresh_weight_cache(MatrixUnitState& unit) {
  for (size_t i = 0; i < unit.weights_bf16.size(); ++i) unit.weights_f32[i] = f32_from_bf16(unit.weights_bf16[i]);
}

ChipState& recorded_chip(System& system, uint32_t chip_id) {
  if (chip_id >= system.chip_count()) {
    throw Error(fmt::format("chip {} is outside the {}-chip system", chip_id, system.chip_count()));
  }
  return system.chip(chip_id);
}

ProgramImage program_from_recorded_code(const std::vector<CodeBytes>& ranges, bool flat_address_space,
                                        std::string name) {
  return program_from_code_bytes(ranges, kMaxFlatTextSpanBytes, std::move(name), flat_address_space ? 2 : 4);
}

void map_recorded_pages(ChipState& chip, uint64_t address, uint64_t length, uint64_t max_mapped_bytes) {
  if (!chip.flat_memory) throw Error(fmt::format("chip {}: recorded pages need a flat address space", chip.chip_id));
  const uint64_t mapped_bytes = chip.flat_memory->page_count() * FlatMemory::kPageBytes;
  if (length > max_mapped_bytes || mapped_bytes > max_mapped_bytes - length) {
    throw Error(fmt::format("chip {}: its pages exceed the limit of {} pages", chip.chip_id,
                            max_mapped_bytes / FlatMemory::kPageBytes));
  }
  chip.flat_memory->map(address, length);
}

void install_memory(System& system, const std::vector<SavedRegion>& regions) {
  if (system.flat_address_space()) return install_flat_memory(system, regions);
  std::vector<MemoryTarget> targets;
  targets.reserve(regions.size());
  for (const SavedRegion& region : regions) {
    targets.push_back(system.resolve_local(recorded_chip(system, region.chip), region.address, region.bytes.size(),
                                           fmt::format("saved region of chip {}", region.chip)));
  }
  // Shared bytes outlive the system (it holds their storage), so they are
  // read in place; owned ones, and every region of a memory whose regions
  // overlap (the later must win, as a write would) or that already has
  // pages, are copied in order.
  std::map<PagedMemory*, SavedRegionSource> sources;
  for (size_t i = 0; i < regions.size(); ++i) {
    if (regions[i].storage == nullptr) continue;
    SavedRegionSource& source = sources[targets[i].memory];
    source.pieces.push_back({targets[i].offset, regions[i].bytes});
    if (source.storage.empty() || source.storage.back() != regions[i].storage) {
      source.storage.push_back(regions[i].storage);
    }
  }
  std::set<const PagedMemory*> lazy;
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
  for (size_t i = 0; i < regions.size(); ++i) {
    if (regions[i].storage != nullptr && lazy.count(targets[i].memory)) continue;
    targets[i].memory->write(targets[i].offset, span_of(regions[i].bytes));
  }
}

std::string read_memory(System& system, ChipState& chip, uint64_t address, uint64_t length, std::string_view what) {
  std::string bytes(length, '\0');
  const std::span<uint8_t> out(reinterpret_cast<uint8_t*>(bytes.data()), bytes.size());
  if (system.flat_address_space()) {
    if (!chip.flat_memory->contains(address, length)) {
      throw Error(fmt::format("chip {}: {} [{:#x}, +{}) is outside the recorded pages", chip.chip_id, what, address,
                              length));
    }
    chip.flat_memory->read(address, out);
  } else {
    MemoryTarget target = system.resolve_local(chip, address, length, what);
    target.memory->read(target.offset, out);
  }
  return bytes;
}

}  // namespace snr::sim
