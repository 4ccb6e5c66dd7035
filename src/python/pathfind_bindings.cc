// snr.pathfind: the cross-stack model from Python. Every argument goes
// through the reader the CLI uses, and the result is the JSON
// `snr pathfind predict --json` prints, as plain Python values.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>

#include "cli/pathfind_generated_report.h"
#include "common/error.h"
#include "pathfind/age/generate.h"
#include "pathfind/mapping/notation.h"
#include "pathfind/predict/prediction_json.h"
#include "pathfind/predict/predict.h"
#include "pathfind/search/search.h"
#include "pathfind/search/strategies.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace snr::python {
namespace {

using namespace snr::pathfind;

template <typename Parse, typename Load>
auto read_config(const ConfigArg& arg, Parse parse, Load load) {
  return arg.text ? parse(*arg.text, arg.display()) : load(arg.name_or_path);
}

struct PredictCall {
  PredictInputs inputs;
  std::optional<age::GeneratedArchitecture> generated;
};

// The text overloads of readers that also take a parsed YAML node.
DeviceSpec parse_device_text(std::string_view text, std::string_view source) { return parse_device_yaml(text, source); }
Workload parse_workload_text(std::string_view text, std::string_view source) {
  return parse_workload_yaml(text, source);
}

PredictCall predict_call(const py::object& model, const std::string& parallelism, const py::object& hw,
                         const py::object& tech, const py::object& arch, const py::object& budget,
                         const std::string& mapping, uint64_t devices) {
  const ConfigArg hw_arg = config_arg(hw, "hw"), tech_arg = config_arg(tech, "tech");
  const ConfigArg arch_arg = config_arg(arch, "arch"), budget_arg = config_arg(budget, "budget");
  const ConfigArg model_arg = config_arg(model, "model");
  const bool generated = tech_arg.given() || arch_arg.given() || budget_arg.given();
  if (generated == hw_arg.given()) {
    throw Error("give either hw (a device preset, file or dict) or tech, arch and budget (a generated device)");
  }
  if (generated && !(tech_arg.given() && arch_arg.given() && budget_arg.given())) {
    throw Error("a generated device needs all three of tech, arch and budget");
  }
  if (!model_arg.given()) throw Error("model: give a workload file or dict");
  PredictCall call;
  PredictInputs& in = call.inputs;
  if (generated) {
    age::ArchitectureTemplate tmpl = read_config(arch_arg, age::parse_template_yaml, age::load_template);
    call.generated = age::generate_architecture(
        read_config(tech_arg, age::parse_technology_yaml, age::load_technology), tmpl,
        read_config(budget_arg, age::parse_budget_yaml, age::load_budget));
    in.device = call.generated->device;
    in.arch = std::move(tmpl);
  } else {
    in.device = read_config(hw_arg, parse_device_text, load_device);
  }
  in.workload = read_config(model_arg, parse_workload_text, load_workload);
  in.strategy = parse_strategy(parallelism);
  if (devices != 0) check_devices(in.strategy.notation, devices);
  if (mapping != "best") in.order = parse_dimension_order(mapping, "mapping");
  return call;
}

py::object predict_py(const py::object& model, const std::string& parallelism, const py::object& hw,
                      const py::object& tech, const py::object& arch, const py::object& budget,
                      const std::string& mapping, uint64_t devices) {
  PredictCall call = predict_call(model, parallelism, hw, tech, arch, budget, mapping, devices);
  nlohmann::ordered_json result;
  {
    py::gil_scoped_release release;
    const Prediction prediction = predict(call.inputs);
    result = prediction_json(call.inputs, prediction);
    if (call.generated) {
      nlohmann::ordered_json components = nlohmann::ordered_json::array();
      for (const auto& c : call.generated->components) components.push_back(cli::component_json(c));
      result["generated"] = std::move(components);
    }
  }
  return to_python(result);
}

constexpr const char* kPredictDoc = R"(Predict a workload on a device under a parallelism strategy.

The same model as `snr pathfind predict --json`: the device's shards are
mapped onto the system graph, every kernel goes through the hierarchical
roofline, collectives are timed on the links the mapping leaves them, and
the result says where the time goes and whether it fits in memory.

Arguments (configs are a dict in the file's schema, a path, or a built-in
name; docs/formats/pathfind-inputs.md lists every key and its unit):
  model        workload: transformer training / prefill / decode, a GEMM
               or the LSTM language model (a YAML file or a dict).
  parallelism  seed 004's notation ("RC-4-2-d3-p2", "CR-8-d4-p2") or
               Megatron's ("tp=8,pp=8,dp=1,sp,recompute=selective").
  hw           device: preset name (v100, a100-80gb, h100-sxm, tpu-v4-like,
               tpu-v5e-like), a device YAML path or a dict. Or instead:
  tech, arch, budget
               technology library, architecture template and budgets
               (built-in n7, gpu-16x16/npu-128x128, a100-like/npu-v4-like,
               paths or dicts): the device is generated first.
  mapping      "best" (all 24 orderings) or the order of the parallel
               dimensions on the system, fastest first ("r,c,p,d").
  devices      devices in the system; 0 = as many as the parallelism uses.

Returns a dict: time_s (seconds of the iteration, step or GEMM), time_name,
bottleneck, causes (list of {cause, seconds}), mapping, dims, kernels
(seconds per kernel), memory (bytes), mfu (0..1) or tokens_per_s, and
generated (per component: budgets in mm2 / W / mm, units, bound) for a
generated device. Raises snr.Error for inconsistent inputs; a design that
does not fit in memory is a result (memory["fits"] is False).
The GIL is released while the model runs.)";

py::object search_py(const py::object& model, const std::string& parallelism, const py::object& tech,
                     const py::object& arch, const py::object& budget, uint64_t devices, const std::string& strategy,
                     const std::map<std::string, double>& settings, uint64_t seed) {
  const ConfigArg model_arg = config_arg(model, "model");
  if (!model_arg.given()) throw Error("model: give a workload file or dict");
  search::SearchInputs in;
  in.tech = read_config(config_arg(tech, "tech"), age::parse_technology_yaml, age::load_technology);
  in.arch = read_config(config_arg(arch, "arch"), age::parse_template_yaml, age::load_template);
  in.budget = read_config(config_arg(budget, "budget"), age::parse_budget_yaml, age::load_budget);
  in.workload = read_config(model_arg, parse_workload_text, load_workload);
  in.strategies = search::strategies_to_search(in.workload, parallelism, devices);
  in.engine = strategy;
  in.config = settings;
  in.seed = seed;
  nlohmann::ordered_json result;
  {
    py::gil_scoped_release release;
    result = search::search_result_json(search::search(in));
  }
  return to_python(result);
}

constexpr const char* kSearchDoc = R"(Search the design space (seed 004's SOE, `snr pathfind search --json`).

The area, power and perimeter fractions of the budget are searched by the
named strategy for each parallelism strategy; every design is generated
from the technology library and template and predicted on the workload.

Arguments (configs: dict, path or built-in name):
  model        workload (file or dict), as for predict().
  parallelism  one strategy ("CR-8-d64-p1", "tp=8,pp=4,dp=2") or "search"
               (every strategy for `devices`; "search,sp,recompute=selective"
               adds transformer options).
  tech, arch, budget
               technology library, architecture template, budgets (the
               totals: chip area mm2, TDP W; the breakdown is the first
               starting point). Defaults: n7, gpu-16x16, a100-like.
  devices      devices in the system (needed by parallelism="search").
  strategy     search strategy by name: "gd" (projected gradient descent,
               equation 6) or "random" (uniform feasible designs).
  settings     the strategy's keys, e.g. {"steps": 100, "starts": 10,
               "lr": 0.1, "beta": 0.5} for gd or {"samples": 1000} for
               random; unknown keys and values out of range raise snr.Error.
  seed         seed of the starting points and draws (same seed, same result).

Returns a dict: best (budget fractions, generated device, time_s in
seconds, strategy, ordering, power_used_w, area_used_mm2, trajectory),
strategies (best per parallelism strategy), pareto (time_s, power_w,
area_mm2 of every non-dominated feasible design), evaluations. The GIL is
released while it runs.)";

}  // namespace

void bind_pathfind(py::module_& snr_module) {
  py::module_ pathfind = snr_module.def_submodule("pathfind", "Cross-stack performance model (seed 004)");
  pathfind.def("predict", &predict_py, kPredictDoc, py::arg("model"), py::arg("parallelism"), py::kw_only(),
               py::arg("hw") = py::none(), py::arg("tech") = py::none(), py::arg("arch") = py::none(),
               py::arg("budget") = py::none(), py::arg("mapping") = "best", py::arg("devices") = 0);
  pathfind.def("search", &search_py, kSearchDoc, py::arg("model"), py::arg("parallelism"), py::kw_only(),
               py::arg("tech") = "n7", py::arg("arch") = "gpu-16x16", py::arg("budget") = "a100-like",
               py::arg("devices") = 0, py::arg("strategy") = "gd",
               py::arg("settings") = std::map<std::string, double>{}, py::arg("seed") = 1);
}

}  // namespace snr::python
