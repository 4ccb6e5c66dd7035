// Communicator groups a Chakra trace carries itself: the METADATA node
// "## process_group:init ##" that PyTorch's execution trace records and
// Chakra's converter keeps (ASTRA-sim reads the same node). Its inputs'
// `values` is one string holding a JSON list of groups,
//   [{"pg_name": "0", "ranks": [], "group_size": 2, ...}, ...]
// written either as Python's repr of that one-string list (['...'], what
// Chakra's converter writes and ASTRA-sim parses) or as a JSON list of one
// string (["..."]). An empty "ranks" list means every rank. `snr sim` uses
// these groups when no --comm-group-configuration is given.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "dsim/config/aux_config.h"
#include "formats/chakra/process_group_init.h"

namespace snr::dsim {

inline constexpr std::string_view kProcessGroupInitNode = chakra::kProcessGroupInitNode;

// Parses one METADATA node's input values into `groups` (merged: a name
// seen before must have the same members). A group of one rank is kept:
// its collectives move nothing and finish at once. Throws snr::Error
// naming `source`.
void parse_process_group_metadata(std::string_view values_text, std::string_view source, uint64_t npus_count,
                                  CommGroups& groups);

// The groups of every rank's "## process_group:init ##" nodes in
// `<prefix>.<rank>.et`, ranks 0 .. npus_count-1 (none: an empty result).
CommGroups comm_groups_from_traces(const std::filesystem::path& prefix, uint64_t npus_count);

}  // namespace snr::dsim
