// The two small ASTRA-sim side inputs: the remote-memory configuration
// (ASTRA-sim's analytical remote memory, dsim/remote_memory) and the
// communicator-group JSON ({"<group id>": [npu, ...], ...}) that Chakra
// nodes name through pg_name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace snr::dsim {

// Where MEM_LOAD / MEM_STORE nodes go (ASTRA-sim's memory-type values).
enum class RemoteMemoryType : uint8_t {
  kNoExpansion,       // NO_MEMORY_EXPANSION: no remote memory (ASTRA-sim stops on such a node)
  kPerNpuExpansion,   // PER_NPU_MEMORY_EXPANSION: each NPU its own, requests overlap freely
  kPerNodeExpansion,  // PER_NODE_MEMORY_EXPANSION: one per node of num-npus-per-node NPUs, one request at a time
  kMemoryPool,        // MEMORY_POOL: one for all NPUs, one request at a time
};

struct RemoteMemoryConfig {
  std::string memory_type = "NO_MEMORY_EXPANSION";
  RemoteMemoryType type = RemoteMemoryType::kNoExpansion;
  // A request of B bytes takes latency_ns + floor(B / bandwidth_bytes_per_ns)
  // (remote-mem-latency in ns, remote-mem-bw in GB/s = bytes per ns; ASTRA-sim
  // reads both as whole numbers).
  uint64_t latency_ns = 0;
  uint64_t bandwidth_bytes_per_ns = 0;
  uint32_t num_nodes = 0;          // PER_NODE_MEMORY_EXPANSION
  uint32_t num_npus_per_node = 0;  // PER_NODE_MEMORY_EXPANSION
};
// Valid ranges: latency up to 1 s, bandwidth 1 .. 10^6 GB/s, nodes and NPUs
// per node 1 .. 2^24.
inline constexpr uint64_t kMaxRemoteMemLatencyNs = 1'000'000'000;
inline constexpr uint64_t kMaxRemoteMemBandwidthGbPerS = 1'000'000;
inline constexpr uint64_t kMaxRemoteMemNodes = uint64_t{1} << 24;

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

// PyTorch's default process group: every rank.
inline constexpr std::string_view kWorldGroupName = "0";

// The index (in name order) of the group a collective's pg_name names, or
// -1 for every NPU: "" and "0" mean every NPU whatever the groups say
// (ASTRA-sim's Workload::extract_comm_group decides them before it reads
// its group file). Throws snr::Error for any other name that is not a group.
int32_t group_index_of(const CommGroups& groups, std::string_view pg_name);

}  // namespace snr::dsim
