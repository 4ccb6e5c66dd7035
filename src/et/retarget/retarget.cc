#include "et/retarget/retarget.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_set>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "common/output.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/rank_files.h"

namespace snr::et {
namespace {

namespace pb = ChakraProtoMsg;

std::filesystem::path groups_path(const std::filesystem::path& prefix) {
  return prefix.string() + ".comm_groups.json";
}

// Members of each group named in PREFIX.comm_groups.json.
std::map<std::string, std::vector<uint64_t>> read_groups(const std::filesystem::path& prefix) {
  const auto path = groups_path(prefix);
  if (!std::filesystem::exists(path)) {
    throw Error(fmt::format("{}: the trace's collectives name process groups, but {} is missing", prefix.string(),
                            path.string()));
  }
  std::map<std::string, std::vector<uint64_t>> groups;
  try {
    const auto doc = parse_json_input(read_file(path), path.string());
    for (const auto& [id, members] : doc.items()) {
      auto list = members.get<std::vector<uint64_t>>();
      std::sort(list.begin(), list.end());
      groups[id] = std::move(list);
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not a communicator-group configuration: {}", path.string(), e.what()));
  }
  return groups;
}

// Scales an integer attribute in place, keeping its oneof member.
void scale_attribute(pb::Node& node, std::string_view name, uint64_t numerator, uint64_t denominator) {
  for (auto& a : *node.mutable_attr()) {
    if (a.name() != name) continue;
    const auto value = chakra::attribute_int64(a);
    if (!value.has_value() || *value < 0) {
      throw Error(fmt::format("node {} ({}): attribute {} is not a non-negative integer", node.id(), node.name(), name));
    }
    const uint64_t scaled = (static_cast<uint64_t>(*value) * numerator + denominator / 2) / denominator;
    switch (a.value_case()) {
      case pb::AttributeProto::kInt64Val: a.set_int64_val(static_cast<int64_t>(scaled)); break;
      case pb::AttributeProto::kUint64Val: a.set_uint64_val(scaled); break;
      case pb::AttributeProto::kInt32Val: a.set_int32_val(static_cast<int32_t>(scaled)); break;
      case pb::AttributeProto::kUint32Val: a.set_uint32_val(static_cast<uint32_t>(scaled)); break;
      default:
        throw Error(fmt::format("node {} ({}): attribute {} has a member the re-scale does not write ({})", node.id(),
                                node.name(), name, chakra::attribute_kind(a)));
    }
  }
}

void set_pg_name(pb::Node& node, const std::string& group) {
  for (auto& a : *node.mutable_attr()) {
    if (a.name() == "pg_name") {
      a.set_string_val(group);
      return;
    }
  }
  chakra::set_pg_name(node, group);
}

void set_int_peer(pb::Node& node, std::string_view name, int64_t peer) {
  for (auto& a : *node.mutable_attr()) {
    if (a.name() != name) continue;
    switch (a.value_case()) {
      case pb::AttributeProto::kInt32Val: a.set_int32_val(static_cast<int32_t>(peer)); break;
      case pb::AttributeProto::kInt64Val: a.set_int64_val(peer); break;
      case pb::AttributeProto::kUint32Val: a.set_uint32_val(static_cast<uint32_t>(peer)); break;
      case pb::AttributeProto::kUint64Val: a.set_uint64_val(static_cast<uint64_t>(peer)); break;
      default: throw Error(fmt::format("node {} ({}): attribute {} is not an integer rank", node.id(), node.name(), name));
    }
  }
}

bool is_comm(int type) {
  return type == pb::COMM_COLL_NODE || type == pb::COMM_SEND_NODE || type == pb::COMM_RECV_NODE;
}

// What a pipeline stage needs to know about its source rank's graph: fresh
// ids for the nodes it adds, the nodes nothing depends on (the stage's
// output: its send waits for all of them), and the activation size the
// last collective leaves.
struct StageShape {
  uint64_t max_id = 0;
  std::vector<uint64_t> leaves;
  uint64_t nodes = 0;
  std::optional<uint64_t> last_collective_output_bytes;
  std::string last_collective;
};

StageShape stage_shape(const std::filesystem::path& path, uint64_t group_size) {
  StageShape shape;
  std::vector<uint64_t> ids;
  std::unordered_set<uint64_t> depended_on;
  pb::Node node;
  auto reader = chakra::EtReader::open(path);
  while (reader.next(node)) {
    ++shape.nodes;
    ids.push_back(node.id());
    shape.max_id = std::max<uint64_t>(shape.max_id, node.id());
    for (const uint64_t dep : node.data_deps()) depended_on.insert(dep);
    for (const uint64_t dep : node.ctrl_deps()) depended_on.insert(dep);
    if (node.type() != pb::COMM_COLL_NODE) continue;
    const chakra::NodeView view(node);
    const auto type = view.comm_type();
    const auto size = view.comm_size_bytes();
    shape.last_collective = node.name();
    shape.last_collective_output_bytes.reset();
    if (!type.has_value() || !size.has_value()) continue;
    // The tensor the collective leaves on each member (the sizes' meaning
    // as in the re-scale rule above).
    switch (*type) {
      case pb::ALL_GATHER: shape.last_collective_output_bytes = *size * group_size; break;
      case pb::REDUCE_SCATTER: shape.last_collective_output_bytes = *size / group_size; break;
      case pb::ALL_REDUCE:
      case pb::ALL_TO_ALL: shape.last_collective_output_bytes = *size; break;
      default: break;
    }
  }
  for (const uint64_t id : ids) {
    if (!depended_on.contains(id)) shape.leaves.push_back(id);
  }
  return shape;
}

// The tag of pipeline sends and receives; they are the only point-to-point
// nodes of a pipelined output (an input with its own is refused).
constexpr int32_t kPipelineTag = 0x7069;  // "pi"

pb::Node pipeline_node(uint64_t id, bool send, uint64_t stage, uint64_t peer, uint64_t bytes) {
  pb::Node node;
  node.set_id(id);
  node.set_type(send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
  node.set_name(send ? fmt::format("pipeline.send_to_stage{}", stage + 1)
                     : fmt::format("pipeline.recv_from_stage{}", stage - 1));
  chakra::set_is_cpu_op(node, false);
  chakra::set_comm_size(node, static_cast<int64_t>(bytes));
  if (send) {
    chakra::set_comm_dst(node, static_cast<int32_t>(peer));
  } else {
    chakra::set_comm_src(node, static_cast<int32_t>(peer));
  }
  chakra::set_comm_tag(node, kPipelineTag);
  return node;
}

struct InputScan {
  RetargetLayout layout;
  bool has_point_to_point = false;
};

InputScan scan_input(const std::filesystem::path& prefix) {
  const auto files = chakra::resolve_trace_argument(prefix);
  const uint64_t n = files.size();
  std::set<std::string> named_groups;
  bool world_collectives = false;
  std::vector<std::pair<uint64_t, int64_t>> peers;  // (rank, peer) of point-to-point nodes
  pb::Node node;
  for (const auto& file : files) {
    auto reader = chakra::EtReader::open(file.path);
    while (reader.next(node)) {
      if (!is_comm(node.type())) continue;
      const chakra::NodeView view(node);
      if (node.type() == pb::COMM_COLL_NODE) {
        const auto pg = view.pg_name();
        if (pg.has_value() && !pg->empty()) {
          named_groups.insert(*pg);
        } else {
          world_collectives = true;
        }
      } else {
        const auto peer = node.type() == pb::COMM_SEND_NODE ? view.comm_dst() : view.comm_src();
        if (!peer.has_value()) {
          throw Error(fmt::format("{}: node {} ({}) has no peer rank", file.path.string(), node.id(), node.name()));
        }
        peers.emplace_back(file.rank, *peer);
      }
    }
  }
  InputScan scan;
  scan.layout.ranks = n;
  scan.layout.tp = n;
  scan.layout.dp = 1;
  if (!named_groups.empty()) {
    if (world_collectives) {
      throw Error(fmt::format("{}: collectives over all ranks and over process groups are mixed; the trace has no "
                              "replica symmetry to retarget by",
                              prefix.string()));
    }
    const auto groups = read_groups(prefix);
    uint64_t size = 0;
    std::set<uint64_t> covered;
    for (const auto& id : named_groups) {
      const auto it = groups.find(id);
      if (it == groups.end()) throw Error(fmt::format("{}: process group '{}' is not in {}", prefix.string(), id,
                                                      groups_path(prefix).string()));
      const auto& members = it->second;
      if (size == 0) size = members.size();
      const bool block = !members.empty() && members.size() == size && members.front() % size == 0 &&
                         members.back() == members.front() + size - 1;
      if (!block) {
        throw Error(fmt::format("{}: process group '{}' is not a block of {} consecutive ranks starting at a multiple "
                                "of {}; the retarget rules need equal contiguous groups",
                                prefix.string(), id, size, size));
      }
      covered.insert(members.front());
    }
    if (n % size != 0 || covered.size() != n / size) {
      throw Error(fmt::format("{}: its process groups of {} ranks do not tile its {} ranks", prefix.string(), size, n));
    }
    scan.layout.tp = size;
    scan.layout.dp = n / size;
  }
  for (const auto& [rank, peer] : peers) {
    if (peer < 0 || static_cast<uint64_t>(peer) / scan.layout.tp != rank / scan.layout.tp) {
      throw Error(fmt::format("{}: rank {} exchanges point-to-point data with rank {} of another group; pipeline "
                              "or cross-replica traffic has no retarget rule",
                              prefix.string(), rank, peer));
    }
  }
  scan.has_point_to_point = !peers.empty();
  return scan;
}

}  // namespace

RetargetLayout infer_layout(const std::filesystem::path& prefix) { return scan_input(prefix).layout; }

RetargetSummary retarget_trace(const std::filesystem::path& prefix, const RetargetOptions& options,
                               const std::filesystem::path& output_prefix) {
  const InputScan scan = scan_input(prefix);
  const RetargetLayout& in = scan.layout;
  const uint64_t m = options.npus;
  const uint64_t pp = options.pp == 0 ? 1 : options.pp;
  const uint64_t tp = options.tp == 0 ? in.tp : options.tp;
  if (m == 0) throw Error("retarget: --npus must be at least 1");
  if (pp > 1 && scan.has_point_to_point) {
    throw Error(fmt::format("{}: --pp {}: the trace has point-to-point nodes of its own, so it may be a pipeline "
                            "stage already; where its stage boundaries are is ambiguous. Only traces whose "
                            "communication is collectives get pipeline stages",
                            prefix.string(), pp));
  }
  if (m % (tp * pp) != 0) {
    throw Error(fmt::format("retarget: {} NPUs are not divisible by tensor-parallel {} x pipeline {}", m, tp, pp));
  }
  const uint64_t dp = options.dp == 0 ? m / (tp * pp) : options.dp;
  if (tp * dp * pp != m) {
    throw Error(fmt::format("retarget: --tp {} x --dp {} x --pp {} is {}, not --npus {}", tp, dp, pp, tp * dp * pp, m));
  }
  if (tp != in.tp && scan.has_point_to_point) {
    throw Error(fmt::format("{}: re-scaling tensor parallelism from {} to {} moves point-to-point peers; only "
                            "traces whose communication is collectives can be re-scaled",
                            prefix.string(), in.tp, tp));
  }
  const bool identity = tp == in.tp && dp == in.dp && pp == 1;
  // Tensor-parallel groups: one per (replica, stage), g = d + D x s.
  const uint64_t groups_count = dp * pp;
  std::map<uint64_t, StageShape> shapes;  // per source rank, pipelined outputs only
  auto shape_of = [&](uint64_t source) -> const StageShape& {
    auto it = shapes.find(source);
    if (it == shapes.end()) {
      it = shapes.emplace(source, stage_shape(chakra::rank_trace_path(prefix, source), in.tp)).first;
    }
    return it->second;
  };
  auto activation_bytes_of = [&](uint64_t source) -> uint64_t {
    if (options.activation_bytes > 0) return options.activation_bytes;
    const StageShape& shape = shape_of(source);
    if (!shape.last_collective_output_bytes.has_value()) {
      throw Error(fmt::format("{}: --pp {}: the activation a stage hands on is taken from the last collective's "
                              "output, but rank {} {}; give it with --activation-bytes",
                              prefix.string(), pp, source,
                              shape.last_collective.empty()
                                  ? std::string("has no collective")
                                  : fmt::format("ends with '{}', whose type or size is not known",
                                                shape.last_collective)));
    }
    return *shape.last_collective_output_bytes;
  };
  if (pp > 1) (void)activation_bytes_of(0);  // refuse before writing anything
  RetargetSummary summary;
  summary.input = in;
  summary.output = {m, tp, dp, pp};
  output::StagedPrefix staged(output_prefix);
  pb::Node node;
  for (uint64_t r = 0; r < m; ++r) {
    const uint64_t t = r % tp, g = r / tp, d = g % dp, stage = g / dp;
    const uint64_t source = (t % in.tp) + in.tp * (d % in.dp);
    auto reader = chakra::EtReader::open(chakra::rank_trace_path(prefix, source));
    pb::GlobalMetadata metadata = reader.metadata();
    if (!identity) {
      auto* a = metadata.add_attr();
      a->set_name("retarget");
      a->set_string_val(fmt::format("rank {} of {} (tp {}, dp {}, pp {}; stage {}) from rank {} of {} (tp {}, dp {})",
                                    r, m, tp, dp, pp, stage, source, in.ranks, in.tp, in.dp));
    }
    chakra::EtWriter writer(chakra::rank_trace_path(staged.staged_prefix(), r), metadata);
    // Pipeline stages: stage s > 0 first receives the activation from the
    // same position of stage s - 1 (every node without dependencies waits
    // for it); stage s < P - 1 ends by sending it on (after every node that
    // nothing depends on).
    const StageShape* shape = pp > 1 ? &shape_of(source) : nullptr;
    const uint64_t recv_id = shape != nullptr ? shape->max_id + 1 : 0;
    const uint64_t send_id = shape != nullptr ? shape->max_id + 2 : 0;
    if (shape != nullptr && stage > 0) {
      writer.write(pipeline_node(recv_id, false, stage, r - tp * dp, activation_bytes_of(source)));
    }
    while (reader.next(node)) {
      if (!identity) {
        if (tp != in.tp) {
          if (node.type() == pb::COMP_NODE) {
            node.set_duration_micros((node.duration_micros() * in.tp + tp / 2) / tp);
            scale_attribute(node, "num_ops", in.tp, tp);
            scale_attribute(node, "tensor_size", in.tp, tp);
          } else if (node.type() == pb::COMM_COLL_NODE) {
            const auto type = chakra::NodeView(node).comm_type();
            if (type.has_value() && *type == pb::ALL_GATHER) scale_attribute(node, "comm_size", in.tp, tp);
          }
        }
        if (node.type() == pb::COMM_COLL_NODE && groups_count > 1) set_pg_name(node, std::to_string(g + 1));
        if (node.type() == pb::COMM_COLL_NODE && groups_count == 1 && in.dp > 1) {
          // One replica left: its collectives span all ranks.
          auto* attrs = node.mutable_attr();
          attrs->erase(std::remove_if(attrs->begin(), attrs->end(),
                                      [](const pb::AttributeProto& a) { return a.name() == "pg_name"; }),
                       attrs->end());
        }
        if (node.type() == pb::COMM_SEND_NODE || node.type() == pb::COMM_RECV_NODE) {
          const chakra::NodeView view(node);
          const auto map_peer = [&](int64_t peer) { return static_cast<int64_t>(static_cast<uint64_t>(peer) % in.tp + tp * g); };
          if (const auto dst = view.comm_dst()) set_int_peer(node, "comm_dst", map_peer(*dst));
          if (const auto src = view.comm_src()) set_int_peer(node, "comm_src", map_peer(*src));
        }
        if (shape != nullptr && stage > 0 && node.data_deps_size() == 0 && node.ctrl_deps_size() == 0) {
          node.add_data_deps(recv_id);
        }
      }
      writer.write(node);
    }
    if (shape != nullptr && stage + 1 < pp) {
      pb::Node send = pipeline_node(send_id, true, stage, r + tp * dp, activation_bytes_of(source));
      for (const uint64_t leaf : shape->leaves) send.add_data_deps(leaf);
      writer.write(send);
    }
    summary.nodes_written += writer.nodes_written();
    writer.commit();
  }
  if (identity) {
    if (std::filesystem::exists(groups_path(prefix))) {
      write_file_atomic(groups_path(staged.staged_prefix()), read_file(groups_path(prefix)));
      summary.comm_groups = groups_path(output_prefix);
    }
  } else if (groups_count > 1) {
    nlohmann::ordered_json groups = nlohmann::ordered_json::object();
    for (uint64_t g = 0; g < groups_count; ++g) {
      std::vector<uint64_t> members(tp);
      for (uint64_t t = 0; t < tp; ++t) members[t] = t + tp * g;
      groups[std::to_string(g + 1)] = members;
    }
    write_file_atomic(groups_path(staged.staged_prefix()), groups.dump() + "\n");
    summary.comm_groups = groups_path(output_prefix);
  }
  staged.commit();
  return summary;
}

}  // namespace snr::et
