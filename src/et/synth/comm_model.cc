#include "et/synth/comm_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/error.h"
#include "formats/chakra/attributes.h"

namespace snr::et::synth {
namespace {

// Scope of `group` within a workload of `npus` ranks; nullopt when the group
// is not one cell of a regular partition.
std::optional<GroupScope> classify(std::vector<Rank> members, Rank npus) {
  std::sort(members.begin(), members.end());
  const auto size = static_cast<uint32_t>(members.size());
  if (size == npus) return GroupScope{GroupScope::Kind::kWorld, 0};
  bool consecutive = true;
  for (size_t i = 1; i < members.size(); ++i) consecutive = consecutive && members[i] == members[i - 1] + 1;
  if (consecutive && npus % size == 0 && members.front() % size == 0) return GroupScope{GroupScope::Kind::kBlock, size};
  if (size >= 2) {
    const uint32_t stride = members[1] - members[0];
    bool arithmetic = true;
    for (size_t i = 1; i < members.size(); ++i) arithmetic = arithmetic && members[i] - members[i - 1] == stride;
    if (arithmetic && stride > 1 && static_cast<uint64_t>(stride) * size == npus && members.front() < stride) {
      return GroupScope{GroupScope::Kind::kStrided, stride};
    }
  }
  return std::nullopt;
}

std::vector<double> normalized(const std::vector<double>& counts) {
  double total = 0;
  for (double c : counts) total += c;
  std::vector<double> out(counts.size(), 0);
  if (total <= 0) return out;
  for (size_t i = 0; i < counts.size(); ++i) out[i] = counts[i] / total;
  return out;
}

}  // namespace

std::string scope_name(const GroupScope& scope) {
  switch (scope.kind) {
    case GroupScope::Kind::kWorld: return "world";
    case GroupScope::Kind::kBlock: return fmt::format("blocks of {}", scope.width);
    case GroupScope::Kind::kStrided: return fmt::format("stride {}", scope.width);
  }
  return "?";
}

MasterTrace extract_master_trace(const Workload& workload) {
  MasterTrace master;
  if (workload.ranks.empty()) return master;
  const Rank npus = workload.groups.npus();
  uint64_t gap = 0;
  for (const auto& node : workload.ranks[0]) {
    chakra::NodeView view(node);
    switch (node.type()) {
      case ChakraProtoMsg::COMP_NODE:
        gap += node.duration_micros();
        break;
      case ChakraProtoMsg::COMM_SEND_NODE:
      case ChakraProtoMsg::COMM_RECV_NODE:
        ++master.skipped_point_to_point;
        break;
      case ChakraProtoMsg::COMM_COLL_NODE: {
        const auto pg = view.pg_name().value_or("");
        const auto group = workload.groups.find(pg);
        if (!group) throw Error(fmt::format("rank 0 node {}: unknown process group '{}'", node.id(), pg));
        const auto scope = classify(workload.groups.members(*group), npus);
        if (!scope) {
          ++master.skipped_irregular_groups;
          break;
        }
        const auto type = view.comm_type();
        const auto size = view.comm_size_bytes();
        if (!type || (!size && chakra::collective_needs_size(*type))) {
          throw Error(fmt::format("rank 0 node {}: collective without comm_type or comm_size", node.id()));
        }
        master.records.push_back(MasterRecord{*type, std::max<uint64_t>(1, size.value_or(0)), *scope, gap});
        gap = 0;
        break;
      }
      default:
        break;
    }
  }
  return master;
}

CommModel fit_comm_model(const std::vector<std::pair<std::string, Workload>>& inputs) {
  CommModel model;
  std::vector<MasterTrace> masters;
  std::map<int64_t, size_t> type_index;
  for (const auto& [name, workload] : inputs) {
    MasterTrace master = with_error_context(name, [&w = workload] { return extract_master_trace(w); });
    model.inputs.push_back(FitInput{name, workload.groups.npus(), master.records.size(), master.skipped_point_to_point,
                                    master.skipped_irregular_groups});
    for (const auto& r : master.records) {
      type_index.emplace(r.comm_type, 0);
      if (std::find(model.scopes.begin(), model.scopes.end(), r.scope) == model.scopes.end()) model.scopes.push_back(r.scope);
    }
    if (!master.records.empty()) masters.push_back(std::move(master));
  }
  if (masters.empty()) throw Error("no collectives found in the inputs: nothing to fit");
  std::sort(model.scopes.begin(), model.scopes.end(), [](const GroupScope& a, const GroupScope& b) {
    return std::pair(static_cast<int>(a.kind), a.width) < std::pair(static_cast<int>(b.kind), b.width);
  });
  const size_t type_count = type_index.size();
  const size_t scope_count = model.scopes.size();
  {
    size_t i = 0;
    for (auto& [type, index] : type_index) {
      index = i++;
      model.types.emplace_back().comm_type = type;
    }
  }
  const auto scope_of = [&](const GroupScope& s) {
    return static_cast<size_t>(std::find(model.scopes.begin(), model.scopes.end(), s) - model.scopes.begin());
  };

  std::vector<double> initial(type_count, 0);
  std::vector<std::vector<double>> transitions(type_count, std::vector<double>(type_count, 0));
  std::vector<std::vector<double>> scope_counts(type_count, std::vector<double>(scope_count, 0));
  std::vector<std::vector<uint64_t>> sizes(type_count);
  std::vector<uint64_t> same_type_pairs(type_count, 0), same_size_pairs(type_count, 0);
  std::vector<uint64_t> gaps;
  for (const auto& master : masters) {
    model.sequence_lengths.push_back(master.records.size());
    for (size_t i = 0; i < master.records.size(); ++i) {
      const auto& r = master.records[i];
      const size_t t = type_index.at(r.comm_type);
      ++model.types[t].count;
      sizes[t].push_back(r.size_bytes);
      scope_counts[t][scope_of(r.scope)] += 1;
      gaps.push_back(r.gap_micros);
      if (i == 0) {
        initial[t] += 1;
      } else {
        const auto& prev = master.records[i - 1];
        const size_t p = type_index.at(prev.comm_type);
        transitions[p][t] += 1;
        if (p == t) {
          ++same_type_pairs[t];
          if (prev.size_bytes == r.size_bytes) ++same_size_pairs[t];
        }
      }
    }
  }
  std::sort(model.sequence_lengths.begin(), model.sequence_lengths.end());
  std::vector<double> marginal(type_count);
  for (size_t t = 0; t < type_count; ++t) marginal[t] = static_cast<double>(model.types[t].count);
  marginal = normalized(marginal);
  model.initial_type_probability = normalized(initial);
  for (size_t t = 0; t < type_count; ++t) {
    auto row = normalized(transitions[t]);
    // A type only ever seen last has no observed successor: use the mix.
    model.transition_probability.push_back(std::all_of(row.begin(), row.end(), [](double p) { return p == 0; }) ? marginal
                                                                                                            : row);
    TypeModel& tm = model.types[t];
    tm.sizes_bytes = fit_value_model(sizes[t], 0.0);
    tm.scope_probability = normalized(scope_counts[t]);
    if (same_type_pairs[t] > 0) {
      // Remove agreement expected by chance when drawing atoms independently.
      double chance = 0;
      for (const auto& atom : tm.sizes_bytes.atoms) chance += atom.probability * atom.probability;
      const double observed = static_cast<double>(same_size_pairs[t]) / static_cast<double>(same_type_pairs[t]);
      tm.repeat_size_probability = chance >= 1 ? 0 : std::clamp((observed - chance) / (1 - chance), 0.0, 1.0);
    }
  }
  model.gaps_micros = fit_value_model(gaps, 1.0);
  return model;
}

}  // namespace snr::et::synth
