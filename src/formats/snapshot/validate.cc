#include <fmt/format.h>

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
  } else if (space_of(address) != space) {
    problems.push_back(fmt::format("{} memory region {}: address {:#x} is in {}, but the region says {}", where, index,
                                   address, pb::MemorySpace_Name(space_of(address)), pb::MemorySpace_Name(space)));
  }
}

std::vector<std::string> validate_snapshot(const Snapshot& snapshot) {
  std::vector<std::string> problems;
  const pb::Header& header = snapshot.header;
  if (header.isa_hash() != isa::isa_table_hash()) {
    problems.push_back(fmt::format("header: ISA table hash: expected {:#018x} (this build), found {:#018x}",
                                   isa::isa_table_hash(), header.isa_hash()));
  }
  if (header.chip_count() == 0) problems.push_back("header: chip_count is 0");
  if (header.hw_config_yaml().empty()) problems.push_back("header: hardware config is empty");
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
    for (int i = 0; i < chip->memory_size(); ++i) {
      const pb::MemoryRegion& region = chip->memory(i);
      check_memory_region(where, i, region.space(), region.address(), region.data().size(), problems);
    }
    total_instructions += chip->instruction_count();
    if (!chip->recorded()) {
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
      bool covered = false;
      for (const pb::CodeRange& range : chip->code()) {
        covered |= pc >= range.address() && pc + 4 <= range.address() + range.data().size();
      }
      if ((!covered || (pc & 3) != 0) && reported.insert(pc).second && reported.size() <= 5) {
        problems.push_back(fmt::format("{}: instruction {} at pc {:#x} is {}", where, i, pc,
                                       (pc & 3) != 0 ? "misaligned" : "not in any saved code range"));
      }
    }
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
