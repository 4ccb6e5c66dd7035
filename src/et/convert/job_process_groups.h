// Process groups of a whole job, across its ranks' traces, written into the
// Chakra output so `snr sim` needs no communicator-group file.
//
// Each rank's trace names groups its own way: newer PyTorch writes the same
// pg_name on every rank ("0", "1", ...); ET 1.0.1 writes process-group
// pointers that differ on every rank. Groups are identified by their
// members, found in this order:
//  1. described: the trace's "## process_group:init ##" entry for the name
//     lists its ranks (an empty list with group_size G: ranks 0..G-1);
//  2. "0" and "" stay as they are (PyTorch's default group: every rank);
//  3. by collective order and size: a name no entry describes is matched
//     with the names of other ranks whose collectives on it have the same
//     sequence of (type, bytes); the ranks holding that sequence form the
//     group, cut into consecutive runs of the records' world_size when
//     several groups share it (an assumption, reported).
// Each group gets one name for the whole job: the traces' own when every
// member uses it and no other group does, else a fresh integer (ASTRA-sim
// reads group names as integers). Comm nodes are renamed and every rank's
// graph gets a METADATA node "## process_group:init ##" listing the groups.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "et/convert/converted_graph.h"
#include "formats/pytorch/host_trace.h"

namespace snr::et_convert {

struct JobRank {
  const pytorch::HostTrace* trace = nullptr;
  ConvertedGraph* graph = nullptr;  // graph->rank is the rank
};

struct JobProcessGroup {
  std::string name;
  std::vector<int64_t> ranks;
  std::string source;  // "described", "collective order and size", ...
};

struct JobProcessGroups {
  std::vector<JobProcessGroup> groups;  // sorted by name
  std::vector<std::string> notes;       // assumptions and what could not be resolved
  size_t renamed_nodes = 0;             // comm nodes whose pg_name changed
};

// Derives the job's groups, renames the graphs' comm nodes and adds the
// METADATA node to each graph. `world_size`: ranks in the job (0: the
// largest rank any input or description names, plus one).
JobProcessGroups unify_process_groups(std::vector<JobRank>& ranks, int64_t world_size = 0);

// {"name": [ranks], ...}, one group per line (--comm-group-configuration).
std::string job_comm_groups_json(const JobProcessGroups& groups);

}  // namespace snr::et_convert
