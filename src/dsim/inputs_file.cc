#include "dsim/inputs_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"

namespace snr::dsim {
namespace {

constexpr std::array<std::string_view, 11> kKeys = {
    "workload_configuration",     "system_configuration", "network_configuration", "remote_memory_configuration",
    "comm_group_configuration",   "perturbation_configuration", "network_backend",  "compute_scale",
    "comm_scale",                 "injection_scale",      "dangling_dependencies"};

std::string absolute_text(const std::filesystem::path& path) {
  return path.empty() ? std::string() : std::filesystem::absolute(path).lexically_normal().string();
}

const char* dangling_name(DanglingDependencies d) { return d == DanglingDependencies::kIgnore ? "ignore" : "error"; }

}  // namespace

std::string inputs_json(const SimulationInputs& inputs) {
  nlohmann::ordered_json out;
  out["workload_configuration"] = absolute_text(inputs.workload_prefix);
  out["system_configuration"] = absolute_text(inputs.system_configuration);
  out["network_configuration"] = absolute_text(inputs.network_configuration);
  out["remote_memory_configuration"] = absolute_text(inputs.remote_memory_configuration);
  out["comm_group_configuration"] = absolute_text(inputs.comm_group_configuration);
  out["perturbation_configuration"] = absolute_text(inputs.perturbation_configuration);
  out["network_backend"] = inputs.backend;
  out["compute_scale"] = inputs.scales.compute;
  out["comm_scale"] = inputs.scales.comm;
  out["injection_scale"] = inputs.injection_scale;
  out["dangling_dependencies"] = dangling_name(inputs.dangling_dependencies);
  return out.dump(2) + "\n";
}

SimulationInputs parse_inputs_json(std::string_view text, std::string_view source) {
  const nlohmann::json doc = parse_json_input(text, source);
  return with_error_context(std::string(source), [&] {
    if (!doc.is_object()) throw Error("expected an object of simulation inputs");
    for (const auto& [key, value] : doc.items()) {
      if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
        throw Error(fmt::format("unknown key '{}'", key));
      }
    }
    const auto text_of = [&](std::string_view key, bool required) {
      const auto it = doc.find(std::string(key));
      if (it == doc.end()) throw Error(fmt::format("key '{}' is missing", key));
      if (!it->is_string()) throw Error(fmt::format("key '{}' must be a string", key));
      auto value = it->get<std::string>();
      if (required && value.empty()) throw Error(fmt::format("key '{}' must name a file", key));
      return value;
    };
    const auto number_of = [&](std::string_view key) {
      const auto it = doc.find(std::string(key));
      if (it == doc.end()) throw Error(fmt::format("key '{}' is missing", key));
      if (!it->is_number()) throw Error(fmt::format("key '{}' must be a number", key));
      return it->get<double>();
    };
    SimulationInputs inputs;
    inputs.workload_prefix = text_of("workload_configuration", true);
    inputs.system_configuration = text_of("system_configuration", true);
    inputs.network_configuration = text_of("network_configuration", true);
    inputs.remote_memory_configuration = text_of("remote_memory_configuration", true);
    inputs.comm_group_configuration = text_of("comm_group_configuration", false);
    inputs.perturbation_configuration = text_of("perturbation_configuration", false);
    inputs.backend = text_of("network_backend", true);
    inputs.scales.compute = number_of("compute_scale");
    inputs.scales.comm = number_of("comm_scale");
    check_workload_scales(inputs.scales);
    inputs.injection_scale = number_of("injection_scale");
    if (!std::isfinite(inputs.injection_scale) || inputs.injection_scale < 0 || inputs.injection_scale > kMaxScale) {
      throw Error(fmt::format("key 'injection_scale' {} is out of range: valid 0 .. {:g}", inputs.injection_scale,
                              kMaxScale));
    }
    inputs.dangling_dependencies = parse_dangling_dependencies(text_of("dangling_dependencies", true));
    return inputs;
  });
}

SimulationInputs read_inputs_file(const std::filesystem::path& path) {
  return parse_inputs_json(read_file(path), path.string());
}

}  // namespace snr::dsim
