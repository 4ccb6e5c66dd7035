// The METADATA node "## process_group:init ##" through which a Chakra trace
// describes its own communicator groups (PyTorch's execution trace records
// it, Chakra's converter keeps it, ASTRA-sim and `snr sim` read it). Its
// inputs' `values` is one string holding a JSON list of groups,
//   [{"pg_name": "0", "ranks": [0, 1, ...]}, ...]
// written as Python's repr of that one-string list (['...']). The reader,
// with its checks, is dsim/workload/trace_comm_groups.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snr::chakra {

inline constexpr std::string_view kProcessGroupInitNode = "## process_group:init ##";

struct ProcessGroupMembers {
  std::string name;
  std::vector<uint64_t> ranks;
};

// The node's input `values` for these groups, in the order given.
std::string process_group_init_values(const std::vector<ProcessGroupMembers>& groups);

}  // namespace snr::chakra
