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
#include "common/progress.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/process_group_init.h"
#include "formats/chakra/rank_files.h"

namespace snr::et {
namespace {

namespace pb = ChakraProtoMsg;

std::filesystem::path groups_path(const std::filesystem::path& prefix) {
  return prefix.string() + ".comm_groups.json";
}

// Members of each group named in PREFIX.comm_groups.json (none without the file).
std::map<std::string, std::vector<uint64_t>> read_groups(const std::filesystem::path& prefix) {
  const auto path = groups_path(prefix);
  std::map<std::string, std::vector<uint64_t>> groups;
  if (!std::filesystem::exists(path)) return groups;
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

// `group_size(node)`: the members of a collective's group in the input.
template <typename GroupSize>
StageShape stage_shape(const std::filesystem::path& path, const GroupSize& group_size) {
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
      case pb::ALL_GATHER: shape.last_collective_output_bytes = *size * group_size(node); break;
      case pb::REDUCE_SCATTER: shape.last_collective_output_bytes = *size / group_size(node); break;
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

// Which parallel dimension a collective's group spans.
enum class GroupAxis { kTensor, kData };

struct InputScan {
  RetargetLayout layout;
  bool has_point_to_point = false;
  std::optional<GroupAxis> world_axis;        // collectives without pg_name (all N ranks)
  std::map<std::string, GroupAxis> group_axis;  // the named groups the collectives use
  bool has_tensor_collectives = false;
  bool has_data_collectives = false;

  GroupAxis axis_of(const pb::Node& node) const {
    const auto pg = chakra::NodeView(node).pg_name();
    if (pg.has_value() && !pg->empty()) {
      const auto it = group_axis.find(*pg);
      if (it != group_axis.end()) return it->second;
    }
    return *world_axis;  // no pg_name, or PyTorch's default group "0" undescribed
  }
};

// With T_in ranks per tensor-parallel group and D_in = N / T_in replicas,
// a group is either a tensor-parallel block (T_in consecutive ranks from a
// multiple of T_in) or a data-parallel set (D_in ranks T_in apart, one per
// replica); a group that is neither has no retarget rule.
std::optional<GroupAxis> classify_group(const std::vector<uint64_t>& members, uint64_t tp_in, uint64_t dp_in) {
  if (members.empty()) return std::nullopt;
  const auto strided = [&](uint64_t size, uint64_t stride) {
    if (members.size() != size) return false;
    for (size_t k = 1; k < members.size(); ++k) {
      if (members[k] != members[0] + k * stride) return false;
    }
    return true;
  };
  if (members[0] % tp_in == 0 && strided(tp_in, 1)) return GroupAxis::kTensor;
  if (members[0] < tp_in && strided(dp_in, tp_in)) return GroupAxis::kData;
  return std::nullopt;
}

// T_in when --input-tp does not say: the size of the groups that are blocks
// of consecutive ranks, else the stride of strided groups, else N (every
// collective spans all ranks: one tensor-parallel group).
uint64_t infer_tp(uint64_t n, const std::map<std::string, std::vector<uint64_t>>& groups,
                  const std::set<std::string>& used) {
  std::optional<uint64_t> block, stride;
  for (const auto& id : used) {
    const auto& members = groups.at(id);
    if (members.size() < 2 || members.size() == n) continue;
    if (members.back() - members.front() + 1 == members.size()) {
      block = block.value_or(members.size());
    } else {
      stride = stride.value_or(members[1] - members[0]);
    }
  }
  return block.value_or(stride.value_or(n));
}

InputScan scan_input(const std::filesystem::path& prefix, uint64_t input_tp) {
  const auto files = chakra::resolve_trace_argument(prefix);
  const uint64_t n = files.size();
  std::optional<std::map<std::string, std::vector<uint64_t>>> groups;  // read at the first named group
  std::set<std::string> used_groups;
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
        if (!pg.has_value() || pg->empty()) {
          world_collectives = true;
          continue;
        }
        if (!groups) groups = read_groups(prefix);
        const auto it = groups->find(*pg);
        if (it == groups->end()) {
          // PyTorch's default group: every rank unless described (ASTRA-sim's rule).
          if (*pg == "0") {
            world_collectives = true;
            continue;
          }
          if (!std::filesystem::exists(groups_path(prefix))) {
            throw Error(fmt::format("{}: the trace's collectives name process group '{}', but {} is missing",
                                    prefix.string(), *pg, groups_path(prefix).string()));
          }
          throw Error(fmt::format("{}: process group '{}' is not in {}", prefix.string(), *pg,
                                  groups_path(prefix).string()));
        }
        if (!std::binary_search(it->second.begin(), it->second.end(), file.rank)) {
          throw Error(fmt::format("{}: rank {} runs node {} ({}) in process group '{}', which does not list it",
                                  file.path.string(), file.rank, node.id(), node.name(), *pg));
        }
        used_groups.insert(*pg);
      } else {
        const auto peer = node.type() == pb::COMM_SEND_NODE ? view.comm_dst() : view.comm_src();
        if (!peer.has_value()) {
          throw Error(fmt::format("{}: node {} ({}) has no peer rank", file.path.string(), node.id(), node.name()));
        }
        peers.emplace_back(file.rank, *peer);
      }
    }
  }
  const uint64_t tp_in = input_tp > 0 ? input_tp : infer_tp(n, groups.value_or(decltype(groups)::value_type{}), used_groups);
  if (n % tp_in != 0) {
    throw Error(fmt::format("{}: --input-tp {} does not divide its {} ranks", prefix.string(), tp_in, n));
  }
  InputScan scan;
  scan.layout = {n, tp_in, n / tp_in, 1};
  const auto no_rule = [&](const std::string& what) {
    return Error(fmt::format("{}: {} is neither a tensor-parallel group ({} consecutive ranks from a multiple of {}) "
                             "nor a data-parallel one ({} ranks {} apart) of a tp {} x dp {} layout; the retarget "
                             "rules need one of the two{}",
                             prefix.string(), what, tp_in, tp_in, n / tp_in, tp_in, tp_in, n / tp_in,
                             input_tp > 0 ? "" : " (--input-tp sets the layout)"));
  };
  const auto note = [&](GroupAxis axis) {
    (axis == GroupAxis::kTensor ? scan.has_tensor_collectives : scan.has_data_collectives) = true;
  };
  if (world_collectives) {
    std::vector<uint64_t> all(n);
    for (uint64_t r = 0; r < n; ++r) all[r] = r;
    scan.world_axis = classify_group(all, tp_in, n / tp_in);
    if (!scan.world_axis) throw no_rule("a collective over all ranks");
    note(*scan.world_axis);
  }
  for (const auto& id : used_groups) {
    const auto axis = classify_group(groups->at(id), tp_in, n / tp_in);
    if (!axis) throw no_rule(fmt::format("process group '{}'", id));
    scan.group_axis.emplace(id, *axis);
    note(*axis);
  }
  for (const auto& [rank, peer] : peers) {
    if (peer < 0 || static_cast<uint64_t>(peer) / tp_in != rank / tp_in) {
      throw Error(fmt::format("{}: rank {} exchanges point-to-point data with rank {} of another tensor-parallel "
                              "group; pipeline or cross-replica traffic has no retarget rule",
                              prefix.string(), rank, peer));
    }
  }
  scan.has_point_to_point = !peers.empty();
  return scan;
}

// The output's process groups: tensor-parallel group g = d + D x s holds
// ranks T x g .. T x g + T - 1; data-parallel group (t, s) holds
// t + T x (d + D x s) for every replica d. Ids count tensor-parallel groups
// first (as the input's own numbering when it was written here).
struct OutputGroups {
  uint64_t tp, dp, pp, ranks;
  bool write_tensor, write_data;

  static bool needed(bool used, uint64_t size, uint64_t ranks) { return used && size > 1 && size < ranks; }

  uint64_t tensor_id(uint64_t g) const { return g + 1; }
  uint64_t data_id(uint64_t t, uint64_t stage) const { return (write_tensor ? dp * pp : 0) + 1 + t + tp * stage; }

  std::vector<uint64_t> tensor_members(uint64_t g) const {
    std::vector<uint64_t> members(tp);
    for (uint64_t t = 0; t < tp; ++t) members[t] = t + tp * g;
    return members;
  }
  std::vector<uint64_t> data_members(uint64_t t, uint64_t stage) const {
    std::vector<uint64_t> members(dp);
    for (uint64_t d = 0; d < dp; ++d) members[d] = t + tp * (d + dp * stage);
    return members;
  }

  // The groups output rank (t, g = d + D x stage) belongs to.
  std::vector<chakra::ProcessGroupMembers> of_rank(uint64_t t, uint64_t g) const {
    std::vector<chakra::ProcessGroupMembers> groups;
    if (write_tensor) groups.push_back({std::to_string(tensor_id(g)), tensor_members(g)});
    if (write_data) groups.push_back({std::to_string(data_id(t, g / dp)), data_members(t, g / dp)});
    return groups;
  }

  nlohmann::ordered_json json() const {
    nlohmann::ordered_json groups = nlohmann::ordered_json::object();
    if (write_tensor) {
      for (uint64_t g = 0; g < dp * pp; ++g) groups[std::to_string(tensor_id(g))] = tensor_members(g);
    }
    if (write_data) {
      for (uint64_t stage = 0; stage < pp; ++stage) {
        for (uint64_t t = 0; t < tp; ++t) groups[std::to_string(data_id(t, stage))] = data_members(t, stage);
      }
    }
    return groups;
  }
};

void erase_attributes(pb::Node& node, std::initializer_list<std::string_view> names) {
  auto* attrs = node.mutable_attr();
  attrs->erase(std::remove_if(attrs->begin(), attrs->end(),
                              [&](const pb::AttributeProto& a) {
                                return std::find(names.begin(), names.end(), a.name()) != names.end();
                              }),
               attrs->end());
}

// A collective whose group shrank to one rank moves nothing: it stays as a
// zero-time compute node so the dependencies through it hold.
void make_single_rank_noop(pb::Node& node) {
  node.set_type(pb::COMP_NODE);
  node.set_duration_micros(0);
  namespace attr = chakra::attr_name;
  erase_attributes(node, {attr::kCommType, attr::kCommSize, attr::kPgName});
  auto* a = node.add_attr();
  a->set_name("retarget");
  a->set_string_val("collective over one rank: no transfer");
}

}  // namespace

RetargetLayout infer_layout(const std::filesystem::path& prefix, uint64_t input_tp) {
  return scan_input(prefix, input_tp).layout;
}

RetargetSummary retarget_trace(const std::filesystem::path& prefix, const RetargetOptions& options,
                               const std::filesystem::path& output_prefix) {
  const InputScan scan = scan_input(prefix, options.input_tp);
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
  const OutputGroups out_groups{tp, dp, pp, m, OutputGroups::needed(scan.has_tensor_collectives, tp, m),
                                OutputGroups::needed(scan.has_data_collectives, dp, m)};
  const auto input_group_size = [&](const pb::Node& collective) {
    return scan.axis_of(collective) == GroupAxis::kTensor ? in.tp : in.dp;
  };
  std::map<uint64_t, StageShape> shapes;  // per source rank, pipelined outputs only
  auto shape_of = [&](uint64_t source) -> const StageShape& {
    auto it = shapes.find(source);
    if (it == shapes.end()) {
      it = shapes.emplace(source, stage_shape(chakra::rank_trace_path(prefix, source), input_group_size)).first;
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
  // A collective of output rank (t, d, stage), whose tensor-parallel group is g = d + D x stage.
  const auto retarget_collective = [&](pb::Node& node, uint64_t t, uint64_t stage, uint64_t g) {
    const GroupAxis axis = scan.axis_of(node);
    const uint64_t size = axis == GroupAxis::kTensor ? tp : dp;
    if (size == 1) {
      make_single_rank_noop(node);
      return;
    }
    const auto type = chakra::NodeView(node).comm_type();
    const bool all_gather = type.has_value() && *type == pb::ALL_GATHER;
    if (tp != in.tp) {
      // A member's share re-scales with the tensor-parallel degree: an
      // all-gather's contribution, and every data-parallel buffer (the
      // rank's shard of the parameters or gradients).
      if (axis == GroupAxis::kData || all_gather) scale_attribute(node, "comm_size", in.tp, tp);
    }
    if (dp != in.dp && axis == GroupAxis::kData && all_gather) {
      // The model stays: a data-parallel all-gather (ZeRO-3 / FSDP
      // gathering the parameters) contributes the rank's shard, which
      // re-scales with the replicas; reduce-scatters and all-reduces carry
      // the whole buffer and stay.
      scale_attribute(node, "comm_size", in.dp, dp);
    }
    if (size == m) {
      erase_attributes(node, {chakra::attr_name::kPgName});  // spans every rank
    } else {
      set_pg_name(node, std::to_string(axis == GroupAxis::kTensor ? out_groups.tensor_id(g)
                                                                   : out_groups.data_id(t, stage)));
    }
  };
  // Refuse before writing what cannot fit: each output rank is about the
  // size of its source rank (pipeline send/recv nodes add a few bytes).
  uint64_t input_bytes = 0;
  for (uint64_t source = 0; source < in.ranks; ++source) {
    input_bytes += std::filesystem::file_size(chakra::rank_trace_path(prefix, source));
  }
  output::check_output_fits(output_prefix, input_bytes / in.ranks * m + m * 64, m + 1, "snr et retarget");
  output::StagedPrefix staged(output_prefix);
  ProgressMeter progress(fmt::format("writing {}", output_prefix.string()), m, "ranks");
  pb::Node node;
  for (uint64_t r = 0; r < m; ++r) {
    progress.update(r);
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
        if (tp != in.tp && node.type() == pb::COMP_NODE) {
          node.set_duration_micros((node.duration_micros() * in.tp + tp / 2) / tp);
          scale_attribute(node, "num_ops", in.tp, tp);
          scale_attribute(node, "tensor_size", in.tp, tp);
        }
        if (node.type() == pb::COMM_COLL_NODE) retarget_collective(node, t, stage, g);
        if (node.type() == pb::METADATA_NODE && node.name() == chakra::kProcessGroupInitNode) {
          // The input's groups no longer hold: describe this rank's own.
          node.mutable_inputs()->set_values(chakra::process_group_init_values(out_groups.of_rank(t, g)));
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
  } else if (out_groups.write_tensor || out_groups.write_data) {
    write_file_atomic(groups_path(staged.staged_prefix()), out_groups.json().dump() + "\n");
    summary.comm_groups = groups_path(output_prefix);
  }
  staged.commit();
  return summary;
}

}  // namespace snr::et
