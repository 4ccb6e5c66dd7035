#include "et/synth/sampler.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_writer.h"

namespace snr::et::synth {
namespace {

constexpr uint64_t kMaxLength = 100'000'000;

// For each distinct scope in `master`, the group holding each rank.
struct GroupLayout {
  ProcessGroups groups{1};
  std::vector<GroupScope> scopes;
  std::vector<std::vector<GroupId>> group_of_rank;  // [scope][rank]
};

GroupLayout lay_out_groups(const MasterTrace& master, Rank npus) {
  GroupLayout layout;
  layout.groups = ProcessGroups(npus);
  for (const auto& record : master.records) {
    if (std::find(layout.scopes.begin(), layout.scopes.end(), record.scope) != layout.scopes.end()) continue;
    const GroupScope scope = record.scope;
    layout.scopes.push_back(scope);
    auto& of_rank = layout.group_of_rank.emplace_back(npus, ProcessGroups::world());
    if (scope.kind == GroupScope::Kind::kWorld) continue;
    if (scope.width == 0 || npus % scope.width != 0) {
      throw Error(fmt::format("the model uses process groups of scope '{}', which needs an NPU count divisible by {}; "
                              "--npus {} is not",
                              scope_name(scope), scope.width, npus));
    }
    const bool block = scope.kind == GroupScope::Kind::kBlock;
    const Rank group_count = block ? npus / scope.width : scope.width;
    const Rank group_size = block ? scope.width : npus / scope.width;
    if (group_size == npus) continue;  // one group spanning everything is the world group
    for (Rank g = 0; g < group_count; ++g) {
      std::vector<Rank> members;
      for (Rank k = 0; k < group_size; ++k) members.push_back(block ? g * scope.width + k : g + k * scope.width);
      const GroupId id = layout.groups.add(members);
      for (Rank m : members) of_rank[m] = id;
    }
  }
  return layout;
}

std::vector<ChakraProtoMsg::Node> project_rank(const MasterTrace& master, const GroupLayout& layout, Rank rank) {
  std::vector<ChakraProtoMsg::Node> nodes;
  nodes.reserve(2 * master.records.size());
  std::optional<uint64_t> previous;
  for (size_t i = 0; i < master.records.size(); ++i) {
    const MasterRecord& record = master.records[i];
    if (record.gap_micros > 0) {
      auto& compute = nodes.emplace_back();
      compute.set_id(nodes.size() - 1);
      compute.set_name(fmt::format("compute_{}", i));
      compute.set_type(ChakraProtoMsg::COMP_NODE);
      compute.set_duration_micros(record.gap_micros);
      if (previous) compute.add_data_deps(*previous);
      chakra::set_is_cpu_op(compute, false);
      previous = compute.id();
    }
    auto& coll = nodes.emplace_back();
    coll.set_id(nodes.size() - 1);
    std::string type_name = chakra::comm_type_name(record.comm_type);
    std::transform(type_name.begin(), type_name.end(), type_name.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
    coll.set_name(fmt::format("{}_{}", type_name, i));
    coll.set_type(ChakraProtoMsg::COMM_COLL_NODE);
    if (previous) coll.add_data_deps(*previous);
    chakra::set_is_cpu_op(coll, false);
    chakra::set_comm_type(coll, static_cast<ChakraProtoMsg::CollectiveCommType>(record.comm_type));
    chakra::set_comm_size(coll, static_cast<int64_t>(record.size_bytes));
    const size_t scope = static_cast<size_t>(std::find(layout.scopes.begin(), layout.scopes.end(), record.scope) -
                                             layout.scopes.begin());
    const GroupId group = layout.group_of_rank[scope][rank];
    if (group.index != 0) chakra::set_pg_name(coll, layout.groups.pg_name(group));
    previous = coll.id();
  }
  return nodes;
}

}  // namespace

MasterTrace sample_master_trace(const CommModel& model, const SampleOptions& options) {
  Random random(options.seed);
  uint64_t length = 0;
  if (options.length) {
    length = *options.length;
  } else {
    const std::vector<double> uniform(model.sequence_lengths.size(), 1.0);
    length = model.sequence_lengths.at(random.pick(uniform));
  }
  if (length == 0 || length > kMaxLength) {
    throw Error(fmt::format("sequence length {} is outside [1, {}]", length, kMaxLength));
  }
  if (model.types.empty() || model.scopes.empty()) throw Error("the model has no collective types");
  MasterTrace master;
  master.records.reserve(length);
  size_t type = random.pick(model.initial_type_probability);
  std::vector<std::optional<uint64_t>> last_size(model.types.size());
  std::optional<size_t> previous_type;
  for (uint64_t i = 0; i < length; ++i) {
    if (i > 0) type = random.pick(model.transition_probability.at(type));
    const TypeModel& tm = model.types[type];
    MasterRecord record;
    record.comm_type = tm.comm_type;
    // Draw every quantity on every step so one choice never shifts the
    // random stream of the others.
    const double repeat_draw = random.uniform();
    const uint64_t fresh_size = tm.sizes_bytes.sample(random);
    record.size_bytes = previous_type == type && last_size[type] && repeat_draw < tm.repeat_size_probability
                            ? *last_size[type]
                            : std::max<uint64_t>(1, fresh_size);
    record.scope = model.scopes.at(random.pick(tm.scope_probability));
    record.gap_micros = model.gaps_micros.sample(random);
    last_size[type] = record.size_bytes;
    previous_type = type;
    master.records.push_back(record);
  }
  return master;
}

ProcessGroups groups_for(const MasterTrace& master, Rank npus) { return lay_out_groups(master, npus).groups; }

Workload project_master_trace(const MasterTrace& master, Rank npus) {
  GroupLayout layout = lay_out_groups(master, npus);
  Workload workload;
  for (Rank r = 0; r < npus; ++r) workload.ranks.push_back(project_rank(master, layout, r));
  workload.groups = std::move(layout.groups);
  return workload;
}

void write_master_trace(const MasterTrace& master, Rank npus, const std::filesystem::path& prefix) {
  const GroupLayout layout = lay_out_groups(master, npus);
  write_rank_traces(
      prefix, npus,
      [&](Rank rank, chakra::EtWriter& writer) {
        for (const auto& node : project_rank(master, layout, rank)) writer.write(node);
      },
      layout.groups.size() > 1 ? layout.groups.to_json() : std::string());
}

}  // namespace snr::et::synth
