// A collective plan in any supported format (MSCCL++ .json, MSCCLang .xml),
// read and ready to lower into a Program for a message size. The format is
// chosen by the file extension.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "dsim/loadstore/program.h"

namespace snr::dsim::loadstore {

struct CollectivePlan {
  std::string format;  // "MSCCL++" or "MSCCLang"
  std::string name, collective, protocol, schema;
  bool inplace = false;          // as the plan says
  bool buffers_alias = false;    // whether input and output share memory (what the checker follows)
  uint32_t gpus = 0;
  std::string summary;                                     // the reader's text summary
  std::vector<std::pair<std::string, uint64_t>> op_counts;  // by the format's op/step name
  uint64_t default_input_bytes = 0;                        // smallest size every op splits exactly
  std::function<Program(uint64_t input_bytes, uint32_t wavefront_threads)> lower;
};

// Throws snr::Error for unreadable plans, and for .xml when the build has no
// MSCCLang support (pugixml missing).
CollectivePlan load_collective_plan(const std::string& path);

}  // namespace snr::dsim::loadstore
