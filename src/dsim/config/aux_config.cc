#include "dsim/config/aux_config.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"

namespace snr::dsim {

RemoteMemoryConfig parse_remote_memory_config(std::string_view json_text, std::string_view source) {
  return with_error_context(fmt::format("remote memory configuration {}", source), [&] {
    const nlohmann::json root = parse_json_input(json_text, "");
    if (!root.is_object()) throw Error("top level must be a JSON object");
    RemoteMemoryConfig config;
    bool have_nodes = false, have_npus_per_node = false, have_bandwidth = false;
    const auto whole = [](const nlohmann::json& value, std::string_view key, uint64_t min, uint64_t max) {
      if (!value.is_number_unsigned() && !value.is_number_integer()) {
        throw Error(fmt::format("{} must be a whole number (ASTRA-sim reads it as one)", key));
      }
      if (value.is_number_integer() && value.get<int64_t>() < 0) {
        throw Error(fmt::format("{} {} is out of range: valid {} .. {}", key, value.get<int64_t>(), min, max));
      }
      const auto v = value.get<uint64_t>();
      if (v < min || v > max) throw Error(fmt::format("{} {} is out of range: valid {} .. {}", key, v, min, max));
      return v;
    };
    for (const auto& [key, value] : root.items()) {
      if (key == "memory-type") {
        if (!value.is_string()) throw Error("memory-type must be a string");
        config.memory_type = value.get<std::string>();
        if (config.memory_type == "NO_MEMORY_EXPANSION") {
          config.type = RemoteMemoryType::kNoExpansion;
        } else if (config.memory_type == "PER_NPU_MEMORY_EXPANSION") {
          config.type = RemoteMemoryType::kPerNpuExpansion;
        } else if (config.memory_type == "PER_NODE_MEMORY_EXPANSION") {
          config.type = RemoteMemoryType::kPerNodeExpansion;
        } else if (config.memory_type == "MEMORY_POOL") {
          config.type = RemoteMemoryType::kMemoryPool;
        } else {
          throw Error(fmt::format("memory-type '{}' is not one of NO_MEMORY_EXPANSION, PER_NPU_MEMORY_EXPANSION, "
                                  "PER_NODE_MEMORY_EXPANSION, MEMORY_POOL",
                                  config.memory_type));
        }
      } else if (key == "remote-mem-latency") {
        config.latency_ns = whole(value, key, 0, kMaxRemoteMemLatencyNs);
      } else if (key == "remote-mem-bw") {
        config.bandwidth_bytes_per_ns = whole(value, key, 1, kMaxRemoteMemBandwidthGbPerS);
        have_bandwidth = true;
      } else if (key == "num-nodes") {
        config.num_nodes = static_cast<uint32_t>(whole(value, key, 1, kMaxRemoteMemNodes));
        have_nodes = true;
      } else if (key == "num-npus-per-node") {
        config.num_npus_per_node = static_cast<uint32_t>(whole(value, key, 1, kMaxRemoteMemNodes));
        have_npus_per_node = true;
      } else {
        throw Error(fmt::format("unknown key '{}' (keys: memory-type, remote-mem-latency, remote-mem-bw, num-nodes, "
                                "num-npus-per-node)",
                                key));
      }
    }
    if (config.type != RemoteMemoryType::kNoExpansion && !have_bandwidth) {
      throw Error(fmt::format("{} needs remote-mem-bw (GB/s)", config.memory_type));
    }
    if (config.type == RemoteMemoryType::kPerNodeExpansion && (!have_nodes || !have_npus_per_node)) {
      throw Error("PER_NODE_MEMORY_EXPANSION needs num-nodes and num-npus-per-node");
    }
    return config;
  });
}

RemoteMemoryConfig load_remote_memory_config(const std::filesystem::path& path) {
  return parse_remote_memory_config(read_file(path), path.string());
}

std::vector<uint32_t> read_group_members(const nlohmann::json& list, std::string_view group, uint64_t npus_count,
                                         const MemberNouns& nouns) {
  std::set<uint64_t> seen;
  std::vector<uint32_t> members;
  for (const auto& m : list) {
    if (!m.is_number_unsigned() && !m.is_number_integer()) {
      throw Error(fmt::format("group '{}': {} must be integers", group, nouns.plural));
    }
    const int64_t id = m.get<int64_t>();
    if (id < 0 || static_cast<uint64_t>(id) >= npus_count) {
      throw Error(fmt::format("group '{}': {} {} does not exist ({} NPUs)", group, nouns.singular, id, npus_count));
    }
    if (!seen.insert(static_cast<uint64_t>(id)).second) {
      throw Error(fmt::format("group '{}': {} {} listed twice", group, nouns.singular, id));
    }
    members.push_back(static_cast<uint32_t>(id));
  }
  return members;
}

CommGroups parse_comm_groups(std::string_view json_text, std::string_view source, uint64_t npus_count) {
  return with_error_context(fmt::format("communicator groups {}", source), [&] {
    const nlohmann::json root = parse_json_input(json_text, "");
    if (!root.is_object()) throw Error("top level must be an object of group id -> list of NPU ids");
    CommGroups result;
    for (const auto& [name, members] : root.items()) {
      // A group of one is valid (ASTRA-sim reads it; Symbolic Tensor Graph
      // writes one per rank for a parallel dimension of size 1): its
      // collectives move nothing and finish at once.
      if (!members.is_array() || members.empty()) {
        throw Error(fmt::format("group '{}' must list at least one NPU id", name));
      }
      result.groups.emplace(name, read_group_members(members, name, npus_count));
    }
    return result;
  });
}

int32_t group_index_of(const CommGroups& groups, std::string_view pg_name) {
  if (pg_name.empty() || pg_name == kWorldGroupName) return -1;
  const auto it = groups.groups.find(std::string(pg_name));
  if (it != groups.groups.end()) return static_cast<int32_t>(std::distance(groups.groups.begin(), it));
  throw Error(fmt::format("pg_name '{}' is neither in the communicator-group configuration nor described by the "
                          "traces' process_group:init nodes",
                          pg_name));
}

CommGroups load_comm_groups(const std::filesystem::path& path, uint64_t npus_count) {
  return parse_comm_groups(read_file(path), path.string(), npus_count);
}

}  // namespace snr::dsim
