#include "export/chakra/op_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "common/error.h"
#include "isa/isa.h"

namespace snr::exporter {
namespace {

constexpr uint64_t kMatrixOpsPerPush = 2ull * 8 * 128 * 128;
constexpr uint64_t kVectorLanes = 8ull * 128;
constexpr uint64_t kNoInstance = UINT64_MAX;

// What an instruction contributes, by mnemonic (looked up once per text).
struct InstructionClass {
  bool matrix_push = false;
  bool vector_arithmetic = false;
  bool semaphore_wait = false;
};

InstructionClass classify(std::string_view mnemonic) {
  InstructionClass c;
  const isa::InstructionRow* row = isa::find_row(mnemonic);
  if (row == nullptr) return c;
  c.matrix_push = row->latency == isa::LatencyClass::kMxuPush;
  c.vector_arithmetic = row->latency == isa::LatencyClass::kVectorAlu ||
                        row->latency == isa::LatencyClass::kVectorTranscendental;
  c.semaphore_wait = row->opcode == isa::Opcode::kSemWait;
  return c;
}

bool is_remote(const rundb::DmaRecord& d) { return d.src_chip != d.chip || d.dst_chip != d.chip; }

// Tries to read the instance's remote DMAs as this chip's part of a
// collective: one DMA per peer, one size, DMAs leaving this chip.
bool collective_candidate(OpInstance& op, const std::vector<rundb::DmaRecord>& dmas) {
  if (op.remote_dmas.empty()) return false;
  std::set<uint32_t> members{op.chip};
  const rundb::DmaRecord& first = dmas[op.remote_dmas.front()];
  bool same_source = true;
  for (size_t i : op.remote_dmas) {
    const rundb::DmaRecord& d = dmas[i];
    if (d.src_chip != op.chip || d.bytes != first.bytes) return false;
    if (!members.insert(d.dst_chip).second) return false;  // two DMAs to one peer
    same_source = same_source && d.src_address == first.src_address;
  }
  op.group.assign(members.begin(), members.end());
  op.chunk_bytes = first.bytes;
  const uint64_t n = op.group.size();
  if (same_source) {
    op.collective_type = CollectiveType::kAllGather;
    op.comm_bytes = op.chunk_bytes;  // ASTRA-sim: an all-gather's size is one member's input
  } else {
    op.collective_type = op.reduces_after_wait ? CollectiveType::kReduceScatter : CollectiveType::kAllToAll;
    op.comm_bytes = n * op.chunk_bytes;  // the whole input, of which each member gets 1/n
  }
  return true;
}

}  // namespace

std::string_view collective_type_name(CollectiveType type) {
  switch (type) {
    case CollectiveType::kAllGather: return "all_gather";
    case CollectiveType::kReduceScatter: return "reduce_scatter";
    case CollectiveType::kAllToAll: return "all_to_all";
  }
  return "?";
}

OpTimeline build_op_timeline(rundb::RunData data) {
  OpTimeline timeline;
  timeline.total_cycles = data.total_cycles;
  uint32_t chips = static_cast<uint32_t>(data.chips.size());
  for (const auto& i : data.instructions) chips = std::max(chips, i.chip + 1);
  timeline.chips.resize(chips);
  for (const auto& [key, value] : data.meta) {
    if (key == "clock_hz") timeline.clock_hz = std::stod(value);
  }
  if (timeline.clock_hz <= 0) throw Error("run data: meta.clock_hz is missing or not positive");

  // Instances by step: where each DMA's issuing instruction belongs.
  uint64_t max_step = 0;
  for (const auto& i : data.instructions) max_step = std::max(max_step, i.step);
  std::vector<uint64_t> instance_of_step(data.instructions.empty() ? 0 : max_step + 1, kNoInstance);
  std::vector<std::map<std::string, uint32_t, std::less<>>> occurrences(chips);

  std::string_view last_mnemonic;
  InstructionClass last_class;
  for (const auto& ins : data.instructions) {
    std::vector<OpInstance>& ops = timeline.chips[ins.chip];
    const std::string& name = data.op_names.at(ins.op);
    const bool continues = !ops.empty() && (name.empty() || ops.back().name == name);
    if (!continues) {
      OpInstance op;
      op.name = name.empty() ? std::string("(no symbol)") : name;
      op.chip = ins.chip;
      op.occurrence = occurrences[ins.chip][op.name]++;
      op.first_step = ins.step;
      op.begin_cycle = ops.empty() ? 0 : ops.back().end_cycle;
      ops.push_back(std::move(op));
    }
    OpInstance& op = ops.back();
    op.end_cycle = ins.issue_cycle;
    ++op.instructions;
    if (ins.mnemonic.data() != last_mnemonic.data() || ins.mnemonic.size() != last_mnemonic.size()) {
      last_mnemonic = ins.mnemonic;
      last_class = classify(ins.mnemonic);
    }
    if (last_class.matrix_push) op.matrix_ops += kMatrixOpsPerPush;
    if (last_class.vector_arithmetic) op.vector_ops += kVectorLanes;
    instance_of_step[ins.step] = (static_cast<uint64_t>(ins.chip) << 40) | (ops.size() - 1);
  }
  // The last instance of each chip runs to the end of the chip's window.
  for (const auto& chip : data.chips) {
    if (chip.chip < chips && !timeline.chips[chip.chip].empty()) {
      OpInstance& last = timeline.chips[chip.chip].back();
      last.end_cycle = std::max(last.end_cycle, chip.last_cycle);
    }
  }

  auto instance_at = [&](const rundb::DmaRecord& d) -> OpInstance& {
    const uint64_t where = d.issue_step < instance_of_step.size() ? instance_of_step[d.issue_step] : kNoInstance;
    if (where == kNoInstance || (where >> 40) != d.chip) {
      throw Error(fmt::format("run data: dma {} names issue step {}, which is no instruction of chip {}", d.dma_id,
                              d.issue_step, d.chip));
    }
    return timeline.chips[d.chip][where & ((1ull << 40) - 1)];
  };
  for (size_t i = 0; i < data.dmas.size(); ++i) {
    const rundb::DmaRecord& d = data.dmas[i];
    OpInstance& op = instance_at(d);
    if (d.src_space == "hbm" || d.dst_space == "hbm") {
      op.hbm_bytes += d.bytes;
      // DMAs come in issue order, so these are the ones before the first remote one.
      if (op.remote_dmas.empty()) op.before_comm_hbm_bytes += d.bytes;
    }
    if (is_remote(d)) {
      if (op.remote_dmas.empty()) op.comm_begin_cycle = d.issue_cycle;
      op.remote_dmas.push_back(i);
    }
  }
  timeline.dmas = std::move(data.dmas);

  // The communication window (first remote issue to the last WAIT) and
  // what follows it need the instructions again, now that the first remote
  // issue of each instance is known.
  for (const auto& ins : data.instructions) {
    const uint64_t where = instance_of_step[ins.step];
    OpInstance& op = timeline.chips[ins.chip][where & ((1ull << 40) - 1)];
    if (op.remote_dmas.empty() || ins.issue_cycle < op.comm_begin_cycle) continue;
    if (ins.mnemonic.data() != last_mnemonic.data() || ins.mnemonic.size() != last_mnemonic.size()) {
      last_mnemonic = ins.mnemonic;
      last_class = classify(ins.mnemonic);
    }
    if (last_class.semaphore_wait) {
      op.comm_end_cycle = ins.issue_cycle;
      op.reduces_after_wait = false;  // only arithmetic after the last WAIT counts
      op.after_wait_ops = 0;
    } else if (last_class.vector_arithmetic && op.comm_end_cycle != 0) {
      op.reduces_after_wait = true;
      op.after_wait_ops += kVectorLanes;
    }
  }
  for (auto& ops : timeline.chips) {
    for (auto& op : ops) {
      if (op.remote_dmas.empty()) continue;
      if (op.comm_end_cycle == 0) {
        // No WAIT: the transfers' end is the end of the communication.
        for (size_t i : op.remote_dmas) op.comm_end_cycle = std::max(op.comm_end_cycle, timeline.dmas[i].transfer_end_cycle);
      }
      op.comm_begin_cycle = std::clamp(op.comm_begin_cycle, op.begin_cycle, op.end_cycle);
      op.comm_end_cycle = std::clamp(op.comm_end_cycle, op.comm_begin_cycle, op.end_cycle);
      op.collective = collective_candidate(op, timeline.dmas);
    }
  }

  // A collective needs every member to agree on the group and the type.
  std::map<std::pair<std::string, uint32_t>, std::vector<OpInstance*>> by_key;
  for (auto& ops : timeline.chips) {
    for (auto& op : ops) {
      if (op.collective) by_key[{op.name, op.occurrence}].push_back(&op);
    }
  }
  std::vector<OpInstance*> disagreeing;
  for (auto& [key, members] : by_key) {
    for (OpInstance* op : members) {
      bool agreed = true;
      for (uint32_t member : op->group) {
        const auto it = std::find_if(members.begin(), members.end(), [&](const OpInstance* p) { return p->chip == member; });
        agreed = agreed && it != members.end() && (*it)->group == op->group &&
                 (*it)->collective_type == op->collective_type && (*it)->comm_bytes == op->comm_bytes;
      }
      if (!agreed) disagreeing.push_back(op);
    }
  }
  for (OpInstance* op : disagreeing) op->collective = false;
  return timeline;
}

}  // namespace snr::exporter
