// A small C++ API for composing Chakra execution traces of N ranks by hand
// (the test-case generator of the Chakra paper): compute nodes, collectives
// over process groups, point-to-point send/recv and dependencies.
//
//   WorkloadBuilder w(4);
//   GroupId tp = w.add_group({0, 1});
//   NodeId fwd = w.compute(0, "fwd", {.num_ops = 1 << 20, .tensor_size_bytes = 4096, .duration_micros = 10});
//   w.collective(0, "ar", ChakraProtoMsg::ALL_REDUCE, 1 << 20, tp, {fwd});
//   w.write("out/trace");   // out/trace.0.et ... out/trace.3.et (+ comm groups JSON)
//
// Invariants the builder guarantees, so every generated trace replays:
// dependencies only point at nodes that already exist (no cycles, nothing
// dangling), and collectives on one process group are chained in program
// order by a control dependency, as on a NCCL communicator.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/chakra/et_def.pb.h"

namespace snr::chakra {
class EtWriter;
}  // namespace snr::chakra

namespace snr::et {

using NodeId = uint64_t;
using Rank = uint32_t;

struct GroupId {
  uint32_t index = 0;
  friend bool operator==(GroupId, GroupId) = default;
};

// Process groups of a workload. Group 0 is the world group (every rank); it
// is written without a pg_name, the way ASTRA-sim's microbenchmarks are.
// Other groups get pg_name "<index>" and an entry in the comm-groups JSON.
class ProcessGroups {
 public:
  explicit ProcessGroups(Rank npus);
  // Ranks must be distinct and < npus; at least one. Throws snr::Error.
  GroupId add(std::vector<Rank> ranks);
  [[nodiscard]] static GroupId world() { return GroupId{0}; }
  [[nodiscard]] const std::vector<Rank>& members(GroupId group) const;
  [[nodiscard]] size_t size() const { return members_.size(); }
  [[nodiscard]] Rank npus() const { return npus_; }
  // "" for the world group, otherwise the decimal index.
  [[nodiscard]] std::string pg_name(GroupId group) const;
  // Group named by a pg_name attribute ("" = world); nullopt when unknown.
  [[nodiscard]] std::optional<GroupId> find(std::string_view pg_name) const;

  // ASTRA-sim comm-group configuration: {"1": [0, 1], "2": [2, 3]}.
  [[nodiscard]] std::string to_json() const;
  // Parses to_json() output; throws snr::Error naming `source` on bad input.
  static ProcessGroups from_json(std::string_view text, Rank npus, const std::string& source);

 private:
  Rank npus_;
  std::vector<std::vector<Rank>> members_;
};

struct ComputeSpec {
  uint64_t num_ops = 0;
  uint64_t tensor_size_bytes = 0;
  uint64_t duration_micros = 0;
};

struct Workload {
  ProcessGroups groups{1};
  std::vector<std::vector<ChakraProtoMsg::Node>> ranks;
};

// `<prefix>.comm_groups.json`, written beside the rank traces when a workload
// uses groups other than the world group.
std::filesystem::path comm_groups_path(const std::filesystem::path& prefix);

// Writes `<prefix>.<rank>.et` for ranks 0..npus-1, one file open at a time:
// `emit` writes rank r's nodes. Files are staged in a hidden folder beside
// the prefix and moved into place only when all are complete, together with
// `<prefix>.comm_groups.json` (written when `comm_groups_json` is non-empty,
// removed otherwise). Stale `<prefix>.<k>.et` with k >= npus are removed so
// the prefix names exactly this workload.
void write_rank_traces(const std::filesystem::path& prefix, Rank npus,
                       const std::function<void(Rank, chakra::EtWriter&)>& emit, const std::string& comm_groups_json);

// Writes `<prefix>.<rank>.et` for every rank (+ comm groups when needed)
// through write_rank_traces().
void write_workload(const Workload& workload, const std::filesystem::path& prefix);
// Reads what write_workload() wrote (any Chakra rank traces with that prefix,
// comm groups JSON optional). Throws snr::Error.
Workload read_workload(const std::filesystem::path& prefix);

class WorkloadBuilder {
 public:
  explicit WorkloadBuilder(Rank npus);

  GroupId add_group(std::vector<Rank> ranks) { return workload_.groups.add(std::move(ranks)); }
  [[nodiscard]] const ProcessGroups& groups() const { return workload_.groups; }
  [[nodiscard]] Rank npus() const { return workload_.groups.npus(); }

  NodeId compute(Rank rank, std::string_view name, ComputeSpec spec, std::span<const NodeId> deps = {});
  NodeId compute(Rank rank, std::string_view name, ComputeSpec spec, std::initializer_list<NodeId> deps) {
    return compute(rank, name, spec, std::span<const NodeId>(deps.begin(), deps.size()));
  }
  // `rank` must be a member of `group`.
  NodeId collective(Rank rank, std::string_view name, ChakraProtoMsg::CollectiveCommType type, uint64_t size_bytes,
                    GroupId group, std::span<const NodeId> deps = {});
  NodeId collective(Rank rank, std::string_view name, ChakraProtoMsg::CollectiveCommType type, uint64_t size_bytes,
                    GroupId group, std::initializer_list<NodeId> deps) {
    return collective(rank, name, type, size_bytes, group, std::span<const NodeId>(deps.begin(), deps.size()));
  }
  NodeId send(Rank rank, Rank dst, uint64_t size_bytes, int32_t tag, std::span<const NodeId> deps = {});
  NodeId recv(Rank rank, Rank src, uint64_t size_bytes, int32_t tag, std::span<const NodeId> deps = {});
  NodeId send(Rank rank, Rank dst, uint64_t size_bytes, int32_t tag, std::initializer_list<NodeId> deps) {
    return send(rank, dst, size_bytes, tag, std::span<const NodeId>(deps.begin(), deps.size()));
  }
  NodeId recv(Rank rank, Rank src, uint64_t size_bytes, int32_t tag, std::initializer_list<NodeId> deps) {
    return recv(rank, src, size_bytes, tag, std::span<const NodeId>(deps.begin(), deps.size()));
  }
  // Adds a data dependency child -> parent; parent must be older than child.
  void depend(Rank rank, NodeId child, NodeId parent);

  [[nodiscard]] size_t node_count(Rank rank) const;
  [[nodiscard]] const Workload& workload() const { return workload_; }
  void write(const std::filesystem::path& prefix) const { write_workload(workload_, prefix); }

 private:
  ChakraProtoMsg::Node& new_node(Rank rank, std::string_view name, ChakraProtoMsg::NodeType type,
                                 std::span<const NodeId> deps);
  void check_rank(Rank rank, std::string_view what) const;

  Workload workload_;
  // Last collective per (rank, group), to chain them in program order.
  std::vector<std::vector<std::optional<NodeId>>> last_collective_;
};

}  // namespace snr::et
