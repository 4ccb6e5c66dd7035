#include "dsim/system/load_store/load_store_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "dsim/gpu/gpu_config.h"
#include "dsim/loadstore/collective_plan.h"
#include "dsim/loadstore/generated/plan_generator.h"
#include "dsim/noc/noc_config.h"
#include "dsim/system/algorithm_registry.h"

namespace snr::dsim::load_store {
namespace {

namespace ls = loadstore;

constexpr std::string_view kPlanPrefix = "load-store-plan-";
// The plan-file keys' collectives: the key's suffix, the system layer's
// name (collective_name) and the plan formats' name.
struct PlanCollective {
  std::string_view key_suffix, system_name, plan_name;
};
constexpr PlanCollective kPlanCollectives[] = {
    {"all-reduce", "all_reduce", "allreduce"},
    {"all-gather", "all_gather", "allgather"},
    {"reduce-scatter", "reduce_scatter", "reducescatter"},
    {"all-to-all", "all_to_all", "alltoall"},
};

std::string string_value(const nlohmann::json& value, std::string_view key, std::string_view accepts) {
  if (!value.is_string()) throw Error(fmt::format("key '{}' must be a string: {}", key, accepts));
  return value.get<std::string>();
}

// An integer from 1 to `max`, as decimal text.
std::string count_value(const nlohmann::json& value, std::string_view key, uint64_t max, std::string_view what) {
  if (!value.is_number_unsigned() || value.get<uint64_t>() < 1 || value.get<uint64_t>() > max) {
    throw Error(fmt::format("key '{}' must be an integer from 1 to {} ({})", key, max, what));
  }
  return std::to_string(value.get<uint64_t>());
}

// A preset name stays a name; anything else is a file beside the
// configuration (or as given when absolute), made absolute.
std::string preset_or_file(const std::string& text, const std::vector<std::string>& presets,
                           const std::filesystem::path& base_dir) {
  if (std::find(presets.begin(), presets.end(), text) != presets.end()) return text;
  std::filesystem::path path(text);
  if (path.is_relative() && !base_dir.empty()) path = base_dir / path;
  return std::filesystem::absolute(path).lexically_normal().string();
}

}  // namespace

std::vector<std::string> system_presets() {
  std::vector<std::string> systems;
  for (const std::string& name : gpu::gpu_presets()) {
    if (noc::is_noc_preset(name)) systems.push_back(name);
  }
  return systems;
}

std::vector<std::string> config_keys() {
  std::vector<std::string> keys = {"load-store-system",   "load-store-gpu",      "load-store-network",
                                   "load-store-algorithm", "load-store-protocol", "load-store-transfer",
                                   "load-store-workgroups", "load-store-compute", "load-store-compute-workgroups",
                                   "load-store-compute-slice-cycles"};
  for (const PlanCollective& c : kPlanCollectives) keys.push_back(fmt::format("{}{}", kPlanPrefix, c.key_suffix));
  return keys;
}

void parse_key(const nlohmann::json& value, std::string_view key, const std::filesystem::path& base_dir,
               SystemConfig& config) {
  std::string stored;
  if (key == "load-store-system") {
    const auto systems = system_presets();
    stored = string_value(value, key, fmt::format("{}", fmt::join(systems, ", ")));
    if (std::find(systems.begin(), systems.end(), stored) == systems.end()) {
      throw Error(fmt::format("unknown system '{}' (known: {})", stored, fmt::join(systems, ", ")));
    }
  } else if (key == "load-store-gpu" || key == "load-store-network") {
    const bool is_gpu = key == "load-store-gpu";
    const auto presets = is_gpu ? gpu::gpu_presets() : noc::noc_presets();
    const std::string text =
        string_value(value, key, fmt::format("a preset ({}) or a YAML file", fmt::join(presets, ", ")));
    stored = preset_or_file(text, presets, base_dir);
    // Read now: a bad file fails while the configuration's key is known
    // (parse_system_config names it).
    if (is_gpu) {
      (void)gpu::load_gpu_config(stored);
    } else {
      (void)noc::load_noc_config(stored);
    }
  } else if (key == "load-store-algorithm") {
    const auto names = ls::plan_algorithm_names();
    const std::string accepts = fmt::format("auto, tree (NCCL's, on dgx-a100/dgx-h100) or {}", fmt::join(names, ", "));
    stored = string_value(value, key, accepts);
    if (stored != "auto" && stored != "tree" && std::find(names.begin(), names.end(), stored) == names.end()) {
      throw Error(fmt::format("unknown plan algorithm '{}' (known: {})", stored, accepts));
    }
  } else if (key == "load-store-protocol") {
    stored = string_value(value, key, "auto, Simple, LL or LL128");
    if (stored != "auto") (void)ls::parse_protocol(stored);
  } else if (key == "load-store-transfer") {
    stored = string_value(value, key, "put or get");
    (void)ls::parse_transfer(stored);
  } else if (key == "load-store-workgroups") {
    stored = count_value(value, key, 1024, "workgroups per GPU");
  } else if (key == "load-store-compute") {
    stored = string_value(value, key, "duration or gpu");
    if (stored != "duration" && stored != "gpu") {
      throw Error(fmt::format("'{}' is not a compute model (duration: the trace's durations on the compute lane; "
                              "gpu: ReduceOp workgroups on the GPU model)",
                              stored));
    }
  } else if (key == "load-store-compute-workgroups") {
    stored = count_value(value, key, 65536, "workgroups per compute kernel");
  } else if (key == "load-store-compute-slice-cycles") {
    stored = count_value(value, key, UINT32_MAX, "GPU cycles per ReduceOp");
  } else if (key.starts_with(kPlanPrefix)) {
    const auto* c = std::find_if(std::begin(kPlanCollectives), std::end(kPlanCollectives),
                                 [&](const PlanCollective& p) { return key.substr(kPlanPrefix.size()) == p.key_suffix; });
    if (c == std::end(kPlanCollectives)) throw Error(fmt::format("unknown key '{}'", key));
    stored = preset_or_file(string_value(value, key, "an MSCCL++ .json or MSCCLang .xml plan file"), {}, base_dir);
    const ls::CollectivePlan plan = ls::load_collective_plan(stored);
    if (plan.collective != c->plan_name) {
      throw Error(fmt::format("{} is a {} plan, not {}", stored, plan.collective, c->plan_name));
    }
  } else {
    throw Error(fmt::format("unknown key '{}'", key));
  }
  config.algorithm_settings[std::string(key)] = stored;
}

Settings settings_of(const SystemConfig& config) {
  Settings s;
  const auto get = [&](const char* key, std::string& to) {
    const auto it = config.algorithm_settings.find(key);
    if (it != config.algorithm_settings.end()) to = it->second;
  };
  get("load-store-system", s.system);
  get("load-store-gpu", s.gpu);
  get("load-store-network", s.network);
  get("load-store-algorithm", s.algorithm);
  get("load-store-protocol", s.protocol);
  get("load-store-transfer", s.transfer);
  // parse_key stored these as checked decimal integers.
  const auto get_count = [&](const char* key, uint32_t& to) {
    std::string text;
    get(key, text);
    if (!text.empty()) to = static_cast<uint32_t>(std::stoul(text));
  };
  get_count("load-store-workgroups", s.workgroups);
  get("load-store-compute", s.compute);
  get_count("load-store-compute-workgroups", s.compute_workgroups);
  get_count("load-store-compute-slice-cycles", s.compute_slice_cycles);
  for (const PlanCollective& c : kPlanCollectives) {
    std::string file;
    get(fmt::format("{}{}", kPlanPrefix, c.key_suffix).c_str(), file);
    if (!file.empty()) s.plan_files[std::string(c.system_name)] = file;
  }
  return s;
}

void check_config(const SystemConfig& config) {
  const Settings settings = settings_of(config);
  if (settings.compute != "gpu") return;
  for (const auto* list : {&config.all_reduce, &config.all_gather, &config.reduce_scatter, &config.all_to_all}) {
    for (const CollectiveImplementation& impl : *list) {
      if (impl.algorithm != nullptr && impl.algorithm->name == "load-store") return;
    }
  }
  throw Error(
      "load-store-compute 'gpu' runs compute nodes on the load-store GPU model, which a run has only when an "
      "*-implementation list names 'load-store'");
}

}  // namespace snr::dsim::load_store
