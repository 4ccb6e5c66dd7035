#include <fmt/format.h>

#include <limits>
#include <unordered_map>

#include "common/error.h"
#include "dsim/config/aux_config.h"
#include "dsim/workload/trace_comm_groups.h"
#include "et/critical_path/builders.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/process_group_init.h"
#include "formats/chakra/rank_files.h"

namespace snr::et::critical_path {
namespace {

namespace pb = ChakraProtoMsg;

// Measured times are microseconds since the epoch: at most ~2^63 ns.
constexpr uint64_t kMaxMicros = static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / 1000) / 2;

}  // namespace

MeasuredTrace from_measured_trace(const std::filesystem::path& prefix) {
  const auto files = chakra::resolve_trace_argument(prefix);
  const uint64_t ranks = files.size();
  const std::filesystem::path groups_file = prefix.string() + ".comm_groups.json";
  const bool groups_from_file = std::filesystem::exists(groups_file);
  // Without the file, the traces' own process_group:init nodes (read on the way).
  dsim::CommGroups groups = groups_from_file ? dsim::load_comm_groups(groups_file, ranks) : dsim::CommGroups{};
  struct PendingGroup {
    uint32_t rank, index;
    std::string pg_name, where;
  };
  std::vector<PendingGroup> pending;  // collectives, resolved once every group is known
  MeasuredTrace out;
  out.job.source = "measured";
  out.job.ranks.resize(ranks);
  uint64_t timed = 0;
  pb::Node proto;
  for (const auto& file : files) {
    auto& nodes = out.job.ranks[file.rank].nodes;
    std::unordered_map<uint64_t, uint32_t> index_of;
    std::vector<std::vector<uint64_t>> deps;
    auto reader = chakra::EtReader::open(file.path);
    while (reader.next(proto)) {
      const auto where = [&] { return fmt::format("{}: node {} ({})", file.path.string(), proto.id(), proto.name()); };
      if (!index_of.emplace(proto.id(), static_cast<uint32_t>(nodes.size())).second) {
        throw Error(fmt::format("{}: node id used twice", where()));
      }
      const chakra::NodeView view(proto);
      TimedNode n;
      n.id = proto.id();
      n.name = proto.name();
      switch (proto.type()) {
        case pb::COMP_NODE:
          n.category = view.is_cpu_op().value_or(false) ? Category::kHost : Category::kCompute;
          break;
        case pb::COMM_COLL_NODE:
        case pb::COMM_SEND_NODE:
        case pb::COMM_RECV_NODE: n.category = Category::kCommunication; break;
        default: n.instant = true; break;
      }
      if (proto.type() == pb::METADATA_NODE && proto.name() == chakra::kProcessGroupInitNode && !groups_from_file) {
        dsim::parse_process_group_metadata(proto.inputs().values(), where(), ranks, groups);
      }
      if (proto.type() == pb::COMM_COLL_NODE) {
        n.comm = CommRole::kCollective;
        pending.push_back({static_cast<uint32_t>(file.rank), static_cast<uint32_t>(nodes.size()),
                           view.pg_name().value_or(""), where()});
      } else if (proto.type() == pb::COMM_SEND_NODE || proto.type() == pb::COMM_RECV_NODE) {
        const bool send = proto.type() == pb::COMM_SEND_NODE;
        n.comm = send ? CommRole::kSend : CommRole::kRecv;
        const auto peer = send ? view.comm_dst() : view.comm_src();
        if (!peer.has_value() || *peer < 0 || static_cast<uint64_t>(*peer) >= ranks) {
          throw Error(fmt::format("{}: {} must name one of the {} ranks", where(), send ? "comm_dst" : "comm_src",
                                  ranks));
        }
        n.peer = *peer;
        n.tag = view.comm_tag().value_or(0);
      }
      if (!n.instant) {
        if (proto.start_time_micros() == 0) {
          ++out.untimed_nodes;
          n.instant = true;
        } else {
          if (proto.start_time_micros() > kMaxMicros || proto.duration_micros() > kMaxMicros) {
            throw Error(fmt::format("{}: start {} us or duration {} us is out of range: valid 0 .. {} us", where(),
                                    proto.start_time_micros(), proto.duration_micros(), kMaxMicros));
          }
          n.start_ns = static_cast<int64_t>(proto.start_time_micros()) * 1000;
          n.end_ns = n.start_ns + static_cast<int64_t>(proto.duration_micros()) * 1000;
          ++timed;
        }
      }
      std::vector<uint64_t> node_deps(proto.data_deps().begin(), proto.data_deps().end());
      node_deps.insert(node_deps.end(), proto.ctrl_deps().begin(), proto.ctrl_deps().end());
      deps.push_back(std::move(node_deps));
      nodes.push_back(std::move(n));
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (const uint64_t dep : deps[i]) {
        const auto it = index_of.find(dep);
        if (it == index_of.end()) {
          throw Error(fmt::format("{}: node {} ({}) depends on node {}, which the trace does not have",
                                  file.path.string(), nodes[i].id, nodes[i].name, dep));
        }
        nodes[i].parents.push_back(it->second);
      }
    }
  }
  for (const auto& [name, members] : groups.groups) out.job.groups.push_back(members);
  for (const PendingGroup& p : pending) {
    out.job.ranks[p.rank].nodes[p.index].group =
        with_error_context(p.where, [&] { return dsim::group_index_of(groups, p.pg_name); });
  }
  if (timed == 0) {
    throw Error(fmt::format("{}: no node carries a measured start time (start_time_micros); give the simulator's "
                            "configurations to simulate the trace instead",
                            prefix.string()));
  }
  // Untimed nodes and instants without parents start with the job.
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const auto& rank : out.job.ranks) {
    for (const auto& n : rank.nodes) {
      if (!n.instant) origin = std::min(origin, n.start_ns);
    }
  }
  for (auto& rank : out.job.ranks) {
    for (auto& n : rank.nodes) {
      if (n.instant) n.start_ns = n.end_ns = origin;
    }
    settle_instants(rank);
  }
  return out;
}

}  // namespace snr::et::critical_path
