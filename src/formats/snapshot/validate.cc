#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/error.h"
#include "formats/snapshot/snapshot.h"
#include "isa/address_map.h"
#include "isa/isa.h"

namespace snr::snapshot {
namespace {

// Natural size of one saved state value, 0 when the kind is unknown.
uint64_t state_value_bytes(pb::StateKind kind) {
  switch (kind) {
    case pb::STATE_X: case pb::STATE_PC: case pb::STATE_CSR: return 8;
    case pb::STATE_SEMAPHORE: return 4;
    case pb::STATE_V: return isa::kVectorRegisterBytes;
    case pb::STATE_MXU_WEIGHTS: return isa::kMxuWeightTileBytes;
    case pb::STATE_MXU_ACCUMULATOR: return isa::kVectorRegisterBytes;
    default: return 0;
  }
}

uint64_t state_index_limit(pb::StateKind kind) {
  switch (kind) {
    case pb::STATE_X: return 32;
    case pb::STATE_V: return isa::kVectorRegisterCount;
    case pb::STATE_SEMAPHORE: return isa::kSemaphoreCount;
    case pb::STATE_CSR: return 4096;
    case pb::STATE_PC: return 1;
    default: return 32;  // matrix units
  }
}

pb::MemorySpace space_of(uint64_t address) {
  switch (isa::memory_space_of(address)) {
    case isa::MemorySpace::kScalar: return pb::SPACE_SMEM;
    case isa::MemorySpace::kVmem: return pb::SPACE_VMEM;
    case isa::MemorySpace::kDebugWindow: return pb::SPACE_DEBUG;
    default: return pb::SPACE_HBM;
  }
}

void check_values(const google::protobuf::RepeatedPtrField<pb::RegisterValue>& values, const std::string& where,
                  std::vector<std::string>& problems) {
  for (int i = 0; i < values.size(); ++i) {
    const pb::RegisterValue& value = values[i];
    const uint64_t expected = state_value_bytes(value.kind());
    if (expected == 0) {
      problems.push_back(fmt::format("{} value {}: unknown state kind {}", where, i, static_cast<int>(value.kind())));
    } else if (value.value().size() != expected) {
      problems.push_back(fmt::format("{} value {} ({} {}): expected {} bytes, found {}", where, i,
                                     pb::StateKind_Name(value.kind()), value.index(), expected, value.value().size()));
    }
    if (value.index() >= state_index_limit(value.kind())) {
      problems.push_back(fmt::format("{} value {} ({}): index {} is out of range", where, i,
                                     pb::StateKind_Name(value.kind()), value.index()));
    }
  }
}

}  // namespace

void check_memory_region(const std::string& where, int index, pb::MemorySpace space, uint64_t address,
                         uint64_t size_bytes, std::vector<std::string>& problems) {
  if (size_bytes == 0) problems.push_back(fmt::format("{} memory region {}: empty", where, index));
  if (address + size_bytes < address) {
    problems.push_back(fmt::format("{} memory region {}: address {:#x} + {} wraps", where, index, address, size_bytes));
  } else if (space == pb::SPACE_FLAT) {
    if (address >= kFlatAddressLimit || size_bytes > kFlatAddressLimit - address) {
      problems.push_back(fmt::format("{} memory region {}: bad address: [{:#x}, {:#x}) reaches past the flat "
                                     "address limit {:#x}", where, index, address, address + size_bytes,
                                     kFlatAddressLimit));
    }
  } else if (space_of(address) != space) {
    problems.push_back(fmt::format("{} memory region {}: address {:#x} is in {}, but the region says {}", where, index,
                                   address, pb::MemorySpace_Name(space_of(address)), pb::MemorySpace_Name(space)));
  }
}

bool inside_pages(const pb::Chip& chip, uint64_t address, uint64_t size_bytes) {
  const auto& pages = chip.pages();
  // The last range starting at or before `address`, then forward through
  // ranges that continue it without a gap.
  auto it = std::upper_bound(pages.begin(), pages.end(), address,
                             [](uint64_t a, const pb::Interval& page) { return a < page.address(); });
  if (it == pages.begin()) return false;
  --it;
  uint64_t covered_end = it->address() + it->length();
  if (covered_end <= address) return false;
  const uint64_t end = address + size_bytes;
  for (++it; covered_end < end && it != pages.end() && it->address() == covered_end; ++it) {
    covered_end += it->length();
  }
  return covered_end >= end;
}

void check_region_address_space(const pb::Header& header, const pb::Chip& chip, const std::string& what,
                                pb::MemorySpace space, uint64_t address, uint64_t size_bytes,
                                std::vector<std::string>& problems) {
  if (header.address_space() != pb::ADDRESS_SPACE_FLAT) {
    if (space == pb::SPACE_FLAT) {
      problems.push_back(fmt::format("{}: SPACE_FLAT region at {:#x} in a snapshot with the NPU address space",
                                     what, address));
    }
    return;
  }
  if (space != pb::SPACE_FLAT) {
    problems.push_back(fmt::format("{}: a flat-address-space snapshot holds only SPACE_FLAT regions, found {} at "
                                   "{:#x}", what, pb::MemorySpace_Name(space), address));
  } else if (size_bytes != 0 && address + size_bytes > address && !inside_pages(chip, address, size_bytes)) {
    problems.push_back(fmt::format("{}: [{:#x}, {:#x}) is not inside the chip's pages", what, address,
                                   address + size_bytes));
  }
}

namespace {

// Pages of a flat snapshot's chip: page-aligned, non-empty, below the flat
// limit, sorted and disjoint, at most kMaxFlatPages in all.
void check_pages(const pb::Chip& chip, const std::string& where, std::vector<std::string>& problems) {
  if (static_cast<uint64_t>(chip.pages_size()) > kMaxFlatPages) {
    problems.push_back(fmt::format("{}: {} page ranges exceed the limit of {}", where, chip.pages_size(),
                                   kMaxFlatPages));
    return;
  }
  uint64_t previous_end = 0, total_pages = 0;
  for (int i = 0; i < chip.pages_size(); ++i) {
    const pb::Interval& range = chip.pages(i);
    const uint64_t begin = range.address(), length = range.length();
    if (length == 0 || begin % kFlatPageBytes != 0 || length % kFlatPageBytes != 0) {
      problems.push_back(fmt::format("{} page range {}: [{:#x}, +{:#x}) is empty or not whole {}-byte pages", where,
                                     i, begin, length, kFlatPageBytes));
      return;
    }
    if (begin >= kFlatAddressLimit || length > kFlatAddressLimit - begin) {
      problems.push_back(fmt::format("{} page range {}: bad address: [{:#x}, +{:#x}) reaches past the flat address "
                                     "limit {:#x}", where, i, begin, length, kFlatAddressLimit));
      return;
    }
    if (i > 0 && begin < previous_end) {
      problems.push_back(fmt::format("{} page range {}: overlapping pages: [{:#x}, {:#x}) starts before the end "
                                     "{:#x} of range {} (ranges must be sorted and disjoint)", where, i, begin,
                                     begin + length, previous_end, i - 1));
      return;
    }
    previous_end = begin + length;
    total_pages += length / kFlatPageBytes;
    if (total_pages > kMaxFlatPages) {
      problems.push_back(fmt::format("{}: the page ranges hold more than the limit of {} pages", where, kMaxFlatPages));
      return;
    }
  }
}

void check_syscalls(const pb::Header& header, const pb::Chip& chip, const std::vector<uint64_t>& pcs,
                    const std::string& where, std::vector<std::string>& problems) {
  if (static_cast<uint64_t>(chip.syscalls_size()) > kMaxSyscalls) {
    problems.push_back(fmt::format("{}: {} system calls exceed the limit of {}", where, chip.syscalls_size(),
                                   kMaxSyscalls));
    return;
  }
  for (int i = 0; i < chip.syscalls_size(); ++i) {
    const pb::Syscall& call = chip.syscalls(i);
    const std::string what = fmt::format("{} system call {}", where, i);
    if (call.instruction() >= chip.instruction_count()) {
      problems.push_back(fmt::format("{}: instruction {} is past the {} recorded instructions", what,
                                     call.instruction(), chip.instruction_count()));
    } else if (i > 0 && call.instruction() <= chip.syscalls(i - 1).instruction()) {
      problems.push_back(fmt::format("{}: instruction {} does not follow the previous call's {}", what,
                                     call.instruction(), chip.syscalls(i - 1).instruction()));
    } else if (call.instruction() < pcs.size()) {
      const uint64_t pc = pcs[call.instruction()];
      bool is_ecall = false;
      for (const pb::CodeRange& range : chip.code()) {
        if (pc >= range.address() && pc - range.address() <= range.data().size() &&
            range.data().size() - (pc - range.address()) >= 4 && (pc & 1) == 0) {
          is_ecall = range.data().compare(pc - range.address(), 4, std::string("\x73\0\0\0", 4)) == 0;
        }
      }
      if (!is_ecall) problems.push_back(fmt::format("{}: the instruction at pc {:#x} is not an ecall", what, pc));
    }
    if (static_cast<uint64_t>(call.args_size()) > kMaxSyscallArgs) {
      problems.push_back(fmt::format("{}: {} arguments, at most {}", what, call.args_size(), kMaxSyscallArgs));
    }
    for (int r = 0; r < call.written_size(); ++r) {
      const pb::MemoryRegion& region = call.written(r);
      check_memory_region(what, r, region.space(), region.address(), region.data().size(), problems);
      check_region_address_space(header, chip, fmt::format("{} written region {}", what, r), region.space(),
                                 region.address(), region.data().size(), problems);
    }
  }
}

}  // namespace

std::vector<std::string> validate_snapshot(const Snapshot& snapshot) {
  std::vector<std::string> problems;
  const pb::Header& header = snapshot.header;
  if (header.isa_hash() != isa::isa_table_hash()) {
    problems.push_back(fmt::format("header: ISA table hash: expected {:#018x} (this build), found {:#018x}",
                                   isa::isa_table_hash(), header.isa_hash()));
  }
  if (header.chip_count() == 0) problems.push_back("header: chip_count is 0");
  if (header.hw_config_yaml().empty()) problems.push_back("header: hardware config is empty");
  const bool flat = header.address_space() == pb::ADDRESS_SPACE_FLAT;
  if (!pb::AddressSpace_IsValid(header.address_space())) {
    problems.push_back(fmt::format("header: unknown address space {}", static_cast<int>(header.address_space())));
  }
  std::map<uint32_t, const pb::Chip*> chips;
  for (size_t i = 0; i < snapshot.chips.size(); ++i) {
    const pb::Chip& chip = snapshot.chips[i];
    if (chip.chip() >= header.chip_count()) {
      problems.push_back(fmt::format("chip record {}: chip {} is outside the {}-chip system", i, chip.chip(),
                                     header.chip_count()));
    }
    if (!chips.emplace(chip.chip(), &chip).second) {
      problems.push_back(fmt::format("chip record {}: chip {} appears twice", i, chip.chip()));
    }
  }
  for (uint32_t id : header.recorded_chips()) {
    auto it = chips.find(id);
    if (it == chips.end() || !it->second->recorded()) {
      problems.push_back(fmt::format("header: recorded chip {} has no recorded chip section", id));
    }
  }
  std::map<uint32_t, uint64_t> scheduled;
  try {
    for (const auto& [chip, length] : decode_schedule(header)) scheduled[chip] += length;
  } catch (const Error& e) {
    problems.push_back(fmt::format("header: {}", e.what()));
  }
  uint64_t total_instructions = 0;
  for (const auto& [id, chip] : chips) {
    const std::string where = fmt::format("chip {}", id);
    check_values(chip->registers(), where + " register", problems);
    if (flat) {
      check_pages(*chip, where, problems);
    } else if (chip->pages_size() != 0 || chip->syscalls_size() != 0) {
      problems.push_back(fmt::format("{}: pages and system calls belong to flat-address-space snapshots only, this "
                                     "one has the NPU address space", where));
    }
    for (int i = 0; i < chip->memory_size(); ++i) {
      const pb::MemoryRegion& region = chip->memory(i);
      check_memory_region(where, i, region.space(), region.address(), region.data().size(), problems);
      check_region_address_space(header, *chip, fmt::format("{} memory region {}", where, i), region.space(),
                                 region.address(), region.data().size(), problems);
    }
    total_instructions += chip->instruction_count();
    if (!chip->recorded()) {
      if (chip->syscalls_size() != 0) {
        problems.push_back(fmt::format("{}: not recorded but has {} system calls", where, chip->syscalls_size()));
      }
      if (chip->instruction_count() != 0) {
        problems.push_back(fmt::format("{}: not recorded but has {} instructions", where, chip->instruction_count()));
      }
      continue;
    }
    if (scheduled[id] != chip->instruction_count()) {
      problems.push_back(fmt::format("{}: schedule runs it {} instructions, the pc sequence has {}", where,
                                     scheduled[id], chip->instruction_count()));
    }
    std::vector<uint64_t> pcs;
    try {
      pcs = decode_pcs(*chip);
    } catch (const Error& e) {
      problems.push_back(e.what());
    }
    std::set<uint64_t> reported;
    for (size_t i = 0; i < pcs.size(); ++i) {
      const uint64_t pc = pcs[i];
      // A flat snapshot's program may use compressed (2-byte) instructions:
      // halfword alignment, and the length its first byte gives.
      const uint64_t align_mask = flat ? 1 : 3;
      bool covered = false;
      for (const pb::CodeRange& range : chip->code()) {
        // Offsets, not end addresses: nothing here may wrap.
        const uint64_t size = range.data().size();
        if (pc < range.address() || pc - range.address() > size || size - (pc - range.address()) < 2) continue;
        const uint64_t offset = pc - range.address();
        const uint64_t length = flat && (range.data()[offset] & 3) != 3 ? 2 : 4;
        covered |= size - offset >= length;
      }
      const bool misaligned = (pc & align_mask) != 0;
      if ((!covered || misaligned) && reported.insert(pc).second && reported.size() <= 5) {
        problems.push_back(fmt::format("{}: instruction {} at pc {:#x} is {}", where, i, pc,
                                       misaligned ? "misaligned" : "not in any saved code range"));
      }
    }
    if (flat) check_syscalls(header, *chip, pcs, where, problems);
    const pb::FinalState& final_state = chip->final_state();
    if (final_state.x_size() != 32) {
      problems.push_back(fmt::format("{} final state: expected 32 x registers, found {}", where, final_state.x_size()));
    }
    check_values(final_state.written_state(), where + " final written state", problems);
  }
  for (const auto& [id, count] : scheduled) {
    if (!chips.count(id)) problems.push_back(fmt::format("header: schedule names chip {} without a section", id));
  }
  if (header.stats().instructions() != total_instructions) {
    problems.push_back(fmt::format("header: statistics count {} instructions, the chips hold {}",
                                   header.stats().instructions(), total_instructions));
  }
  return problems;
}

}  // namespace snr::snapshot
