#include "replay/trace_load.h"

#include <fmt/format.h>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "formats/snapshot/snapshot.h"
#include "isa/isa.h"
#include "sim/state_access.h"

namespace snr::replay {
namespace {

// The recorded code as byte ranges: the flat window's as it was read, the
// NPU's words laid out little-endian (`storage` keeps them).
std::vector<sim::CodeBytes> recorded_code(const ReplayInput& input, std::vector<std::string>& storage) {
  std::vector<sim::CodeBytes> code;
  if (input.flat_address_space) {
    for (const auto& [address, bytes] : input.flat_code) code.push_back({address, bytes});
    return code;
  }
  storage.reserve(input.code.size());
  for (const CodeRange& range : input.code) {
    std::string& bytes = storage.emplace_back();
    for (uint32_t word : range.words) {
      for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>(word >> (8 * i)));
    }
    code.push_back({range.address, bytes});
  }
  return code;
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
  LoadedReplay loaded;
  loaded.system = std::make_unique<sim::System>(config, bus);
  sim::System& system = *loaded.system;
  if (input.flat_address_space) system.use_flat_address_space();
  std::vector<std::string> code_storage;
  system.load(sim::program_from_recorded_code(recorded_code(input, code_storage), input.flat_address_space,
                                              "recorded code"));
  // A flat window's saved memory is what one program touched and is copied;
  // an accelerator's (hundreds of MB of weights) is read in place from the
  // recording's buffers where it can be.
  std::vector<sim::SavedRegion> regions;
  for (const ReplayChip& record : input.chips) {
    sim::ChipState& chip = sim::recorded_chip(system, record.chip);
    for (const SavedState& state : record.registers) {
      sim::install_state(chip, snapshot::to_isa_state_kind(state.kind), state.index,
                         std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(state.bytes.data()),
                                                  state.bytes.size()));
    }
    if (record.recorded && !record.pcs.empty()) chip.pc = record.pcs.front();
    for (const WrittenInterval& pages : record.pages) {
      sim::map_recorded_pages(chip, pages.address, pages.length, snapshot::kMaxFlatPages * snapshot::kFlatPageBytes);
    }
    for (const SavedMemory& region : record.memory) {
      regions.push_back({record.chip, region.address, region.bytes.view(), region.bytes.storage()});
    }
  }
  sim::install_memory(system, regions);
  return loaded;
}

}  // namespace snr::replay
