// Cross-rank replay checks for a multi-rank workload: the properties a
// replayer or simulator needs to finish without deadlock.
//
// - every dependency names a node of the same rank, and there are no cycles;
// - every collective's process group exists and contains the issuing rank;
// - on every process group, all members issue the same sequence of
//   collectives (type and size) in node order;
// - every send has a matching receive (same src, dst, tag, size, in order).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "et/generate/workload_builder.h"

namespace snr::et {

struct WorkloadCheck {
  size_t nodes = 0;
  size_t collectives = 0;   // per-rank collective nodes
  size_t p2p_messages = 0;  // matched send/recv pairs
  std::vector<std::string> problems;  // at most kMaxProblems kept
  size_t problem_count = 0;
  static constexpr size_t kMaxProblems = 50;

  [[nodiscard]] bool ok() const { return problem_count == 0; }
  [[nodiscard]] std::string summary() const;
};

WorkloadCheck check_workload(const Workload& workload);

}  // namespace snr::et
