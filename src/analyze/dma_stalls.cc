#include "analyze/dma_stalls.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "common/error.h"
#include "metrics/wait_stall.h"

namespace snr::analyze {

std::vector<DmaStall> dma_stalls(const RunIndex& index) {
  const auto& data = index.data();
  std::vector<DmaStall> out;
  out.reserve(data.dmas.size());
  // DMAs consumed by each WAIT (chip, step), to share its stall.
  std::map<std::pair<uint32_t, uint64_t>, std::vector<uint32_t>> by_wait;
  for (uint32_t k = 0; k < data.dmas.size(); ++k) {
    const rundb::DmaRecord& d = data.dmas[k];
    const uint32_t issue = index.instruction_of_step(d.issue_step);
    if (issue == RunIndex::kNone) {
      throw Error(fmt::format("DMA {}: its ISSUE step {} is not among the instructions", d.dma_id, d.issue_step));
    }
    DmaStall s;
    s.dma_id = d.dma_id;
    s.chip = d.chip;
    s.op = data.op_names.at(index.instruction(issue).op);
    s.link = d.link;
    s.src_space = d.src_space;
    s.dst_space = d.dst_space;
    s.bytes = d.bytes;
    s.issue_step = d.issue_step;
    s.issue_pc = d.pc;
    s.issue_cycle = d.issue_cycle;
    s.base_done_cycle = d.base_done_cycle;
    s.transfer_start_cycle = d.transfer_start_cycle;
    s.transfer_end_cycle = d.transfer_end_cycle;
    if (d.waited) {
      s.wait_step = d.wait_step;
      s.wait_start_cycle = d.wait_start_cycle;
      s.wait_end_cycle = d.wait_end_cycle;
      by_wait[{d.wait_chip, d.wait_step}].push_back(k);
    }
    out.push_back(std::move(s));
  }
  std::vector<metrics::WaitedDma> consumed;
  for (const auto& [wait, members] : by_wait) {
    consumed.clear();
    for (uint32_t k : members) {
      const rundb::DmaRecord& d = data.dmas[k];
      consumed.push_back({d.dma_id, d.base_done_cycle, d.transfer_end_cycle, d.wait_start_cycle, d.wait_end_cycle, 0, 0, 0});
    }
    metrics::split_wait_stall(consumed);
    for (size_t i = 0; i < members.size(); ++i) {
      DmaStall& s = out[members[i]];
      s.base_stall_cycles = consumed[i].base_stall_cycles;
      s.transfer_stall_cycles = consumed[i].transfer_stall_cycles;
      s.slack_cycles = consumed[i].slack_cycles;
    }
  }
  return out;
}

std::vector<StallGroup> group_stalls(const std::vector<DmaStall>& dmas,
                                     const std::function<std::string(const DmaStall&)>& key_of) {
  std::map<std::string, StallGroup> groups;
  for (const DmaStall& d : dmas) {
    const std::string key = key_of(d);
    if (key.empty()) continue;
    StallGroup& g = groups[key];
    g.key = key;
    ++g.dmas;
    g.bytes += d.bytes;
    g.base_stall_cycles += d.base_stall_cycles;
    g.transfer_stall_cycles += d.transfer_stall_cycles;
    g.slack_cycles += d.slack_cycles;
  }
  std::vector<StallGroup> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(), [](const StallGroup& a, const StallGroup& b) {
    return a.base_stall_cycles + a.transfer_stall_cycles > b.base_stall_cycles + b.transfer_stall_cycles;
  });
  return out;
}

}  // namespace snr::analyze
