// The `sim` run kind: each point is `snr sim` in process. The trace set,
// the system, network, remote-memory and perturbation configurations, the
// backend and the scales come from the base; grid keys replace inputs or
// edit fields of the configurations (`system.all-reduce-implementation`,
// `network.bandwidth`), which then go through the simulator's readers.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "common/error.h"
#include "dsim/network/registry.h"
#include "dsim/simulator.h"
#include "dsim/workload/workload_options.h"
#include "sweep/inputs.h"
#include "sweep/run_kind.h"

namespace snr::sweep {
namespace {

class SimRun final : public PreparedRun {
 public:
  SimRun(const YAML::Node& base, const std::filesystem::path& dir)
      : dir_(dir),
        system_("system", "", true, {}, dir),
        network_("network", "", false, {}, dir),
        memory_("memory", "", true, {}, dir),
        perturbation_("perturbation", "", true, {}, dir) {
    YAML::Node memory = YAML::Load(R"({"memory-type": "NO_MEMORY_EXPANSION"})");
    for (auto it = base.begin(); it != base.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (key == "system") system_.set_base(it->second);
      else if (key == "network") network_.set_base(it->second);
      else if (key == "memory") memory.reset(it->second);
      else if (key == "perturbation") perturbation_.set_base(it->second);
      else if (key == "workload" || key == "comm-groups" || key == "backend" || key == "compute-scale" ||
               key == "comm-scale" || key == "injection-scale" || key == "dangling-dependencies") {
        scalars_[key] = it->second;
      } else {
        throw Error(fmt::format("base: unknown key '{}' for a sim sweep (workload, system, network, memory, "
                                "perturbation, comm-groups, backend, compute-scale, comm-scale, injection-scale, "
                                "dangling-dependencies)", key));
      }
    }
    memory_.set_base(memory);
    if (!scalars_.contains("workload")) throw Error("base: workload missing (the trace prefix: <prefix>.<rank>.et)");
    if (!system_.has_base()) throw Error("base: system missing (an ASTRA-sim system JSON file or map)");
    if (!network_.has_base()) throw Error("base: network missing (a network YAML file or map)");
    if (scalars_.contains("dangling-dependencies")) {
      dangling_ = dsim::parse_dangling_dependencies(scalar_value(scalars_["dangling-dependencies"], "base "
                                                                                                  "dangling-dependencies"));
    }
  }

  void check_base() override { load({}, {}, true); }
  void check(const std::string& key, const YAML::Node& value) override { load({key}, {value}, true); }

  nlohmann::ordered_json run(const std::vector<std::string>& keys, const std::vector<YAML::Node>& values) override {
    const Loaded loaded = load(keys, values, false);
    const dsim::SimulationResult r = dsim::simulate_documents(loaded.inputs, loaded.documents);
    uint64_t compute_max = 0, exposed_max = 0, exposed_min = UINT64_MAX, finish_min = UINT64_MAX;
    uint64_t communication_max = 0, overlap_min = UINT64_MAX;
    for (const auto& npu : r.npus) {
      compute_max = std::max<uint64_t>(compute_max, npu.compute_ns);
      communication_max = std::max<uint64_t>(communication_max, npu.busy(dsim::NodeActivity::kCommunication));
      overlap_min = std::min<uint64_t>(overlap_min, npu.overlap_ns);
      exposed_max = std::max<uint64_t>(exposed_max, npu.finish_ns - npu.compute_ns);
      exposed_min = std::min<uint64_t>(exposed_min, npu.finish_ns - npu.compute_ns);
      finish_min = std::min<uint64_t>(finish_min, npu.finish_ns);
    }
    uint64_t bytes = 0, bytes_max = 0;
    for (const uint64_t b : r.bytes_sent_per_npu) {
      bytes += b;
      bytes_max = std::max(bytes_max, b);
    }
    const bool any = !r.npus.empty();
    nlohmann::ordered_json out;
    out["finish_ns"] = r.finish_ns();
    out["finish_ns_min"] = any ? finish_min : 0;
    out["compute_ns_max"] = compute_max;
    out["exposed_communication_ns_max"] = exposed_max;
    out["exposed_communication_ns_min"] = any ? exposed_min : 0;
    out["communication_ns_max"] = communication_max;
    out["overlap_ns_min"] = any ? overlap_min : 0;
    out["bytes_sent"] = bytes;
    out["bytes_sent_max"] = bytes_max;
    out["npus"] = r.npus.size();
    out["messages"] = r.messages_sent;
    out["events"] = r.events_processed;
    out["backend_name"] = r.backend_name;
    return out;
  }

 private:
  struct Loaded {
    dsim::SimulationInputs inputs;
    dsim::SimulationDocuments documents;
  };

  // The inputs of one point; with `read_all`, every configuration also
  // goes through its reader (what a check needs; a run leaves that to
  // simulate_documents).
  Loaded load(const std::vector<std::string>& keys, const std::vector<YAML::Node>& values, bool read_all) {
    std::map<std::string, YAML::Node> scalars = scalars_;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].find('.') == std::string::npos && keys[i] != "system" && keys[i] != "network" &&
          keys[i] != "memory" && keys[i] != "perturbation") {
        scalars[keys[i]] = values[i];
      }
    }
    const auto text = [&](const std::string& key) { return scalar_value(scalars.at(key), "key '" + key + "'"); };
    const auto number = [&](const std::string& key, double fallback) {
      return scalars.contains(key) ? number_value(scalars.at(key), "key '" + key + "'") : fallback;
    };
    Loaded out;
    dsim::SimulationInputs& in = out.inputs;
    in.workload_prefix = resolve_path(text("workload"), dir_);
    if (scalars.contains("backend")) in.backend = text("backend");
    in.scales.compute = number("compute-scale", 1);
    in.scales.comm = number("comm-scale", 1);
    in.injection_scale = number("injection-scale", 1);
    in.dangling_dependencies = dangling_;
    dsim::SimulationDocuments& docs = out.documents;
    docs.system = to_config(system_.edited(edits_of("system", keys, values)));
    docs.network = to_config(network_.edited(edits_of("network", keys, values)));
    docs.remote_memory = to_config(memory_.edited(edits_of("memory", keys, values)));
    const InputEdits perturbation = edits_of("perturbation", keys, values);
    if (perturbation_.has_base() || perturbation.whole != nullptr) docs.perturbation = to_config(perturbation_.edited(perturbation));
    if (scalars.contains("comm-groups")) {
      const InputText groups = input_text(scalars.at("comm-groups"), "comm-groups", dir_, "", true);
      docs.comm_groups = dsim::ConfigText{groups.text, groups.source, groups.dir};
    }
    if (read_all) read_configurations(out);
    return out;
  }

  static dsim::ConfigText to_config(const InputText& input) { return {input.text, input.source, input.dir}; }

  static void read_configurations(const Loaded& loaded) {
    const dsim::SimulationInputs& in = loaded.inputs;
    const dsim::SimulationDocuments& docs = loaded.documents;
    const dsim::NetworkBackendSpec& backend = dsim::find_network_backend(in.backend);
    dsim::SystemConfig system = dsim::parse_system_config(docs.system.text, docs.system.source, docs.system.base_dir);
    dsim::apply_injection_scale(system, in.injection_scale);
    dsim::check_workload_scales(in.scales);
    const dsim::NetworkConfig network = dsim::parse_backend_config(backend, docs.network.text, docs.network.source);
    dsim::check_trace_set_size(in.workload_prefix, network.npus_count());
    dsim::parse_remote_memory_config(docs.remote_memory.text, docs.remote_memory.source);
    if (docs.perturbation) {
      dsim::resolve_perturbations(dsim::parse_perturbation_config(docs.perturbation->text, docs.perturbation->source),
                                  network);
    }
    if (docs.comm_groups) dsim::parse_comm_groups(docs.comm_groups->text, docs.comm_groups->source, network.npus_count());
  }

  std::filesystem::path dir_;
  EditableInput system_, network_, memory_, perturbation_;
  std::map<std::string, YAML::Node> scalars_;
  dsim::DanglingDependencies dangling_ = dsim::DanglingDependencies::kError;
};

class SimKind final : public RunKind {
 public:
  [[nodiscard]] std::string_view name() const override { return "sim"; }
  [[nodiscard]] std::string_view summary() const override {
    return "snr sim: Chakra traces on a modelled system and network -> finish time, exposed communication";
  }
  [[nodiscard]] std::vector<KeySpec> keys() const override {
    return {{"workload", "trace prefix (<prefix>.<rank>.et)", false},
            {"system", "ASTRA-sim system JSON file or map", true},
            {"network", "network YAML file or map", true},
            {"memory", "remote-memory JSON file or map", true},
            {"perturbation", "perturbation JSON file or map", true},
            {"comm-groups", "communicator-group JSON file", false},
            {"backend", "network backend name", false},
            {"compute-scale", "multiplies compute durations", false},
            {"comm-scale", "multiplies communication sizes", false},
            {"injection-scale", "multiplies the system's endpoint-delay", false}};
  }
  [[nodiscard]] std::vector<OutputColumn> outputs() const override {
    using enum ColumnType;
    return {{"finish_ns", kInteger, "when the last NPU finished"},
            {"finish_ns_min", kInteger, "when the first NPU finished"},
            {"compute_ns_max", kInteger, "the largest compute time of one NPU"},
            {"exposed_communication_ns_max", kInteger, "the largest exposed communication of one NPU"},
            {"exposed_communication_ns_min", kInteger, "the smallest exposed communication of one NPU"},
            {"communication_ns_max", kInteger, "the longest time one NPU had communication in flight"},
            {"overlap_ns_min", kInteger, "the least time one NPU overlapped GPU compute and communication"},
            {"bytes_sent", kInteger, "bytes sent by all NPUs"},
            {"bytes_sent_max", kInteger, "the most bytes one NPU sent"},
            {"npus", kInteger, "NPUs simulated"},
            {"messages", kInteger, "messages sent"},
            {"events", kInteger, "simulator events"},
            // Not "backend": that is a key a grid may vary (as pathfind's
            // device and device_name).
            {"backend_name", kText, "network backend that ran"}};
  }
  [[nodiscard]] std::string_view varying_output_prefix() const override { return ""; }
  [[nodiscard]] std::string_view objective() const override { return "finish_ns"; }
  [[nodiscard]] std::string_view feasible() const override { return ""; }
  [[nodiscard]] std::unique_ptr<PreparedRun> prepare(const YAML::Node& base,
                                                     const std::filesystem::path& grid_dir) const override {
    return std::make_unique<SimRun>(base, grid_dir);
  }
};

}  // namespace

std::unique_ptr<RunKind> make_sim_kind() { return std::make_unique<SimKind>(); }

}  // namespace snr::sweep
