// ASTRA-sim system-layer configuration (the --system-configuration JSON).
// Keys and meanings follow ASTRA-sim; unlike ASTRA-sim, an unknown key, a
// value of the wrong type or a setting this simulator does not model is an
// error instead of being ignored.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace snr::dsim {

enum class SchedulingPolicy { kLifo, kFifo };
enum class CollectiveOptimization { kBaseline, kLocalBwAware };
struct CollectiveAlgorithmSpec;  // system/algorithm_registry.h

// One entry of an *-implementation list, resolved by the algorithm registry.
struct CollectiveImplementation {
  const CollectiveAlgorithmSpec* algorithm = nullptr;
  // The "flattened" one* variants run one phase over all NPUs.
  bool flattened = false;
  // The digits after the name (direct8: the direct window); -1 when none.
  int parameter = -1;
};

struct SystemConfig {
  std::string source;  // the file it was read from, for errors found while simulating
  SchedulingPolicy scheduling_policy = SchedulingPolicy::kLifo;
  CollectiveOptimization collective_optimization = CollectiveOptimization::kBaseline;
  int active_chunks_per_dimension = 1;
  int preferred_dataset_splits = 1;
  uint64_t endpoint_delay_ns = 10;
  bool endpoint_delay_given = false;  // --injection-scale applies only to a given endpoint-delay (ASTRA-sim)
  double local_mem_bytes_per_ns = 0;  // the file's "local-mem-bw" in GB/s (1 GB = 1e9 B), which is bytes per ns
  double peak_perf_tflops = 0;
  bool roofline_enabled = false;
  // ASTRA-sim's local-memory tracker: tensor lifetimes from the nodes'
  // "inputs"/"outputs" attributes, a peak per NPU and a trace file per NPU
  // named <local_mem_trace_filename>.<npu>.json (dsim/workload/memory_tracker.h).
  bool track_local_mem = false;
  std::string local_mem_trace_filename = "local_mem_trace";
  // ASTRA-sim's trace-enabled: debug log lines for every issued and finished
  // node. snr accepts it and prints none (its per-node record is the
  // timeline of `snr sim -o DIR`); the flag lets the command say so.
  bool trace_enabled = false;
  // ASTRA-sim's replay-only: every node takes its trace duration
  // (duration_micros, 1 ns when 0) on its lane; nothing is simulated.
  bool replay_only = false;
  std::vector<CollectiveImplementation> all_reduce;
  std::vector<CollectiveImplementation> all_gather;
  std::vector<CollectiveImplementation> reduce_scatter;
  std::vector<CollectiveImplementation> all_to_all;
  // Custom collectives, their keys owned by the custom algorithm
  // (system/custom_collective.cc), trace prefixes resolved to paths: per
  // collective its *-implementation-custom prefix (empty: none), and per
  // workload node (its Chakra id) the prefix per-node-custom-implementation's
  // file gives it.
  std::filesystem::path all_reduce_custom, all_gather_custom, reduce_scatter_custom, all_to_all_custom;
  std::map<uint64_t, std::filesystem::path> per_node_custom;
  [[nodiscard]] bool names_custom_collectives() const {
    return !all_reduce_custom.empty() || !all_gather_custom.empty() || !reduce_scatter_custom.empty() ||
           !all_to_all_custom.empty() || !per_node_custom.empty();
  }
  // Keys owned by algorithms registered outside the built-in set (the
  // load-store model's load-store-*, system/load_store/), as their
  // parse_key checked and normalized them (paths made absolute).
  std::map<std::string, std::string> algorithm_settings;
};

// Parses the JSON text; `source` names the file in error messages, and
// relative custom-collective prefixes are resolved against `base_dir`
// (see docs/formats/astra-sim-config.md). Throws snr::Error.
SystemConfig parse_system_config(std::string_view json_text, std::string_view source,
                                 const std::filesystem::path& base_dir = {});
SystemConfig load_system_config(const std::filesystem::path& path);

// ASTRA-sim's --injection-scale: multiplies endpoint-delay when the file
// gives one (the default 10 ns stays), truncated to whole ns as ASTRA-sim
// stores it in an int. Valid 0 .. 1e6; throws snr::Error naming the option.
void apply_injection_scale(SystemConfig& config, double injection_scale);

// Keys ASTRA-sim reads that snr refuses, with the reason (for errors and
// docs): "known ASTRA-sim key, not modelled by snr: KEY (REASON)".
// Returns nullptr for any other key.
const char* unmodelled_astra_sim_key_reason(std::string_view key);

// Resolves a custom-collective trace prefix: as given, or beside the
// configuration with leading components dropped. Throws snr::Error.
std::filesystem::path resolve_custom_prefix(const std::string& prefix, const std::filesystem::path& base_dir);

}  // namespace snr::dsim
