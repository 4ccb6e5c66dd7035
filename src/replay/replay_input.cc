#include "replay/replay_input.h"

#include <cstring>
#include <fmt/format.h>

#include "common/error.h"

namespace snr::replay {

namespace {

ReplayInput convert(const snapshot::Snapshot& snapshot, std::string identity,
                    const snapshot::SharedSnapshot* shared) {
  ReplayInput input;
  input.identity = std::move(identity);
  input.hw_config_yaml = snapshot.header.hw_config_yaml();
  input.chip_count = snapshot.header.chip_count();
  input.isa_hash = snapshot.header.isa_hash();
  input.flat_address_space = snapshot.header.address_space() == snapshot::pb::ADDRESS_SPACE_FLAT;
  for (const snapshot::pb::Chip& chip : snapshot.chips) {
    ReplayChip out;
    out.chip = chip.chip();
    out.recorded = chip.recorded();
    for (const auto& value : chip.registers()) out.registers.push_back({value.kind(), value.index(), value.value()});
    for (const auto& region : chip.memory()) out.memory.push_back({region.address(), region.data()});
    if (shared != nullptr) {
      const size_t section = input.chips.size();
      for (const snapshot::SharedRegion& region : shared->memory.at(section)) {
        out.memory.push_back({region.address, SharedBytes(shared->storage, region.data)});
      }
    }
    for (const auto& range : chip.code()) {
      if (input.flat_address_space) {
        input.flat_code.emplace_back(range.address(), range.data());
        continue;
      }
      if (range.data().size() % 4 != 0 || (range.address() & 3) != 0) {
        throw Error(fmt::format("chip {}: code range at {:#x} is not whole aligned words", chip.chip(), range.address()));
      }
      CodeRange code{range.address(), std::vector<uint32_t>(range.data().size() / 4)};
      std::memcpy(code.words.data(), range.data().data(), range.data().size());
      input.code.push_back(std::move(code));
    }
    for (const auto& symbol : chip.symbols()) input.ops.push_back({symbol.name(), symbol.address(), symbol.size_bytes()});
    if (chip.recorded()) {
      out.pcs = snapshot::decode_pcs(chip);
      const snapshot::pb::FinalState& final_state = chip.final_state();
      out.end.known = true;
      out.end.pc = final_state.pc();
      out.end.x.assign(final_state.x().begin(), final_state.x().end());
    }
    for (const auto& interval : chip.final_state().written_memory()) {
      out.end.written_memory.push_back({interval.address(), interval.length()});
    }
    out.end.written_memory_hash = chip.final_state().written_memory_hash();
    for (const auto& range : chip.pages()) out.pages.push_back({range.address(), range.length()});
    for (const auto& call : chip.syscalls()) {
      sim::RecordedSyscall& recorded = out.syscalls.emplace_back();
      recorded.instruction = call.instruction();
      recorded.number = call.number();
      recorded.args.assign(call.args().begin(), call.args().end());
      recorded.result = call.result();
      for (const auto& written : call.written()) recorded.written.emplace_back(written.address(), written.data());
    }
    input.chips.push_back(std::move(out));
  }
  return input;
}

}  // namespace

ReplayInput replay_input_from_snapshot(const snapshot::Snapshot& snapshot, std::string identity) {
  return convert(snapshot, std::move(identity), nullptr);
}

ReplayInput replay_input_from_snapshot(const snapshot::SharedSnapshot& snapshot, std::string identity) {
  return convert(snapshot.snapshot, std::move(identity), &snapshot);
}

}  // namespace snr::replay
