// The JSON of per-kernel times and memory footprints, one spelling for
// every `snr pathfind` verb that prints them.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "pathfind/llm/transformer.h"

namespace snr::pathfind {

// [{name, kind, bound, forward_s, backward_s, recompute_s}, ...]
nlohmann::ordered_json kernel_times_json(const std::vector<KernelTime>& kernels);
// {weights_bytes, gradients_bytes, optimizer_bytes, activations_bytes, total_bytes, capacity_bytes, fits}
nlohmann::ordered_json memory_json(const MemoryFootprint& memory);

}  // namespace snr::pathfind
