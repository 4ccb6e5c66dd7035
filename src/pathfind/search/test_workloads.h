// For tests: the workloads of examples/pathfind, read from the source tree
// (SNR_SOURCE_DIR, which every test binary sets).
#pragma once

#include <cstdlib>
#include <string>

#include "pathfind/predict/workload.h"

namespace snr::pathfind::search::testing {

inline Workload example_workload(const std::string& name) {
  const char* dir = std::getenv("SNR_SOURCE_DIR");
  return load_workload(std::string(dir != nullptr ? dir : ".") + "/examples/pathfind/" + name + ".yaml");
}

}  // namespace snr::pathfind::search::testing
