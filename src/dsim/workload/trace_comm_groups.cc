#include "dsim/workload/trace_comm_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_input.h"
#include "dsim/config/aux_config.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/rank_files.h"

namespace snr::dsim {
namespace {

// The one string inside ['...'] (Python repr, no escapes inside: the JSON
// uses double quotes) or ["..."] (JSON).
std::string inner_text(std::string_view values) {
  while (!values.empty() && (values.front() == ' ' || values.front() == '\n')) values.remove_prefix(1);
  while (!values.empty() && (values.back() == ' ' || values.back() == '\n')) values.remove_suffix(1);
  if (values.size() >= 4 && values.starts_with("['") && values.ends_with("']")) {
    const std::string_view inner = values.substr(2, values.size() - 4);
    if (inner.find('\'') != std::string_view::npos) throw Error("a quote inside the ['...'] value");
    return std::string(inner);
  }
  const nlohmann::json list = parse_json_input(values, "");
  if (!list.is_array() || list.size() != 1 || !list[0].is_string()) {
    throw Error("input values must be one string holding the list of groups (['[...]'] or [\"[...]\"])");
  }
  return list[0].get<std::string>();
}

bool known_key(std::string_view key) {
  static constexpr std::array<std::string_view, 8> kKeys = {"pg_name",  "pg_desc",    "backend_config", "backend_id",
                                                            "ranks",    "group_size", "group_count",    "pg_size"};
  return std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end();
}

}  // namespace

void parse_process_group_metadata(std::string_view values_text, std::string_view source, uint64_t npus_count,
                                  CommGroups& groups) {
  with_error_context(fmt::format("{}: process groups", source), [&] {
    const nlohmann::json list = parse_json_input(inner_text(values_text), "");
    if (!list.is_array()) throw Error("the groups must be a JSON list");
    for (size_t i = 0; i < list.size(); ++i) {
      const auto& group = list[i];
      if (!group.is_object()) throw Error(fmt::format("group {} is not an object", i));
      for (const auto& [key, value] : group.items()) {
        if (!known_key(key)) throw Error(fmt::format("group {}: unknown key '{}'", i, key));
      }
      if (!group.contains("pg_name") || !group["pg_name"].is_string()) {
        throw Error(fmt::format("group {}: pg_name must be a string", i));
      }
      const std::string name = group["pg_name"].get<std::string>();
      if (!group.contains("ranks") || !group["ranks"].is_array()) {
        throw Error(fmt::format("group '{}': ranks must be a list", name));
      }
      std::vector<uint32_t> members =
          read_group_members(group["ranks"], name, npus_count, {.singular = "rank", .plural = "ranks"});
      // PyTorch writes the default (world) group with an empty list.
      if (members.empty()) {
        for (uint64_t r = 0; r < npus_count; ++r) members.push_back(static_cast<uint32_t>(r));
      }
      const auto [it, inserted] = groups.groups.emplace(name, members);
      if (!inserted && it->second != members) {
        throw Error(fmt::format("group '{}' is described with different ranks than before", name));
      }
    }
  });
}

CommGroups comm_groups_from_traces(const std::filesystem::path& prefix, uint64_t npus_count) {
  CommGroups groups;
  ChakraProtoMsg::Node node;
  for (uint64_t rank = 0; rank < npus_count; ++rank) {
    const auto path = chakra::rank_trace_path(prefix, rank);
    auto reader = chakra::EtReader::open(path);
    while (reader.next(node)) {
      if (node.type() != ChakraProtoMsg::METADATA_NODE || node.name() != kProcessGroupInitNode) continue;
      parse_process_group_metadata(node.inputs().values(), fmt::format("{}: node {}", path.string(), node.id()),
                                   npus_count, groups);
    }
  }
  return groups;
}

}  // namespace snr::dsim
