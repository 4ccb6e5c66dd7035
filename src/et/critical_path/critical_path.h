// The critical path of a job: the chain of work, across ranks, that set
// its end time. Walking back from the node that finished last, each step
// goes to what the node waited for last: the parent (or, in a simulation,
// the node before it on its lane) that ended latest, or, for a collective
// or a receive that started before its peers could, the peer that arrived
// last. Gaps on the way are idle time. Every nanosecond from the job's
// first start to its end lies on exactly one segment, so the category
// totals add up to the makespan.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "et/critical_path/timed_job.h"

namespace snr::et::critical_path {

struct PathSegment {
  uint32_t rank = 0;
  int64_t node = -1;  // index into the rank's nodes; -1 for idle
  Category category = Category::kIdle;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct CategoryTimes {
  std::array<int64_t, kCategoryCount> ns{};
  int64_t operator[](Category c) const { return ns[static_cast<size_t>(c)]; }
  int64_t& operator[](Category c) { return ns[static_cast<size_t>(c)]; }
  [[nodiscard]] int64_t total() const;
};

struct CriticalPath {
  int64_t origin_ns = 0;  // the job's first start
  int64_t end_ns = 0;     // the last end
  std::vector<PathSegment> segments;  // in time order, contiguous from origin to end
  CategoryTimes total;
  std::vector<CategoryTimes> per_rank;
  uint32_t rank_changes = 0;  // how often the path moves to another rank
  [[nodiscard]] int64_t makespan_ns() const { return end_ns - origin_ns; }
};

// Throws snr::Error when no rank ran a node.
CriticalPath find_critical_path(const TimedJob& job);

// The ops that hold the most time on the path, by name (summed over ranks
// and repeats), longest first.
struct PathOp {
  std::string name;
  Category category = Category::kCompute;
  int64_t ns = 0;
  uint32_t count = 0;
};
std::vector<PathOp> top_ops(const TimedJob& job, const CriticalPath& path, size_t limit);

}  // namespace snr::et::critical_path
