// The `pathfind` run kind: each point is `snr pathfind predict` in
// process. The device (a preset, a file, or generated from technology,
// template and budget), the workload, the parallelism and the mapping come
// from the base; grid keys replace or edit them. Devices and workloads are
// read once per distinct set of their keys' values, so a sweep over the
// parallelism reads the device once.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "common/error.h"
#include "pathfind/age/arch_template.h"
#include "pathfind/age/budget.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/age/generate.h"
#include "pathfind/age/technology.h"
#include "pathfind/inputs/device_writer.h"
#include "pathfind/predict/predict.h"
#include "sweep/inputs.h"
#include "sweep/run_kind.h"

namespace snr::sweep {
namespace {

using namespace snr::pathfind;

// Caches are cleared when they grow past this many entries (a random
// sweep over device fields makes every device distinct).
constexpr size_t kMaxCached = 4096;

BuiltinLookup names_in(std::vector<std::string_view> names, std::string (*text)(std::string_view)) {
  return [names = std::move(names), text](std::string_view name) -> std::optional<std::string> {
    for (std::string_view n : names) {
      if (n == name) return text(name);
    }
    return std::nullopt;
  };
}

std::string preset_yaml(std::string_view name) { return format_device_yaml(device_preset(name)); }

struct Device {
  DeviceSpec spec;
  std::optional<age::ArchitectureTemplate> arch;
};

class PathfindRun final : public PreparedRun {
 public:
  PathfindRun(const YAML::Node& base, const std::filesystem::path& dir)
      : device_("device", "device", false, names_in(device_preset_names(), preset_yaml), dir),
        tech_("tech", "technology", false, names_in(age::builtin_technology_names(), age::builtin_input_yaml), dir),
        arch_("arch", "template", false, names_in(age::builtin_template_names(), age::builtin_input_yaml), dir),
        budget_("budget", "", false, names_in(age::builtin_budget_names(), age::builtin_input_yaml), dir),
        model_("model", "workload", false, {}, dir) {
    bool generated = false;
    for (auto it = base.begin(); it != base.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (key == "device") device_.set_base(it->second);
      else if (key == "tech") tech_.set_base(it->second);
      else if (key == "arch") arch_.set_base(it->second);
      else if (key == "budget") budget_.set_base(it->second);
      else if (key == "model") model_.set_base(it->second);
      else if (key == "parallelism") parallelism_ = scalar_value(it->second, "base parallelism");
      else if (key == "mapping") mapping_ = scalar_value(it->second, "base mapping");
      else {
        throw Error(fmt::format("base: unknown key '{}' for a pathfind sweep (device or tech, arch and budget; "
                                "model, parallelism, mapping)", key));
      }
      generated = generated || key == "tech" || key == "arch" || key == "budget";
    }
    generated_ = generated;
    if (generated == device_.has_base()) {
      throw Error("base: give either device (a preset, a file or a map) or tech, arch and budget (a generated device)");
    }
    if (generated && !(tech_.has_base() && arch_.has_base() && budget_.has_base())) {
      throw Error("base: a generated device needs all three of tech, arch and budget");
    }
    if (!model_.has_base()) throw Error("base: model missing (a workload file or map)");
    if (parallelism_.empty()) throw Error("base: parallelism missing (e.g. \"tp=8,pp=8,dp=1\")");
  }

  void check_base() override { inputs({}, {}); }
  void check(const std::string& key, const YAML::Node& value) override { inputs({key}, {value}); }

  nlohmann::ordered_json run(const std::vector<std::string>& keys, const std::vector<YAML::Node>& values) override {
    const PredictInputs in = inputs(keys, values);
    const Prediction r = predict(in);
    nlohmann::ordered_json out;
    out["time_s"] = r.time_s;
    out["time_name"] = r.time_name;
    out["bottleneck"] = r.bottleneck;
    out["devices"] = r.devices;
    out["strategy"] = in.strategy.to_string();
    out["ordering"] = order_name(r.mapping.order);
    out["memory_fits"] = r.memory.fits ? 1 : 0;
    out["memory_bytes"] = r.memory.total_bytes;
    out["memory_capacity_bytes"] = r.memory.capacity_bytes;
    out["mfu"] = r.training ? nlohmann::ordered_json(r.mfu) : nlohmann::ordered_json();
    out["tokens_per_s"] = r.inference ? nlohmann::ordered_json(r.tokens_per_s) : nlohmann::ordered_json();
    out["device_name"] = in.device.name;
    out["peak_flops_per_s"] = in.device.peak_flops_per_s(in.workload.dtype);
    out["main_memory_bytes_per_s"] = in.device.main_memory().bandwidth_bytes_per_s;
    for (const TimeCause& c : r.causes) out["time_s." + c.cause] = c.seconds;
    return out;
  }

 private:
  PredictInputs inputs(const std::vector<std::string>& keys, const std::vector<YAML::Node>& values) {
    PredictInputs in;
    const Device& device = device_for(keys, values);
    in.device = device.spec;
    in.arch = device.arch;
    in.workload = workload_for(keys, values);
    std::string parallelism = parallelism_, mapping = mapping_;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == "parallelism") parallelism = scalar_value(values[i], "key 'parallelism'");
      if (keys[i] == "mapping") mapping = scalar_value(values[i], "key 'mapping'");
    }
    in.strategy = parse_strategy(parallelism);
    if (mapping != "best") in.order = parse_dimension_order(mapping);
    return in;
  }

  const Device& device_for(const std::vector<std::string>& keys, const std::vector<YAML::Node>& values) {
    const InputEdits device = edits_of("device", keys, values);
    const InputEdits tech = edits_of("tech", keys, values);
    const InputEdits arch = edits_of("arch", keys, values);
    const InputEdits budget = edits_of("budget", keys, values);
    const std::string signature = device.signature + tech.signature + arch.signature + budget.signature;
    if (auto it = devices_.find(signature); it != devices_.end()) return it->second;
    if (generated_ && device.whole != nullptr) {
      throw Error("key 'device': the base device is generated (tech, arch, budget); vary those, or device.<field>");
    }
    if (!generated_ && !(tech.signature + arch.signature + budget.signature).empty()) {
      throw Error("keys tech, arch and budget need a generated base device (base: tech, arch, budget)");
    }
    Device out;
    if (generated_) {
      const InputText t = tech_.edited(tech), a = arch_.edited(arch), b = budget_.edited(budget);
      out.arch = age::parse_template_yaml(a.text, a.source);
      out.spec = age::generate_architecture(age::parse_technology_yaml(t.text, t.source), *out.arch,
                                            age::parse_budget_yaml(b.text, b.source))
                     .device;
      if (!device.fields.empty()) {
        const YAML::Node written = YAML::Load(format_device_yaml(out.spec));
        out.spec = parse_device_yaml(edited_copy(written, "device", device), "generated device with the grid's values");
      }
    } else {
      const EditableInput::Document d = device_.edited_document(device);
      out.spec = parse_device_yaml(d.yaml, d.source);
    }
    if (devices_.size() >= kMaxCached) devices_.clear();
    return devices_.emplace(signature, std::move(out)).first->second;
  }

  const Workload& workload_for(const std::vector<std::string>& keys, const std::vector<YAML::Node>& values) {
    const InputEdits model = edits_of("model", keys, values);
    if (auto it = workloads_.find(model.signature); it != workloads_.end()) return it->second;
    const EditableInput::Document m = model_.edited_document(model);
    Workload w = parse_workload_yaml(m.yaml, m.source);
    if (workloads_.size() >= kMaxCached) workloads_.clear();
    return workloads_.emplace(model.signature, std::move(w)).first->second;
  }

  EditableInput device_, tech_, arch_, budget_, model_;
  bool generated_ = false;
  std::string parallelism_;
  std::string mapping_ = "best";
  std::map<std::string, Device> devices_;
  std::map<std::string, Workload> workloads_;
};

class PathfindKind final : public RunKind {
 public:
  [[nodiscard]] std::string_view name() const override { return "pathfind"; }
  [[nodiscard]] std::string_view summary() const override {
    return "snr pathfind predict: a device, a workload and a parallelism -> time, causes, memory";
  }
  [[nodiscard]] std::vector<KeySpec> keys() const override {
    return {{"device", "device preset, YAML file or map (base without tech/arch/budget)", true},
            {"tech", "technology library of a generated device: built-in name, file or map", true},
            {"arch", "architecture template of a generated device", true},
            {"budget", "budgets of a generated device", true},
            {"model", "workload file or map (transformer, gemm, lstm)", true},
            {"parallelism", "tp=,pp=,dp=,... or RC-/CR- notation", false},
            {"mapping", "order of the parallel dimensions (r,c,p,d) or best", false}};
  }
  [[nodiscard]] std::vector<OutputColumn> outputs() const override {
    using enum ColumnType;
    return {{"time_s", kReal, "iteration, step or GEMM time"},
            {"time_name", kText, "iteration, prefill step, decode step or gemm"},
            {"bottleneck", kText, "the largest cause of time"},
            {"devices", kInteger, "devices the parallelism uses"},
            {"strategy", kText, "the parallelism as predict read it"},
            {"ordering", kText, "the mapping's order of the parallel dimensions"},
            {"memory_fits", kInteger, "1 when the footprint fits the device's main memory"},
            {"memory_bytes", kReal, "memory footprint per device"},
            {"memory_capacity_bytes", kReal, "main memory per device"},
            {"mfu", kReal, "model flops utilization (training)"},
            {"tokens_per_s", kReal, "tokens per second (inference)"},
            {"device_name", kText, "device name"},
            {"peak_flops_per_s", kReal, "device peak matrix rate for the workload's dtype"},
            {"main_memory_bytes_per_s", kReal, "device main-memory bandwidth"}};
  }
  [[nodiscard]] std::string_view varying_output_prefix() const override { return "time_s."; }
  [[nodiscard]] std::string_view objective() const override { return "time_s"; }
  [[nodiscard]] std::string_view feasible() const override { return "memory_fits"; }
  [[nodiscard]] std::unique_ptr<PreparedRun> prepare(const YAML::Node& base,
                                                     const std::filesystem::path& grid_dir) const override {
    return std::make_unique<PathfindRun>(base, grid_dir);
  }
};

}  // namespace

std::unique_ptr<RunKind> make_pathfind_kind() { return std::make_unique<PathfindKind>(); }

}  // namespace snr::sweep
