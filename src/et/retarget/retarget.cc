#include "et/retarget/retarget.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

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
  if (pp != 1) {
    throw Error(fmt::format("retarget: --pp {}: adding pipeline stages needs the activation each stage hands on, "
                            "which the trace does not say; only --pp 1 is supported",
                            pp));
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
  const bool identity = tp == in.tp && dp == in.dp;
  RetargetSummary summary;
  summary.input = in;
  summary.output = {m, tp, dp};
  output::StagedPrefix staged(output_prefix);
  pb::Node node;
  for (uint64_t r = 0; r < m; ++r) {
    const uint64_t t = r % tp, d = r / tp;
    const uint64_t source = (t % in.tp) + in.tp * (d % in.dp);
    auto reader = chakra::EtReader::open(chakra::rank_trace_path(prefix, source));
    pb::GlobalMetadata metadata = reader.metadata();
    if (!identity) {
      auto* a = metadata.add_attr();
      a->set_name("retarget");
      a->set_string_val(fmt::format("rank {} of {} (tp {}, dp {}) from rank {} of {} (tp {}, dp {})", r, m, tp, dp,
                                    source, in.ranks, in.tp, in.dp));
    }
    chakra::EtWriter writer(chakra::rank_trace_path(staged.staged_prefix(), r), metadata);
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
        if (node.type() == pb::COMM_COLL_NODE && dp > 1) set_pg_name(node, std::to_string(d + 1));
        if (node.type() == pb::COMM_COLL_NODE && dp == 1 && in.dp > 1) {
          // One replica left: its collectives span all ranks.
          auto* attrs = node.mutable_attr();
          attrs->erase(std::remove_if(attrs->begin(), attrs->end(),
                                      [](const pb::AttributeProto& a) { return a.name() == "pg_name"; }),
                       attrs->end());
        }
        if (node.type() == pb::COMM_SEND_NODE || node.type() == pb::COMM_RECV_NODE) {
          const chakra::NodeView view(node);
          const auto map_peer = [&](int64_t peer) { return static_cast<int64_t>(static_cast<uint64_t>(peer) % in.tp + tp * d); };
          if (const auto dst = view.comm_dst()) set_int_peer(node, "comm_dst", map_peer(*dst));
          if (const auto src = view.comm_src()) set_int_peer(node, "comm_src", map_peer(*src));
        }
      }
      writer.write(node);
    }
    summary.nodes_written += writer.nodes_written();
    writer.commit();
  }
  if (identity) {
    if (std::filesystem::exists(groups_path(prefix))) {
      write_file_atomic(groups_path(staged.staged_prefix()), read_file(groups_path(prefix)));
      summary.comm_groups = groups_path(output_prefix);
    }
  } else if (dp > 1) {
    nlohmann::ordered_json groups = nlohmann::ordered_json::object();
    for (uint64_t d = 0; d < dp; ++d) {
      std::vector<uint64_t> members(tp);
      for (uint64_t t = 0; t < tp; ++t) members[t] = t + tp * d;
      groups[std::to_string(d + 1)] = members;
    }
    write_file_atomic(groups_path(staged.staged_prefix()), groups.dump() + "\n");
    summary.comm_groups = groups_path(output_prefix);
  }
  staged.commit();
  return summary;
}

}  // namespace snr::et
