// snr pathfind train --model M.json --system S.json --execution E.json
//   [--hw PRESET|FILE] [--json]
// One Megatron training iteration from Calculon-format inputs: iteration
// time, per-kernel breakdown of one block, pipeline bubble, memory per
// device and the out-of-memory verdict.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "common/file_io.h"
#include "pathfind/llm/calculon.h"
#include "pathfind/llm/report_json.h"

namespace {

struct TrainArgs {
  std::string model, system, execution;
  std::string hw;  // "": the preset matching the system file (calculon_base_device)
  uint64_t vocab = 0;
  bool json = false;
};

int run_train(const TrainArgs& a) {
  using namespace snr::pathfind;
  const std::string system_json = snr::read_file(a.system);
  const CalculonBase base = calculon_base_device(system_json, a.system, a.hw);
  if (!base.note.empty()) fmt::print(stderr, "snr: note: {}\n", base.note);
  DeviceSpec device = parse_calculon_system(system_json, a.system, base.device);
  TransformerModel model = load_calculon_model(a.model);
  model.vocab_size = a.vocab;
  CalculonExecution exec = load_calculon_execution(a.execution);
  IterationPrediction r = predict_training_iteration(device, model, exec.parallelism, exec.job);
  const Parallelism& p = exec.parallelism;
  if (a.json) {
    nlohmann::ordered_json j;
    j["iteration_s"] = r.iteration_s;
    j["pipeline_s"] = r.pipeline_s;
    j["bubble_s"] = r.bubble_s;
    j["dp_allreduce_s"] = r.dp_allreduce_s;
    j["optimizer_s"] = r.optimizer_s;
    j["block_forward_s"] = r.block_forward_s;
    j["block_backward_s"] = r.block_backward_s;
    j["pipeline_p2p_s"] = r.pipeline_p2p_s;
    j["head_s"] = r.head_s;
    j["microbatches"] = r.microbatches;
    j["blocks_per_device"] = r.blocks_per_device;
    j["model_flops_per_device"] = r.model_flops_per_device;
    j["mfu"] = r.mfu;
    j["parameters"] = model.total_parameters();
    j["memory"] = memory_json(r.memory);
    j["kernels"] = kernel_times_json(r.kernels);
    j["head_kernels"] = kernel_times_json(r.head_kernels);
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{} ({:.4g} B parameters{}): {} devices = tp {} x pp {} (interleave {}) x dp {}, {}, recompute {}\n",
               model.name, model.total_parameters() / 1e9, model.vocab_size == 0 ? " without an embedding: no --vocab" : "",
               p.devices, p.tp, p.pp, p.interleave, p.dp, p.sequence_parallel ? "sequence parallel" : "all-reduce TP",
               recompute_name(p.recompute));
    fmt::print("iteration {:.3f} s  (pipeline {:.3f} s incl. bubble {:.3f} s, DP all-reduce {:.3f} s, optimizer {:.3f} s), MFU {:.1f}%\n",
               r.iteration_s, r.pipeline_s, r.bubble_s, r.dp_allreduce_s, r.optimizer_s, r.mfu * 100);
    fmt::print("{} microbatches, {} blocks per device; one block per microbatch: forward {:.3f} ms, backward+recompute {:.3f} ms, p2p {:.3f} ms\n",
               r.microbatches, r.blocks_per_device, r.block_forward_s * 1e3, r.block_backward_s * 1e3,
               r.pipeline_p2p_s * 1e3);
    fmt::print("  {:<36} {:<6} {:<9} {:>10} {:>10} {:>10}\n", "kernel", "kind", "bound", "fwd ms", "bwd ms", "recomp ms");
    for (const KernelTime& k : r.kernels) {
      fmt::print("  {:<36} {:<6} {:<9} {:>10.3f} {:>10.3f} {:>10.3f}\n", k.name, kernel_kind_name(k.kind), k.bound,
                 k.forward_s * 1e3, k.backward_s * 1e3, k.recompute_s * 1e3);
    }
    const double gib = 1024.0 * 1024 * 1024;
    fmt::print("memory per device: weights {:.1f} + grads {:.1f} + optimizer {:.1f} + activations {:.1f} = {:.1f} GiB of {:.1f} GiB: {}\n",
               r.memory.weights_bytes / gib, r.memory.gradients_bytes / gib, r.memory.optimizer_bytes / gib,
               r.memory.activations_bytes / gib, r.memory.total_bytes / gib, r.memory.capacity_bytes / gib,
               r.memory.fits ? "fits" : "OUT OF MEMORY");
  }
  return r.memory.fits ? 0 : 3;
}

void setup_pathfind_train(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<TrainArgs>();
  auto* sub = parent.add_subcommand("train", "Predict one Megatron training iteration from Calculon-format JSON inputs "
                                             "(exit 3 when it does not fit in memory)");
  sub->add_option("--model", args->model, "Calculon model JSON (hidden, feedforward, seq_size, ...)")->required();
  sub->add_option("--system", args->system, "Calculon system JSON (rates, memory, networks)")->required();
  sub->add_option("--execution", args->execution, "Calculon execution JSON (parallelism, batch, recompute)")->required();
  sub->add_option("--hw", args->hw,
                  "device preset or YAML giving the chip's insides (default: the GPU preset whose 16-bit peak is "
                  "within 5% of the system file's matrix rate, else a100-80gb)");
  sub->add_option("--vocab", args->vocab,
                  "vocabulary of the output layer on the last stage (Calculon's model files have none; "
                  "Korthikanti et al. Table 5 used 51200); 0 leaves it out")
      ->capture_default_str();
  sub->add_flag("--json", args->json, "print one JSON object");
  snr::cli::set_examples(sub, {"snr pathfind train --model ../shared/data/pathfinder/calculon/models/gpt3-175B.json --system ../shared/data/pathfinder/calculon/systems/a100_80g.json --execution ../shared/data/pathfinder/calculon/validation/seqsel/tab5/gpt3-175B_seqsel.json"});
  sub->callback([args, &ctx] { ctx.exit_code = run_train(*args); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(pathfind, "Cross-stack performance model: kernels, training iterations, generated hardware",
                        train, setup_pathfind_train);
