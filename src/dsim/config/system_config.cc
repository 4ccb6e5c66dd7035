#include "dsim/config/system_config.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "common/spelling.h"
#include "dsim/system/algorithm_registry.h"

namespace snr::dsim {
namespace {

using Json = nlohmann::json;

int require_int(const Json& value, std::string_view key, int min_value, int64_t max_value = 1'000'000'000) {
  if (!value.is_number_integer() && !value.is_number_unsigned()) {
    throw Error(fmt::format("key '{}' must be an integer from {} to {}, got {}", key, min_value, max_value,
                            value.dump()));
  }
  const int64_t v = value.get<int64_t>();
  if (v < min_value || v > max_value) {
    throw Error(fmt::format("key '{}' must be between {} and {}, got {}", key, min_value, max_value, v));
  }
  return static_cast<int>(v);
}

// A rate that is 0 (not given: the features using it then refuse to run)
// or within [min_value, max_value]: a tiny positive rate would turn a
// reduction or roofline time into more ns than 64 bits hold.
double require_rate(const Json& value, std::string_view key, double min_value, double max_value,
                    std::string_view unit) {
  if (!value.is_number()) throw Error(fmt::format("key '{}' must be a number", key));
  const double v = value.get<double>();
  if (v == 0) return 0;
  if (!(v >= min_value && v <= max_value)) {
    throw Error(fmt::format("key '{}' = {} is out of range: valid 0 (not given) or {:g} .. {:g} {}", key,
                            value.dump(), min_value, max_value, unit));
  }
  return v;
}

std::string require_string(const Json& value, std::string_view key) {
  if (!value.is_string()) throw Error(fmt::format("key '{}' must be a string", key));
  return value.get<std::string>();
}

bool require_flag(const Json& value, std::string_view key) {
  if (value.is_boolean()) return value.get<bool>();
  const int v = require_int(value, key, 0);
  if (v > 1) throw Error(fmt::format("key '{}' must be 0 or 1", key));
  return v == 1;
}

std::vector<CollectiveImplementation> parse_implementations(const Json& value, std::string_view key) {
  if (!value.is_array() || value.empty()) {
    throw Error(fmt::format("key '{}' must be a non-empty list of algorithm names", key));
  }
  std::vector<CollectiveImplementation> result;
  for (const Json& item : value) {
    result.push_back(with_error_context(fmt::format("key '{}'", key), [&] {
      return resolve_collective_implementation(require_string(item, key));
    }));
  }
  return result;
}

// Every chunk of a collective is a stream with its own state on every NPU:
// a bound keeps a typo (1e9 splits) from asking for terabytes.
constexpr int64_t kMaxChunks = 1 << 16;

// ASTRA-sim's shared memory-bus model (LogGP between NPU and memory) reads
// these keys only when switched on, and snr refuses to switch it on; the
// value would have no effect in ASTRA-sim either, so it is refused rather
// than silently dropped.
constexpr std::string_view kSharedBusReason =
    "a parameter of ASTRA-sim's shared memory-bus (LogGP) model, used only with model-shared-bus: 1, which snr "
    "does not model; without it the key has no effect in ASTRA-sim either, so remove it";

// The keys the parser below reads itself (algorithms add theirs): what a
// mistyped key is compared with.
constexpr std::string_view kSystemKeys[] = {
    "scheduling-policy", "collective-optimization", "active-chunks-per-dimension", "preferred-dataset-splits",
    "endpoint-delay", "local-mem-bw", "peak-perf", "roofline-enabled", "track-local-mem", "local-mem-trace-filename",
    "trace-enabled", "replay-only", "boost-mode", "model-shared-bus", "all-reduce-implementation",
    "all-gather-implementation", "reduce-scatter-implementation", "all-to-all-implementation",
    "intra-dimension-scheduling", "inter-dimension-scheduling", "local-reduction-delay"};

std::string unknown_key_message(const std::string& key) {
  const std::vector<std::string> owned = collective_algorithm_config_keys();
  std::vector<std::string_view> names(std::begin(kSystemKeys), std::end(kSystemKeys));
  names.insert(names.end(), owned.begin(), owned.end());
  const std::string nearest = nearest_name(key, names, 2);
  // (ASTRA-sim ignores a key it does not know, so a misspelt one would
  // silently keep its default there.)
  return nearest.empty() ? fmt::format("unknown key '{}'", key)
                         : fmt::format("unknown key '{}'; did you mean '{}'?", key, nearest);
}

// ASTRA-sim 2.0's chunk schedulers, which current ASTRA-sim no longer reads:
// the values that mean what both run are accepted, the others refused.
void check_dimension_scheduling(const std::string& key, const std::string& value) {
  const bool intra = key == "intra-dimension-scheduling";
  if (intra ? value == "FIFO" : (value == "baseline" || value == "ascending")) return;
  throw Error(fmt::format(
      "known ASTRA-sim key, not modelled by snr: {} '{}' (ASTRA-sim 2.0's {}; current ASTRA-sim ignores the key "
      "and {}, as snr does: set {} or remove the key)",
      key, value,
      intra ? "order of the chunks waiting in one dimension, e.g. SCF, smallest chunk first"
            : "order in which a chunk visits the dimensions, e.g. themis, Themis's load-balancing scheduler",
      intra ? "runs a dimension's chunks first in, first out" : "runs every chunk through the dimensions in order",
      intra ? "FIFO" : "baseline"));
}

// ASTRA-sim 1.0 and early 2.0 wrote the system file as "key: value" lines,
// which current ASTRA-sim no longer reads; a JSON parse error there would not
// say so.
bool is_astra_sim_1_system_text(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] == '{') return false;
  const size_t end = text.find('\n', first);
  const std::string_view line = text.substr(first, end == std::string_view::npos ? end : end - first);
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  return std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_'; });
}

}  // namespace

const char* unmodelled_astra_sim_key_reason(std::string_view key) {
  if (key == "L" || key == "o" || key == "g" || key == "G" || key == "local-reduction-delay") {
    return kSharedBusReason.data();
  }
  return nullptr;
}

void apply_injection_scale(SystemConfig& config, double injection_scale) {
  if (!std::isfinite(injection_scale) || injection_scale < 0 || injection_scale > 1e6) {
    throw Error(fmt::format("--injection-scale {} is out of range: valid 0 .. 1e6", injection_scale));
  }
  if (!config.endpoint_delay_given || injection_scale == 1) return;
  config.endpoint_delay_ns =
      static_cast<uint64_t>(static_cast<double>(config.endpoint_delay_ns) * injection_scale);
}

std::filesystem::path resolve_custom_prefix(const std::string& prefix, const std::filesystem::path& base_dir) {
  namespace fs = std::filesystem;
  const fs::path given(prefix);
  const auto exists_rank0 = [](const fs::path& p) { return fs::exists(p.string() + ".0.et"); };
  if (exists_rank0(given)) return given;
  if (given.is_relative()) {
    // ASTRA-sim's examples name prefixes relative to its repository root;
    // try ever shorter tails of the path beside the config file.
    std::vector<fs::path> parts(given.begin(), given.end());
    for (size_t skip = 0; skip < parts.size(); ++skip) {
      fs::path candidate = base_dir;
      for (size_t i = skip; i < parts.size(); ++i) candidate /= parts[i];
      if (exists_rank0(candidate)) return candidate;
    }
  }
  throw Error(fmt::format("custom collective '{}': no file '{}.0.et' (also searched beside the config)",
                          prefix, prefix));
}

SystemConfig parse_system_config(std::string_view json_text, std::string_view source,
                                 const std::filesystem::path& base_dir) {
  return with_error_context(fmt::format("system configuration {}", source), [&] {
    if (is_astra_sim_1_system_text(json_text)) {
      throw Error("this is the older ASTRA-sim (1.0, early 2.0) text system format (\"key: value\" lines), "
                  "which current ASTRA-sim no longer reads; write it as a JSON object with the same keys, each "
                  "*-implementation a list with one algorithm per dimension (ring_ring becomes [\"ring\", "
                  "\"ring\"]), and boost-mode 0");
    }
    const Json root = parse_json_input(json_text, "");
    if (!root.is_object()) throw Error("top level must be a JSON object");
    SystemConfig config;
    config.source = std::string(source);
    bool saw_peak_perf = false;
    for (const auto& [key, value] : root.items()) {
      if (key == "scheduling-policy") {
        const std::string policy = require_string(value, key);
        if (policy == "LIFO") config.scheduling_policy = SchedulingPolicy::kLifo;
        else if (policy == "FIFO") config.scheduling_policy = SchedulingPolicy::kFifo;
        else if (policy == "EXPLICIT") {
          throw Error("known ASTRA-sim key, not modelled by snr: scheduling-policy EXPLICIT (orders collectives by "
                      "each Chakra node's comm_priority attribute; snr's collective engine orders by issue only: "
                      "use LIFO or FIFO)");
        } else throw Error(fmt::format("scheduling-policy '{}' is not supported (LIFO or FIFO)", policy));
      } else if (key == "collective-optimization") {
        const std::string opt = require_string(value, key);
        if (opt == "baseline") config.collective_optimization = CollectiveOptimization::kBaseline;
        else if (opt == "localBWAware") config.collective_optimization = CollectiveOptimization::kLocalBwAware;
        else throw Error(fmt::format("collective-optimization '{}' is unknown (baseline or localBWAware)", opt));
      } else if (key == "active-chunks-per-dimension") {
        config.active_chunks_per_dimension = require_int(value, key, 1, kMaxChunks);
      } else if (key == "preferred-dataset-splits") {
        config.preferred_dataset_splits = require_int(value, key, 1, kMaxChunks);
      } else if (key == "endpoint-delay") {
        config.endpoint_delay_ns = static_cast<uint64_t>(require_int(value, key, 0));
        config.endpoint_delay_given = true;
      } else if (key == "local-mem-bw") {
        config.local_mem_bytes_per_ns = require_rate(value, key, 1e-3, 1e7, "GB/s");
      } else if (key == "peak-perf") {
        config.peak_perf_tflops = require_rate(value, key, 1e-6, 1e7, "TFLOP/s");
        saw_peak_perf = true;
      } else if (key == "roofline-enabled") {
        config.roofline_enabled = require_flag(value, key);
      } else if (key == "track-local-mem") {
        config.track_local_mem = require_flag(value, key);
      } else if (key == "local-mem-trace-filename") {
        // Read (like ASTRA-sim) whether or not the tracker is on.
        config.local_mem_trace_filename = require_string(value, key);
        if (config.local_mem_trace_filename.empty()) throw Error("local-mem-trace-filename is empty");
      } else if (key == "trace-enabled") {
        config.trace_enabled = require_flag(value, key);
      } else if (key == "replay-only") {
        config.replay_only = require_flag(value, key);
      } else if (key == "intra-dimension-scheduling" || key == "inter-dimension-scheduling") {
        check_dimension_scheduling(key, require_string(value, key));
      } else if (key == "boost-mode" || key == "model-shared-bus") {
        // Accepted for compatibility only when off: the feature is not modelled.
        if (require_flag(value, key)) throw Error(fmt::format("key '{}' = 1 is not supported", key));
      } else if (key == "all-reduce-implementation") {
        config.all_reduce = parse_implementations(value, key);
      } else if (key == "all-gather-implementation") {
        config.all_gather = parse_implementations(value, key);
      } else if (key == "reduce-scatter-implementation") {
        config.reduce_scatter = parse_implementations(value, key);
      } else if (key == "all-to-all-implementation") {
        config.all_to_all = parse_implementations(value, key);
      } else if (const CollectiveAlgorithmSpec* owner = find_algorithm_owning_key(key)) {
        with_error_context(fmt::format("key '{}' (collective algorithm '{}')", key, owner->name),
                           [&, &key = key, &value = value] { owner->parse_key(value, key, base_dir, config); });
      } else if (const char* reason = unmodelled_astra_sim_key_reason(key)) {
        throw Error(fmt::format("known ASTRA-sim key, not modelled by snr: {} ({})", key, reason));
      } else if (key.ends_with("-implementation-chakra")) {
        // ASTRA-sim's 2024 name of the custom-collective key.
        throw Error(fmt::format("key '{}' is ASTRA-sim's former name of '{}-custom' (a Chakra trace prefix per "
                                "collective); rename it",
                                key, key.substr(0, key.size() - std::string_view("-chakra").size())));
      } else {
        throw Error(unknown_key_message(key));
      }
    }
    if (config.roofline_enabled && (!saw_peak_perf || config.peak_perf_tflops <= 0 ||
                                    config.local_mem_bytes_per_ns <= 0)) {
      throw Error("roofline-enabled needs positive peak-perf and local-mem-bw");
    }
    // Each algorithm whose keys were given checks them together, once.
    std::vector<const CollectiveAlgorithmSpec*> checked;
    for (const auto& [key, value] : config.algorithm_settings) {
      const CollectiveAlgorithmSpec* owner = find_algorithm_owning_key(key);
      if (owner == nullptr || !owner->check_config) continue;
      if (std::find(checked.begin(), checked.end(), owner) != checked.end()) continue;
      checked.push_back(owner);
      with_error_context(fmt::format("collective algorithm '{}'", owner->name), [&] { owner->check_config(config); });
    }
    return config;
  });
}

SystemConfig load_system_config(const std::filesystem::path& path) {
  return parse_system_config(read_file(path), path.string(), path.parent_path());
}

}  // namespace snr::dsim
