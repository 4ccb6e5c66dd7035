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

#include <nlohmann/json.hpp>

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

// The member list of one group as NPU ids: integers below npus_count, none
// twice, in the given order. Errors say "group 'NAME': <noun> ...", the noun
// being what the source calls its members ("NPU" / "member ids" in a
// comm-group file, "rank" / "ranks" in a trace's process_group:init).
struct MemberNouns {
  std::string_view singular = "NPU";
  std::string_view plural = "member ids";
};
std::vector<uint32_t> read_group_members(const nlohmann::json& list, std::string_view group, uint64_t npus_count,
                                         const MemberNouns& nouns = {});

CommGroups parse_comm_groups(std::string_view json_text, std::string_view source, uint64_t npus_count);
CommGroups load_comm_groups(const std::filesystem::path& path, uint64_t npus_count);

// The index (in name order) of the group a collective's pg_name names, or
// -1 for every NPU: "" and PyTorch's default group "0" mean every NPU unless
// a group of that name is given (ASTRA-sim's rule). Throws snr::Error for
// any other name that is not a group.
int32_t group_index_of(const CommGroups& groups, std::string_view pg_name);

}  // namespace snr::dsim
