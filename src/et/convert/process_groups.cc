#include "et/convert/process_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "et/convert/comm_record.h"

namespace snr::et_convert {

ProcessGroupDerivation derive_process_groups(const pytorch::HostTrace& trace) {
  ProcessGroupDerivation out;
  std::map<std::string, DerivedProcessGroup> by_name;
  for (const auto& group : trace.process_groups) {
    if (group.pg_name.empty()) {
      out.notes.push_back("a process group without a pg_name was skipped");
      continue;
    }
    DerivedProcessGroup derived;
    derived.name = group.pg_name;
    if (!group.ranks.empty()) {
      derived.ranks = group.ranks;
    } else if (group.group_size > 0) {
      derived.every_rank = true;
      for (int64_t r = 0; r < group.group_size; ++r) derived.ranks.push_back(r);
    } else {
      out.notes.push_back(fmt::format("process group '{}' lists no ranks and no group_size: skipped", group.pg_name));
      continue;
    }
    const std::set<int64_t> distinct(derived.ranks.begin(), derived.ranks.end());
    if (distinct.size() != derived.ranks.size() || *distinct.begin() < 0) {
      out.notes.push_back(fmt::format("process group '{}' has repeated or negative ranks: skipped", group.pg_name));
      continue;
    }
    const auto [it, inserted] = by_name.emplace(derived.name, derived);
    if (!inserted && it->second.ranks != derived.ranks) {
      out.notes.push_back(fmt::format("process group '{}' is described twice with different ranks: the first kept",
                                      group.pg_name));
    }
  }
  std::set<std::string> used;
  for (const auto& node : trace.nodes) {
    if (node.kind != pytorch::HostNodeKind::kOperator || !is_comm_record(node.name)) continue;
    const CommRecord record = read_comm_record(node, trace);
    if (record.kind == CommKind::kCollective && !record.pg_name.empty()) used.insert(record.pg_name);
  }
  for (const auto& name : used) {
    if (by_name.count(name) == 0) out.undescribed.push_back(name);
  }
  for (auto& [name, group] : by_name) out.groups.push_back(std::move(group));
  return out;
}

std::string comm_groups_json(const ProcessGroupDerivation& derivation) {
  std::string text = "{";
  for (size_t i = 0; i < derivation.groups.size(); ++i) {
    const auto& group = derivation.groups[i];
    text += fmt::format("{}\n  {}: {}", i == 0 ? "" : ",", nlohmann::json(group.name).dump(),
                        nlohmann::json(group.ranks).dump());
  }
  text += derivation.groups.empty() ? "}\n" : "\n}\n";
  return text;
}

}  // namespace snr::et_convert
