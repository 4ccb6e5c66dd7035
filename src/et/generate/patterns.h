// Ready-made workloads built with WorkloadBuilder: collective
// microbenchmarks and the data-, tensor(model)- and pipeline-parallel
// training steps of a synthetic layered model, plus a tensor x data hybrid.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "et/generate/workload_builder.h"

namespace snr::et {

struct PatternOptions {
  std::string pattern;               // one of pattern_names()
  Rank npus = 4;
  uint32_t layers = 4;               // microbenchmarks: number of repetitions
  uint64_t size_bytes = 1 << 20;     // gradient / collective size of one layer
  uint32_t tp_size = 2;              // hybrid: ranks per tensor-parallel group
  uint32_t microbatches = 4;         // pp
  uint64_t compute_micros = 100;     // duration of one layer's forward compute
};

// Names with one-line descriptions, for --help.
const std::vector<std::pair<std::string_view, std::string_view>>& pattern_catalog();

// Throws snr::Error for an unknown pattern or options it cannot honour.
Workload generate_pattern(const PatternOptions& options);

}  // namespace snr::et
