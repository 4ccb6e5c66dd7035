// Process groups of a PyTorch job, from the trace's own metadata, in the
// communicator-group form `snr sim --comm-group-configuration` reads
// ({"<pg_name>": [rank, ...]}; docs/formats/astra-sim-config.md).
//
// Source: the "## process_group:init ##" record (one entry per group:
// pg_name, ranks, group_size). An empty "ranks" list is PyTorch's way of
// saying "every rank" (the default world group, pg_name "0"): it becomes
// ranks 0 .. group_size-1. Groups that collectives name but the record does
// not describe are reported, not guessed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/pytorch/host_trace.h"

namespace snr::et_convert {

struct DerivedProcessGroup {
  std::string name;  // the pg_name Chakra nodes carry
  std::vector<int64_t> ranks;
  bool every_rank = false;  // "ranks": [] in the trace
};

struct ProcessGroupDerivation {
  std::vector<DerivedProcessGroup> groups;  // sorted by name
  std::vector<std::string> undescribed;     // pg_names used by collectives, absent from the record
  std::vector<std::string> notes;           // groups skipped, with the reason
};

ProcessGroupDerivation derive_process_groups(const pytorch::HostTrace& trace);

// {"name": [ranks], ...} with sorted keys, one group per line.
std::string comm_groups_json(const ProcessGroupDerivation& derivation);

}  // namespace snr::et_convert
