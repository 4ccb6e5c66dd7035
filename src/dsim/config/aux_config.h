// The two small ASTRA-sim side inputs: the remote-memory configuration
// (only NO_MEMORY_EXPANSION is modelled) and the communicator-group JSON
// ({"<group id>": [npu, ...], ...}) that Chakra nodes name through pg_name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace snr::dsim {

struct RemoteMemoryConfig {
  std::string memory_type = "NO_MEMORY_EXPANSION";
};

RemoteMemoryConfig parse_remote_memory_config(std::string_view json_text, std::string_view source);
RemoteMemoryConfig load_remote_memory_config(const std::filesystem::path& path);

struct CommGroups {
  // Group name -> member NPUs in ring order; std::map keeps output stable.
  std::map<std::string, std::vector<uint32_t>> groups;
};

CommGroups parse_comm_groups(std::string_view json_text, std::string_view source, uint64_t npus_count);
CommGroups load_comm_groups(const std::filesystem::path& path, uint64_t npus_count);

}  // namespace snr::dsim
