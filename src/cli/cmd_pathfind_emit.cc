// snr pathfind emit <predict's options> -o DIR
// A prediction as inputs of `snr sim`: DIR/trace.<rank>.et (+
// trace.comm_groups.json), DIR/network.yml, system.json, remote_memory.json,
// and DIR/prediction.json to compare against, so the same design runs at
// cluster scale with the simulator's congestion model.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/pathfind_predict_options.h"
#include "common/file_io.h"
#include "common/output.h"
#include "pathfind/emit/npu_config.h"
#include "pathfind/emit/sim_config.h"
#include "pathfind/emit/trace.h"
#include "pathfind/predict/prediction_json.h"

namespace {

using namespace snr::pathfind;

struct EmitArgs {
  snr::cli::PredictOptions inputs;
  std::string output;
};

void run_emit(const EmitArgs& a) {
  const std::filesystem::path dir = a.output;
  snr::output::check_output_directory(dir);
  snr::cli::check_inputs_survive_output(dir, a.inputs, [](const std::string& name) {
    return name == "prediction.json" || name == "network.yml" || name == "system.json" ||
           name == "remote_memory.json" || name == "npu.yaml" ||
           (name.starts_with("trace.") && (name.ends_with(".et") || name == "trace.comm_groups.json"));
  });
  PredictInputs in = snr::cli::load_predict_inputs(a.inputs).inputs;
  Prediction r = predict(in);
  snr::et::Workload workload = emit_traces(in, r);
  snr::hw::NetworkConfigFiles configs = emit_sim_config(in.device, r);
  // A generated NPU also becomes a hardware config for snr compile / run;
  // built before anything is written so a refusal leaves no partial output.
  const bool npu = in.arch && in.arch->mcu.rows == 128 && in.arch->mcu.cols == 128;
  std::optional<std::string> npu_yaml;
  if (npu) npu_yaml = "preset: tpu-v4-like\n" + npu_config(in.device, r.devices).to_yaml();
  snr::hw::write_network_config(configs, dir);
  snr::write_file_atomic(dir / "prediction.json", prediction_json(in, r).dump(2) + "\n");
  snr::et::write_workload(workload, dir / "trace");
  if (npu_yaml) snr::write_file_atomic(dir / "npu.yaml", *npu_yaml);
  size_t nodes = 0;
  for (const auto& rank : workload.ranks) nodes += rank.size();
  const bool groups = workload.groups.size() > 1;
  fmt::print("predicted {} {:.6g} s on {} devices; wrote {} ranks ({} nodes) and the simulator configs to {}\n",
             r.time_name, r.time_s, r.devices, workload.ranks.size(), nodes, dir.string());
  fmt::print("run: snr sim --workload-configuration={0}/trace --system-configuration={0}/system.json "
             "--network-configuration={0}/network.yml --remote-memory-configuration={0}/remote_memory.json{1}\n",
             dir.string(), groups ? fmt::format(" --comm-group-configuration={}/trace.comm_groups.json", dir.string())
                                  : std::string());
  if (npu) {
    fmt::print("NPU config: {0}/npu.yaml (snr compile SPEC -o MODEL --set hardware={0}/npu.yaml; snr run MODEL)\n",
               dir.string());
  }
}

void setup_pathfind_emit(CLI::App& parent, snr::cli::CommandContext& /*ctx*/) {
  auto args = std::make_shared<EmitArgs>();
  auto* sub = parent.add_subcommand(
      "emit", "Write a prediction as Chakra traces (one per rank) and ASTRA-sim configs for snr sim");
  snr::cli::add_predict_options(sub, args->inputs);
  sub->add_option("-o,--output", args->output,
                  "directory for trace.<rank>.et, trace.comm_groups.json, network.yml, system.json, "
                  "remote_memory.json and prediction.json")
      ->required();
  snr::cli::set_examples(sub, {"snr pathfind emit --hw a100-80gb --model examples/pathfind/gpt3-175B-train.yaml "
                               "--parallelism tp=8,pp=8,sp,recompute=selective -o out/emit"});
  sub->callback([args] { run_emit(*args); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(pathfind, "Cross-stack performance model: kernels, training iterations, generated hardware",
                        emit, setup_pathfind_emit);
