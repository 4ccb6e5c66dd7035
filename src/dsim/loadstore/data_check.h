// Data-movement and synchronization checker for a load-store Program,
// without timing. It executes the program symbolically: every element of a
// GPU's input starts as the set {(gpu, element)}, copies move sets, reduces
// unite them (a contribution counted twice is an error), and the final
// buffers are compared with what the collective requires. Workgroups run
// under two different interleavings that respect the program's
// synchronization (semaphores, barriers, LL packet flags); a program whose
// result differs between them lacks synchronization, and one where no
// workgroup can proceed deadlocks — both reported with the ops involved.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/loadstore/program.h"

namespace snr::dsim::loadstore {

struct DataCheckOptions {
  // allreduce, allgather, reducescatter, alltoall: checked against their
  // definition; any other name checks synchronization only.
  std::string collective;
  // Output aliases input (allreduce), input aliases the rank's slice of the
  // output (allgather) or output the rank's slice of the input (reducescatter).
  bool inplace = false;
  uint32_t max_errors = 8;
};

struct DataCheckResult {
  std::vector<std::string> errors;  // empty: the program is correct
  bool collective_checked = false;  // false: no definition for this collective name
  uint64_t elements = 0;            // output elements compared
  uint64_t element_bytes = 0;       // the granule the check tracked
  uint64_t executed_ops = 0;        // per interleaving
  bool ok() const { return errors.empty(); }
};

DataCheckResult check_data_movement(const Program& program, const DataCheckOptions& options);

// The checked collective a plan's name means, case, '_' and '-' aside
// ("AllReduce", "all_reduce" and "allreduce" alike), or "" for a name
// without a definition here.
std::string checked_collective(std::string_view name);
// The checked collective one or two letter edits away from a name that has
// none ("allredcue" -> "allreduce"), or "".
std::string nearest_checked_collective(std::string_view name);

}  // namespace snr::dsim::loadstore
