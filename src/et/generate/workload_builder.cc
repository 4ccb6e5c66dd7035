#include "et/generate/workload_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "common/output.h"
#include "common/progress.h"
#include "common/json_input.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/rank_files.h"

namespace snr::et {

ProcessGroups::ProcessGroups(Rank npus) : npus_(npus) {
  if (npus == 0) throw Error("a workload needs at least one rank");
  std::vector<Rank> all(npus);
  for (Rank r = 0; r < npus; ++r) all[r] = r;
  members_.push_back(std::move(all));
}

GroupId ProcessGroups::add(std::vector<Rank> ranks) {
  if (ranks.empty()) throw Error("process group has no ranks");
  std::vector<Rank> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] >= npus_) {
      throw Error(fmt::format("process group names rank {} but the workload has {} ranks", sorted[i], npus_));
    }
    if (i > 0 && sorted[i] == sorted[i - 1]) throw Error(fmt::format("process group lists rank {} twice", sorted[i]));
  }
  members_.push_back(std::move(ranks));
  return GroupId{static_cast<uint32_t>(members_.size() - 1)};
}

const std::vector<Rank>& ProcessGroups::members(GroupId group) const {
  if (group.index >= members_.size()) {
    throw Error(fmt::format("unknown process group {} ({} groups exist)", group.index, members_.size()));
  }
  return members_[group.index];
}

std::string ProcessGroups::pg_name(GroupId group) const {
  (void)members(group);
  return group.index == 0 ? std::string() : std::to_string(group.index);
}

std::optional<GroupId> ProcessGroups::find(std::string_view pg_name) const {
  if (pg_name.empty()) return world();
  uint32_t index = 0;
  auto [ptr, ec] = std::from_chars(pg_name.data(), pg_name.data() + pg_name.size(), index);
  if (ec != std::errc() || ptr != pg_name.data() + pg_name.size() || index == 0 || index >= members_.size()) {
    return std::nullopt;
  }
  return GroupId{index};
}

std::string ProcessGroups::to_json() const {
  // Keys in group order (not nlohmann's sorted order) for readable diffs.
  std::string out = "{";
  for (size_t g = 1; g < members_.size(); ++g) {
    out += fmt::format("{}\n  \"{}\": [{}]", g == 1 ? "" : ",", g, fmt::join(members_[g], ", "));
  }
  out += members_.size() > 1 ? "\n}\n" : "}\n";
  return out;
}

ProcessGroups ProcessGroups::from_json(std::string_view text, Rank npus, const std::string& source) {
  const nlohmann::ordered_json root = parse_ordered_json_input(text, source);
  if (!root.is_object()) throw Error(fmt::format("{}: expected an object of group id -> rank list", source));
  ProcessGroups groups(npus);
  uint32_t expected = 1;
  for (const auto& [key, value] : root.items()) {
    if (key != std::to_string(expected)) {
      throw Error(fmt::format("{}: group '{}' out of sequence; expected group ids 1, 2, ... in order", source, key));
    }
    if (!value.is_array()) throw Error(fmt::format("{}: group '{}' is not a list of ranks", source, key));
    std::vector<Rank> ranks;
    for (const auto& r : value) {
      if (!r.is_number_unsigned()) throw Error(fmt::format("{}: group '{}' has a non-integer rank", source, key));
      const uint64_t rank = r.get<uint64_t>();
      if (rank >= npus) {
        throw Error(fmt::format("{}: group '{}' names rank {} but there are {} traces", source, key, rank, npus));
      }
      ranks.push_back(static_cast<Rank>(rank));
    }
    with_error_context(fmt::format("{}: group '{}'", source, key), [&] { return groups.add(std::move(ranks)); });
    ++expected;
  }
  return groups;
}

std::filesystem::path comm_groups_path(const std::filesystem::path& prefix) {
  return std::filesystem::path(prefix.string() + ".comm_groups.json");
}

void write_rank_traces(const std::filesystem::path& prefix, Rank npus,
                       const std::function<void(Rank, chakra::EtWriter&)>& emit, const std::string& comm_groups_json) {
  namespace fs = std::filesystem;
  // Staged in a hidden folder beside the prefix (removed on errors and on
  // SIGINT/SIGTERM), moved into place only when every rank is complete.
  output::StagedPrefix staged(prefix);
  const fs::path staged_prefix = staged.staged_prefix();
  ProgressMeter progress(fmt::format("writing {}", prefix.string()), npus, "ranks");
  ChakraProtoMsg::GlobalMetadata metadata;
  metadata.set_version("0.0.4");
  for (Rank rank = 0; rank < npus; ++rank) {
    chakra::EtWriter writer(chakra::rank_trace_path(staged_prefix, rank), metadata);
    emit(rank, writer);
    writer.commit();
    if (rank == 0) {
      // Ranks of one workload are about the same size: rank 0 times the
      // rank count is the estimate, checked before writing the rest.
      const uint64_t rank_bytes = fs::file_size(chakra::rank_trace_path(staged_prefix, 0));
      output::check_output_fits(prefix, rank_bytes * npus + comm_groups_json.size(), npus + 1ull,
                                fmt::format("{} rank traces of about {} bytes each", npus, rank_bytes));
    }
    progress.update(rank + 1ull);
  }
  progress.finish();
  if (!comm_groups_json.empty()) write_file_atomic(comm_groups_path(staged_prefix), comm_groups_json);
  for (const auto& stale : chakra::discover_rank_traces(prefix)) {
    if (stale.rank >= npus) fs::remove(stale.path);
  }
  if (comm_groups_json.empty()) fs::remove(comm_groups_path(prefix));
  staged.commit();
}

void write_workload(const Workload& workload, const std::filesystem::path& prefix) {
  write_rank_traces(
      prefix, static_cast<Rank>(workload.ranks.size()),
      [&](Rank rank, chakra::EtWriter& writer) {
        for (const auto& node : workload.ranks[rank]) writer.write(node);
      },
      workload.groups.size() > 1 ? workload.groups.to_json() : std::string());
}

Workload read_workload(const std::filesystem::path& prefix) {
  const auto files = chakra::resolve_trace_argument(prefix);
  Workload workload;
  const auto npus = static_cast<Rank>(files.size());
  const auto groups_path = comm_groups_path(prefix);
  workload.groups = std::filesystem::exists(groups_path)
                        ? ProcessGroups::from_json(read_file(groups_path), npus, groups_path.string())
                        : ProcessGroups(npus);
  for (const auto& file : files) workload.ranks.push_back(chakra::read_trace(file.path).nodes);
  return workload;
}

WorkloadBuilder::WorkloadBuilder(Rank npus) {
  workload_.groups = ProcessGroups(npus);
  workload_.ranks.resize(npus);
  last_collective_.resize(npus);
}

void WorkloadBuilder::check_rank(Rank rank, std::string_view what) const {
  if (rank >= npus()) throw Error(fmt::format("{}: rank {} out of range (workload has {} ranks)", what, rank, npus()));
}

size_t WorkloadBuilder::node_count(Rank rank) const {
  check_rank(rank, "node_count");
  return workload_.ranks[rank].size();
}

ChakraProtoMsg::Node& WorkloadBuilder::new_node(Rank rank, std::string_view name, ChakraProtoMsg::NodeType type,
                                                std::span<const NodeId> deps) {
  check_rank(rank, fmt::format("node '{}'", name));
  auto& nodes = workload_.ranks[rank];
  const NodeId id = nodes.size();
  for (NodeId dep : deps) {
    if (dep >= id) {
      throw Error(fmt::format("rank {} node {} '{}': dependency on node {} which does not exist yet", rank, id, name, dep));
    }
  }
  auto& node = nodes.emplace_back();
  node.set_id(id);
  node.set_name(std::string(name));
  node.set_type(type);
  for (NodeId dep : deps) node.add_data_deps(dep);
  chakra::set_is_cpu_op(node, false);
  return node;
}

NodeId WorkloadBuilder::compute(Rank rank, std::string_view name, ComputeSpec spec, std::span<const NodeId> deps) {
  auto& node = new_node(rank, name, ChakraProtoMsg::COMP_NODE, deps);
  chakra::set_num_ops(node, static_cast<int64_t>(spec.num_ops));
  chakra::set_tensor_size(node, spec.tensor_size_bytes);
  node.set_duration_micros(spec.duration_micros);
  return node.id();
}

NodeId WorkloadBuilder::collective(Rank rank, std::string_view name, ChakraProtoMsg::CollectiveCommType type,
                                   uint64_t size_bytes, GroupId group, std::span<const NodeId> deps) {
  const auto& members = workload_.groups.members(group);
  if (std::find(members.begin(), members.end(), rank) == members.end()) {
    throw Error(fmt::format("collective '{}': rank {} is not a member of process group {}", name, rank, group.index));
  }
  auto& node = new_node(rank, name, ChakraProtoMsg::COMM_COLL_NODE, deps);
  chakra::set_comm_type(node, type);
  chakra::set_comm_size(node, static_cast<int64_t>(size_bytes));
  if (group.index != 0) chakra::set_pg_name(node, workload_.groups.pg_name(group));
  auto& slots = last_collective_[rank];
  if (slots.size() <= group.index) slots.resize(group.index + 1);
  if (slots[group.index]) node.add_ctrl_deps(*slots[group.index]);
  slots[group.index] = node.id();
  return node.id();
}

NodeId WorkloadBuilder::send(Rank rank, Rank dst, uint64_t size_bytes, int32_t tag, std::span<const NodeId> deps) {
  check_rank(dst, "send destination");
  if (dst == rank) throw Error(fmt::format("rank {} sends to itself", rank));
  auto& node = new_node(rank, fmt::format("send_to_{}_tag_{}", dst, tag), ChakraProtoMsg::COMM_SEND_NODE, deps);
  chakra::set_comm_src(node, static_cast<int32_t>(rank));
  chakra::set_comm_dst(node, static_cast<int32_t>(dst));
  chakra::set_comm_size(node, static_cast<int64_t>(size_bytes));
  chakra::set_comm_tag(node, tag);
  return node.id();
}

NodeId WorkloadBuilder::recv(Rank rank, Rank src, uint64_t size_bytes, int32_t tag, std::span<const NodeId> deps) {
  check_rank(src, "recv source");
  if (src == rank) throw Error(fmt::format("rank {} receives from itself", rank));
  auto& node = new_node(rank, fmt::format("recv_from_{}_tag_{}", src, tag), ChakraProtoMsg::COMM_RECV_NODE, deps);
  chakra::set_comm_src(node, static_cast<int32_t>(src));
  chakra::set_comm_dst(node, static_cast<int32_t>(rank));
  chakra::set_comm_size(node, static_cast<int64_t>(size_bytes));
  chakra::set_comm_tag(node, tag);
  return node.id();
}

void WorkloadBuilder::depend(Rank rank, NodeId child, NodeId parent) {
  check_rank(rank, "depend");
  auto& nodes = workload_.ranks[rank];
  if (child >= nodes.size() || parent >= child) {
    throw Error(fmt::format("rank {}: dependency {} -> {} must point from an existing node to an older one", rank,
                            child, parent));
  }
  nodes[child].add_data_deps(parent);
}

}  // namespace snr::et
