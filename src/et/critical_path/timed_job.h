// A job's executed graph with times: per rank, the nodes that ran, when,
// what kind of work each was, what each waited for, and how communication
// nodes pair up across ranks. Built from a simulated run
// (from_simulation.cc) or from a trace that carries measured start times
// (from_trace.cc: a PyTorch job converted by `snr et convert`); the
// critical path (critical_path.h) reads nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace snr::et::critical_path {

// What a span of the critical path was spent on (Holistic Trace Analysis's
// split): device compute, communication, host work (CPU ops: framework
// code and kernel launches), and idle (waiting with nothing of the path
// running).
enum class Category : uint8_t { kCompute, kCommunication, kHost, kIdle };
inline constexpr int kCategoryCount = 4;
const char* category_name(Category category);

enum class CommRole : uint8_t { kNone, kCollective, kSend, kRecv };

struct TimedNode {
  uint64_t id = 0;  // the trace's node id
  std::string name;
  Category category = Category::kCompute;
  // Instants (METADATA, memory nodes) take no time and are passed through.
  bool instant = false;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::vector<uint32_t> parents;  // indices into the rank's nodes: what it waited for
  // Resource order (a simulated NPU runs one node per lane at a time): of
  // the nodes on its lane that ended by this one's start, the one that
  // ended last, or -1.
  int64_t lane_predecessor = -1;
  CommRole comm = CommRole::kNone;
  int32_t group = -1;  // collectives: index into TimedJob::groups, -1 for every rank
  int64_t peer = -1;   // send: destination, recv: source
  int64_t tag = 0;
};

struct TimedRank {
  std::vector<TimedNode> nodes;
};

struct TimedJob {
  std::string source;  // "simulated" or "measured"
  std::vector<TimedRank> ranks;
  std::vector<std::vector<uint32_t>> groups;  // members of each named communicator group
};

// Instants take the time their last parent ended (the job's own start when
// they have none: their start_ns as given).
void settle_instants(TimedRank& rank);

}  // namespace snr::et::critical_path
