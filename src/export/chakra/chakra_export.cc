#include "export/chakra/chakra_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "common/output.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/rank_files.h"

namespace snr::exporter {
namespace {

namespace pb = ChakraProtoMsg;

void set_int64(pb::Node& node, const std::string& name, int64_t value) {
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}

void set_string(pb::GlobalMetadata& metadata, const std::string& name, const std::string& value) {
  auto* a = metadata.add_attr();
  a->set_name(name);
  a->set_string_val(value);
}

pb::CollectiveCommType chakra_type(CollectiveType type) {
  switch (type) {
    case CollectiveType::kAllGather: return pb::ALL_GATHER;
    case CollectiveType::kReduceScatter: return pb::REDUCE_SCATTER;
    case CollectiveType::kAllToAll: return pb::ALL_TO_ALL;
  }
  return pb::ALL_GATHER;
}

// Chakra durations are whole microseconds. Each node gets the difference
// of its rounded end and start on the chip's timeline, so rounding errors
// do not accumulate: any run of consecutive nodes lasts the measured time
// to within half a microsecond.
class Clock {
 public:
  explicit Clock(double clock_hz) : ns_per_cycle_(1e9 / clock_hz) {}
  [[nodiscard]] uint64_t ns(uint64_t cycle) const {
    return static_cast<uint64_t>(std::llround(static_cast<double>(cycle) * ns_per_cycle_));
  }
  [[nodiscard]] uint64_t micros(uint64_t begin_cycle, uint64_t end_cycle) const {
    return rounded_us(end_cycle) - rounded_us(begin_cycle);
  }

 private:
  [[nodiscard]] uint64_t rounded_us(uint64_t cycle) const { return (ns(cycle) + 500) / 1000; }
  double ns_per_cycle_;
};

// Builds one rank's node list in program order, chaining data_deps.
class RankBuilder {
 public:
  RankBuilder(std::vector<pb::Node>& nodes, const Clock& clock) : nodes_(nodes), clock_(clock) {}

  pb::Node& add(const std::string& name, pb::NodeType type, uint64_t begin_cycle, uint64_t end_cycle) {
    pb::Node& node = nodes_.emplace_back();
    node.set_id(nodes_.size() - 1);
    node.set_name(name);
    node.set_type(type);
    if (nodes_.size() > 1) node.add_data_deps(nodes_.size() - 2);
    node.set_start_time_micros((clock_.ns(begin_cycle) + 500) / 1000);
    node.set_duration_micros(clock_.micros(begin_cycle, end_cycle));
    set_int64(node, "npu_begin_cycle", static_cast<int64_t>(begin_cycle));
    set_int64(node, "npu_cycles", static_cast<int64_t>(end_cycle - begin_cycle));
    set_int64(node, "npu_duration_ns", static_cast<int64_t>(clock_.ns(end_cycle) - clock_.ns(begin_cycle)));
    return node;
  }

  void compute(const std::string& name, uint64_t begin_cycle, uint64_t end_cycle, uint64_t ops, uint64_t bytes) {
    pb::Node& node = add(name, pb::COMP_NODE, begin_cycle, end_cycle);
    chakra::set_is_cpu_op(node, false);
    chakra::set_num_ops(node, static_cast<int64_t>(ops));
    chakra::set_tensor_size(node, bytes);
  }

 private:
  std::vector<pb::Node>& nodes_;
  const Clock& clock_;
};

// A point-to-point node placed on another chip's rank before one of its
// instances (the passive side of a remote DMA).
struct Passive {
  size_t before_instance = 0;
  bool send = false;
  uint32_t peer = 0;
  uint64_t bytes = 0;
  int32_t tag = 0;
  uint64_t cycle = 0;
  std::string name;
};

size_t instance_at_cycle(const std::vector<OpInstance>& ops, uint64_t cycle) {
  const auto it = std::lower_bound(ops.begin(), ops.end(), cycle,
                                   [](const OpInstance& op, uint64_t c) { return op.end_cycle < c; });
  return it == ops.end() ? ops.size() - 1 : static_cast<size_t>(it - ops.begin());
}

}  // namespace

ChakraTrace build_chakra_trace(const OpTimeline& timeline,
                               const std::vector<std::pair<std::string, std::string>>& provenance) {
  ChakraTrace trace;
  trace.metadata.set_version("0.0.4");
  for (const auto& [key, value] : provenance) set_string(trace.metadata, key, value);
  const Clock clock(timeline.clock_hz);
  const auto chips = static_cast<uint32_t>(timeline.chips.size());

  // Passive sides of point-to-point DMAs, per chip.
  std::vector<std::vector<Passive>> passive(chips);
  for (const auto& ops : timeline.chips) {
    for (const auto& op : ops) {
      if (op.collective) continue;
      for (size_t i : op.remote_dmas) {
        const rundb::DmaRecord& d = timeline.dmas[i];
        const bool put = d.src_chip == d.chip;  // this chip pushes data out
        const uint32_t other = put ? d.dst_chip : d.src_chip;
        if (other >= chips || timeline.chips[other].empty()) continue;
        const uint64_t cycle = put ? d.transfer_end_cycle : d.issue_cycle;
        passive[other].push_back({instance_at_cycle(timeline.chips[other], cycle), !put, op.chip, d.bytes,
                                  static_cast<int32_t>(d.dma_id % (1u << 24)), cycle, op.name});
      }
    }
  }
  std::map<std::vector<uint32_t>, std::string> group_ids;
  trace.ranks.resize(chips);
  for (uint32_t chip = 0; chip < chips; ++chip) {
    RankBuilder rank(trace.ranks[chip], clock);
    auto& extra = passive[chip];
    std::stable_sort(extra.begin(), extra.end(), [](const Passive& a, const Passive& b) {
      return a.before_instance != b.before_instance ? a.before_instance < b.before_instance : a.cycle < b.cycle;
    });
    size_t next_extra = 0;
    const auto& ops = timeline.chips[chip];
    for (size_t k = 0; k < ops.size(); ++k) {
      const OpInstance& op = ops[k];
      for (; next_extra < extra.size() && extra[next_extra].before_instance == k; ++next_extra) {
        const Passive& p = extra[next_extra];
        pb::Node& node = rank.add(fmt::format("{}.{}", p.name, p.send ? "send" : "recv"),
                                  p.send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE, op.begin_cycle, op.begin_cycle);
        if (p.send) {
          chakra::set_comm_src(node, static_cast<int32_t>(chip));
          chakra::set_comm_dst(node, static_cast<int32_t>(p.peer));
        } else {
          chakra::set_comm_src(node, static_cast<int32_t>(p.peer));
          chakra::set_comm_dst(node, static_cast<int32_t>(chip));
        }
        chakra::set_comm_size(node, static_cast<int64_t>(p.bytes));
        chakra::set_comm_tag(node, p.tag);
        ++trace.point_to_point;
      }
      if (op.collective) {
        if (op.comm_begin_cycle > op.begin_cycle) {
          rank.compute(op.name + ".setup", op.begin_cycle, op.comm_begin_cycle, op.vector_ops - op.after_wait_ops + op.matrix_ops,
                       op.before_comm_hbm_bytes);
        }
        pb::Node& node = rank.add(op.name, pb::COMM_COLL_NODE, op.comm_begin_cycle, op.comm_end_cycle);
        chakra::set_is_cpu_op(node, false);
        chakra::set_comm_type(node, chakra_type(op.collective_type));
        chakra::set_comm_size(node, static_cast<int64_t>(op.comm_bytes));
        if (op.group.size() != chips) {
          auto [it, inserted] = group_ids.emplace(op.group, std::to_string(group_ids.size() + 1));
          if (inserted) trace.groups.emplace_back(it->second, op.group);
          chakra::set_pg_name(node, it->second);
        }
        set_int64(node, "npu_chunk_bytes", static_cast<int64_t>(op.chunk_bytes));
        ++trace.collectives;
        if (op.end_cycle > op.comm_end_cycle) {
          rank.compute(op.name + (op.reduces_after_wait ? ".reduce" : ".finish"), op.comm_end_cycle, op.end_cycle,
                       op.after_wait_ops, op.hbm_bytes - op.before_comm_hbm_bytes);
        }
        continue;
      }
      // A point-to-point op: its own sends / receives first (a send is done
      // when its data has arrived, as the op's WAIT requires), then its time.
      for (size_t i : op.remote_dmas) {
        const rundb::DmaRecord& d = timeline.dmas[i];
        const bool put = d.src_chip == d.chip;
        pb::Node& node = rank.add(fmt::format("{}.{}", op.name, put ? "send" : "recv"),
                                  put ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE, op.begin_cycle, op.begin_cycle);
        chakra::set_comm_src(node, static_cast<int32_t>(d.src_chip));
        chakra::set_comm_dst(node, static_cast<int32_t>(d.dst_chip));
        chakra::set_comm_size(node, static_cast<int64_t>(d.bytes));
        chakra::set_comm_tag(node, static_cast<int32_t>(d.dma_id % (1u << 24)));
        ++trace.point_to_point;
      }
      rank.compute(op.name, op.begin_cycle, op.end_cycle, op.matrix_ops + op.vector_ops, op.hbm_bytes);
    }
  }
  return trace;
}

ChakraFiles write_chakra_trace(const ChakraTrace& trace, const std::filesystem::path& prefix) {
  namespace fs = std::filesystem;
  if (trace.ranks.empty()) throw Error(fmt::format("{}: nothing to export (the run has no chips)", prefix.string()));
  output::StagedPrefix staged(prefix);
  ChakraFiles files;
  for (size_t r = 0; r < trace.ranks.size(); ++r) {
    pb::GlobalMetadata metadata = trace.metadata;
    set_string(metadata, "rank", std::to_string(r));
    chakra::EtWriter writer(chakra::rank_trace_path(staged.staged_prefix(), r), metadata);
    for (const auto& node : trace.ranks[r]) writer.write(node);
    files.nodes += writer.nodes_written();
    files.bytes += writer.bytes_written();
    writer.commit();
    files.ranks.push_back(chakra::rank_trace_path(prefix, r));
  }
  if (!trace.groups.empty()) {
    nlohmann::ordered_json groups = nlohmann::ordered_json::object();
    for (const auto& [id, members] : trace.groups) groups[id] = members;
    write_file_atomic(staged.staged_prefix().string() + ".comm_groups.json", groups.dump(2) + "\n");
    files.comm_groups = prefix.string() + ".comm_groups.json";
  }
  staged.commit();
  return files;
}

std::string describe_export(const ChakraTrace& trace, const ChakraFiles& files, const std::string& prefix) {
  std::string out = fmt::format("{}.<0..{}>.et: {} ranks, {} nodes ({} collectives, {} point-to-point), {} bytes\n",
                                prefix, files.ranks.size() - 1, files.ranks.size(), files.nodes, trace.collectives,
                                trace.point_to_point, files.bytes);
  if (!files.comm_groups.empty()) out += fmt::format("{}: communicator groups\n", files.comm_groups.string());
  return out;
}

}  // namespace snr::exporter
