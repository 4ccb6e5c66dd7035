// The options `snr pathfind predict` and `snr pathfind emit` share: the
// device (--hw, or --tech/--arch/--budget for a generated one), the
// workload, the parallelism and the mapping, and how they become
// PredictInputs.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <system_error>

#include "common/error.h"
#include "common/output.h"
#include "pathfind/age/generate.h"
#include "pathfind/predict/predict.h"

namespace snr::cli {

struct PredictOptions {
  std::string hw, tech, arch, budget;
  std::string model;
  std::string parallelism;
  std::string mapping = "best";
  uint64_t devices = 0;  // 0: as many as the parallelism uses
};

// --tech, --arch and --budget: the inputs of the generator (AGE).
inline void add_generator_options(CLI::App* sub, PredictOptions& o) {
  sub->add_option("--tech", o.tech, "technology library for a generated device (built-in n7 or YAML)");
  sub->add_option("--arch", o.arch, "architecture template for a generated device (built-in gpu-16x16 or YAML)");
  sub->add_option("--budget", o.budget, "budgets for a generated device (built-in a100-like or YAML)");
}

inline void add_predict_options(CLI::App* sub, PredictOptions& o) {
  sub->add_option("--hw", o.hw, "device preset (v100, a100-80gb, h100-sxm, tpu-v4-like, tpu-v5e-like) or YAML");
  add_generator_options(sub, o);
  sub->add_option("--model", o.model, "workload YAML (transformer training/prefill/decode or a GEMM)")->required();
  sub->add_option("--parallelism", o.parallelism,
                  "RC-{KP1}-{KP2}-d{DP}-p{LP}, CR-{KP1}-d{DP}-p{LP}, or tp=,pp=,dp=,interleave=,sp,recompute=,zero1")
      ->required();
  sub->add_option("--devices", o.devices,
                  "devices in the system; the parallelism's product must equal it (default: whatever it uses)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  sub->add_option("--mapping", o.mapping,
                  "order of the parallel dimensions on the system, fastest first (e.g. r,c,p,d), or best of all 24")
      ->capture_default_str();
}

// An input file kept in the -o directory under a name the run writes there
// (`--hw out/device.yaml -o out`) would be replaced by what was made from
// it; refused before anything is read. Built-in names are not files.
inline void check_inputs_survive_output(const std::filesystem::path& dir, const PredictOptions& o,
                                        const std::function<bool(const std::string& name)>& written) {
  std::error_code ec;
  for (const std::string* input : {&o.hw, &o.tech, &o.arch, &o.budget, &o.model}) {
    if (input->empty() || !std::filesystem::is_regular_file(*input, ec)) continue;
    const std::filesystem::path name = std::filesystem::path(*input).filename();
    if (written(name.string())) snr::output::check_output_is_not_input(dir / name, *input, "-o");
  }
}

// "kernel_row,kernel_col,pipeline,data" or "r,c,p,d": each dimension once.
inline pathfind::DimOrder parse_dimension_order(const std::string& text) {
  return pathfind::parse_dimension_order(text, "--mapping");
}

struct LoadedInputs {
  pathfind::PredictInputs inputs;
  std::optional<pathfind::age::GeneratedArchitecture> generated;  // with --tech/--arch/--budget
};

inline LoadedInputs load_predict_inputs(const PredictOptions& o) {
  using namespace pathfind;
  const bool generated = !o.tech.empty() || !o.arch.empty() || !o.budget.empty();
  if (generated == !o.hw.empty()) {
    throw Error("give either --hw (a device preset or file) or --tech, --arch and --budget (a generated device)");
  }
  if (generated && (o.tech.empty() || o.arch.empty() || o.budget.empty())) {
    throw Error("a generated device needs all three of --tech, --arch and --budget");
  }
  LoadedInputs loaded;
  PredictInputs& in = loaded.inputs;
  if (generated) {
    age::ArchitectureTemplate arch = age::load_template(o.arch);
    loaded.generated = age::generate_architecture(age::load_technology(o.tech), arch, age::load_budget(o.budget));
    in.device = loaded.generated->device;
    in.arch = std::move(arch);
  } else {
    in.device = load_device(o.hw);
  }
  in.workload = load_workload(o.model);
  in.strategy = parse_strategy(o.parallelism);
  if (o.devices != 0) check_devices(in.strategy.notation, o.devices);
  if (o.mapping != "best") in.order = parse_dimension_order(o.mapping);
  return loaded;
}

}  // namespace snr::cli
