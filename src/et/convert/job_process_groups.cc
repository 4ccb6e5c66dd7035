#include "et/convert/job_process_groups.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "formats/chakra/process_group_init.h"

namespace snr::et_convert {
namespace {

using Members = std::vector<int64_t>;
using LocalName = std::pair<int64_t, std::string>;              // (rank, the trace's pg_name)
using Signature = std::vector<std::pair<int, uint64_t>>;        // (comm type, bytes) in order

bool communicates(const ConvertedNode& node) {
  return node.type == ConvertedNodeType::kCommColl || node.type == ConvertedNodeType::kCommSend ||
         node.type == ConvertedNodeType::kCommRecv;
}

Members range(int64_t size) {
  Members m;
  for (int64_t r = 0; r < size; ++r) m.push_back(r);
  return m;
}

bool is_integer(const std::string& name) {
  return !name.empty() && name.size() < 18 && std::all_of(name.begin(), name.end(), [](char c) {
           return c >= '0' && c <= '9';
         });
}

}  // namespace

JobProcessGroups unify_process_groups(std::vector<JobRank>& ranks, int64_t world_size) {
  JobProcessGroups out;
  int64_t world = world_size;
  if (world <= 0) {
    for (const auto& r : ranks) {
      world = std::max(world, r.graph->rank + 1);
      for (const auto& g : r.trace->process_groups) {
        if (g.ranks.empty()) world = std::max(world, g.group_size);
        for (int64_t m : g.ranks) world = std::max(world, m + 1);
      }
    }
  }

  // 1. What each trace describes.
  std::map<LocalName, Members> described;
  for (const auto& r : ranks) {
    for (const auto& g : r.trace->process_groups) {
      if (g.pg_name.empty()) continue;
      Members m = g.ranks.empty() ? range(g.group_size > 0 ? g.group_size : world) : g.ranks;
      const std::set<int64_t> distinct(m.begin(), m.end());
      if (m.empty() || distinct.size() != m.size() || *distinct.begin() < 0 || *distinct.rbegin() >= world) {
        out.notes.push_back(fmt::format("rank {}: group '{}' lists repeated ranks or ranks outside 0..{}: ignored",
                                        r.graph->rank, g.pg_name, world - 1));
        continue;
      }
      described.emplace(LocalName{r.graph->rank, g.pg_name}, std::move(m));
    }
  }

  // 2. What the comm nodes use, with each name's collective sequence.
  std::map<LocalName, Signature> used;
  std::map<LocalName, int64_t> record_group_size;
  for (const auto& r : ranks) {
    for (const auto& node : r.graph->nodes) {
      if (!communicates(node) || node.pg_name.empty()) continue;
      const LocalName key{r.graph->rank, node.pg_name};
      Signature& sig = used[key];
      if (node.type == ConvertedNodeType::kCommColl) {
        sig.emplace_back(static_cast<int>(node.comm_type.value_or(CollectiveType::kAllReduce)), node.comm_size_bytes);
      }
      if (node.comm_group_size > 0) record_group_size[key] = node.comm_group_size;
    }
  }

  std::map<LocalName, Members> resolved;
  std::map<Members, std::string> source;
  std::map<Signature, std::vector<LocalName>> undescribed;
  for (const auto& [key, sig] : used) {
    const auto it = described.find(key);
    if (it != described.end()) {
      resolved[key] = it->second;
      source.emplace(it->second, "described by process_group:init");
    } else if (key.second != "0") {
      undescribed[sig].push_back(key);
    }
  }
  // 3. By collective order and size across ranks.
  for (const auto& [sig, holders] : undescribed) {
    std::set<int64_t> holder_ranks;
    int64_t group_size = 0;
    for (const auto& key : holders) {
      holder_ranks.insert(key.first);
      const auto gs = record_group_size.find(key);
      if (gs != record_group_size.end()) group_size = std::max(group_size, gs->second);
    }
    std::vector<std::string> names;
    for (const auto& key : holders) names.push_back(fmt::format("rank {} '{}'", key.first, key.second));
    const auto size = static_cast<int64_t>(holders.size());
    if (holder_ranks.size() != holders.size()) {
      out.notes.push_back(fmt::format("groups {} have the same collectives on one rank: not resolved",
                                      fmt::join(names, ", ")));
      continue;
    }
    if (size < 2 && group_size < 2) {
      // One trace alone (the usual single-file convert): nothing to match it with.
      out.notes.push_back(fmt::format("group {}: no other rank's trace uses the same collectives: not resolved "
                                      "(give every rank's trace to one snr et convert)",
                                      fmt::join(names, ", ")));
      continue;
    }
    if (group_size == 0) group_size = size;
    if (size < 2 || size % group_size != 0) {
      out.notes.push_back(fmt::format("groups {}: {} rank(s) share their collectives but the records say groups "
                                      "of {}: not resolved",
                                      fmt::join(names, ", "), size, group_size));
      continue;
    }
    if (size > group_size) {
      out.notes.push_back(fmt::format("groups {}: {} ranks share their collectives; assumed {} groups of "
                                      "consecutive ranks",
                                      fmt::join(names, ", "), size, size / group_size));
    }
    for (int64_t start = 0; start < size; start += group_size) {
      Members m;
      for (int64_t k = start; k < start + group_size; ++k) m.push_back(holders[static_cast<size_t>(k)].first);
      for (int64_t k = start; k < start + group_size; ++k) resolved[holders[static_cast<size_t>(k)]] = m;
      source.emplace(m, "by collective order and size");
    }
  }

  // One name per group for the whole job.
  std::map<Members, std::set<std::string>> candidates;
  for (const auto& [key, m] : described) candidates[m].insert(key.second);
  for (const auto& [key, m] : resolved) candidates[m].insert(key.second);
  std::map<std::string, size_t> claims;
  for (const auto& [m, names] : candidates) {
    for (const auto& n : names) ++claims[n];
  }
  const Members world_members = range(world);
  std::map<Members, std::string> name_of;
  int64_t next = 1;
  for (const auto& [m, names] : candidates) {
    // PyTorch's default group keeps "0" whatever other names it has.
    if (m == world_members && names.count("0") != 0 && claims["0"] == 1) {
      name_of[m] = "0";
    } else if (names.size() == 1 && claims[*names.begin()] == 1 && (*names.begin() != "0" || m == world_members)) {
      name_of[m] = *names.begin();
      if (is_integer(*names.begin())) next = std::max<int64_t>(next, std::stoll(*names.begin()) + 1);
    }
  }
  for (const auto& [m, names] : candidates) {
    if (name_of.count(m) == 0) name_of[m] = std::to_string(next++);
  }
  for (const auto& [m, name] : name_of) {
    const auto s = source.find(m);
    out.groups.push_back({name, m, s == source.end() ? "described by process_group:init (unused)" : s->second});
  }
  std::sort(out.groups.begin(), out.groups.end(), [](const auto& a, const auto& b) { return a.name < b.name; });

  std::vector<chakra::ProcessGroupMembers> init_groups;
  for (const auto& g : out.groups) init_groups.push_back({g.name, {g.ranks.begin(), g.ranks.end()}});
  const std::string values = chakra::process_group_init_values(init_groups);
  for (auto& r : ranks) {
    uint64_t max_id = 0;
    for (auto& node : r.graph->nodes) {
      max_id = std::max(max_id, node.id);
      if (!communicates(node) || node.pg_name.empty()) continue;
      const auto it = resolved.find({r.graph->rank, node.pg_name});
      if (it == resolved.end()) continue;
      const std::string& name = name_of.at(it->second);
      if (std::find(it->second.begin(), it->second.end(), r.graph->rank) == it->second.end()) {
        out.notes.push_back(fmt::format("rank {}: node {} runs on group '{}', which does not list rank {}",
                                        r.graph->rank, node.id, name, r.graph->rank));
      }
      if (name != node.pg_name) {
        node.pg_name = name;
        ++out.renamed_nodes;
      }
    }
    if (out.groups.empty()) continue;
    ConvertedNode meta;
    meta.id = max_id + 1;
    meta.name = chakra::kProcessGroupInitNode;
    meta.type = ConvertedNodeType::kMetadata;
    meta.input_values = r.graph->texts->intern(values);
    meta.input_shapes = "[[]]";
    meta.input_types = "[\"String\"]";
    r.graph->nodes.insert(r.graph->nodes.begin(), std::move(meta));
  }
  return out;
}

std::string job_comm_groups_json(const JobProcessGroups& groups) {
  std::string text = "{";
  for (size_t i = 0; i < groups.groups.size(); ++i) {
    const auto& group = groups.groups[i];
    text += fmt::format("{}\n  {}: {}", i == 0 ? "" : ",", nlohmann::json(group.name).dump(),
                        nlohmann::json(group.ranks).dump());
  }
  text += groups.groups.empty() ? "}\n" : "\n}\n";
  return text;
}

}  // namespace snr::et_convert
