// snr pathfind predict (--hw D | --tech T --arch A --budget B) --model W.yaml
//   --parallelism P [--mapping ORDER|best] [-o DIR] [--json]
// The whole cross-stack chain (seed 004 §3-§6): the device (a preset, a
// file, or generated from technology, template and budgets), the shards of
// the parallelism mapped onto the system graph, collectives timed on the
// links they get, the end-to-end time, where it goes, and whether it fits.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "cli/pathfind_generated_report.h"
#include "cli/pathfind_predict_options.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/output.h"
#include "pathfind/inputs/device_writer.h"
#include "pathfind/predict/prediction_json.h"
#include "pathfind/predict/predict.h"

namespace {

using namespace snr::pathfind;

struct PredictArgs {
  snr::cli::PredictOptions inputs;
  std::string output;
  bool json = false;
};

std::string kernels_csv(const Prediction& r) {
  std::string out = "part,name,kind,bound,forward_s,backward_s,recompute_s\n";
  for (const auto& [part, list] : {std::pair{"block", &r.kernels}, std::pair{"head", &r.head_kernels}}) {
    for (const KernelTime& k : *list) {
      out += fmt::format("{},{},{},{},{},{},{}\n", part, k.name, kernel_kind_name(k.kind), k.bound, k.forward_s,
                         k.backward_s, k.recompute_s);
    }
  }
  return out;
}

void print_summary(const Prediction& r, const DeviceSpec& device, const Workload& w, const Strategy& s) {
  const double gib = 1024.0 * 1024 * 1024;
  fmt::print("device {}: {} MCUs at {:.4g} GHz, {:.4g} TFLOP/s ({}), {:.4g} GiB at {:.4g} GB/s\n", device.name,
             device.mcu_count(), device.frequency_hz / 1e9, device.peak_flops_per_s(w.dtype) / 1e12,
             dtype_name(w.dtype), device.main_memory().capacity_bytes / gib,
             device.main_memory().bandwidth_bytes_per_s / 1e9);
  const double parameters = workload_parameters(w);
  fmt::print("workload {} ({}{}), parallelism {} on {} devices, mapping {}{}\n", w.name,
             w.kind == WorkloadKind::kGemm ? "gemm" : workload_phase_name(w.phase),
             parameters > 0 ? fmt::format(", {:.4g} B parameters", parameters / 1e9) : "", s.to_string(), r.devices,
             order_name(r.mapping.order), r.orderings.size() > 1 ? fmt::format(" (best of {})", r.orderings.size()) : "");
  fmt::print("  {:<11} {:>6} {:<28} {:>6} {:>8} {:>14}\n", "dimension", "size", "tier", "hops", "sharing",
             "eff. GB/s");
  for (const MappedDimension& d : r.dims) {
    if (d.size == 1) continue;
    fmt::print("  {:<11} {:>6} {:<28} {:>6} {:>8} {:>14.4g}\n", parallel_dim_name(d.dim), d.size, d.tier.name,
               d.traffic.max_hops, d.traffic.max_sharing, d.traffic.effective_bandwidth_bytes_per_s / 1e9);
  }
  std::string extra;
  if (r.training) extra = fmt::format(", MFU {:.1f}%", 100 * r.mfu);
  if (r.inference) extra = fmt::format(", {:.4g} tokens/s", r.tokens_per_s);
  for (const std::string& note : r.notes) fmt::print("note: {}\n", note);
  fmt::print("{} {:.6g} s{}\n", r.time_name, r.time_s, extra);
  fmt::print("bottleneck: {}\n", r.bottleneck);
  double total = 0;
  for (const TimeCause& c : r.causes) total += c.seconds;
  for (const TimeCause& c : r.causes) {
    fmt::print("  {:<40} {:>12.6g} s {:>6.1f}%\n", c.cause, c.seconds, 100 * c.seconds / total);
  }
  fmt::print("  {:<32} {:<6} {:<24} {:>11} {:>11} {:>11}\n", "kernel", "kind", "bound", "fwd ms", "bwd ms",
             "recomp ms");
  for (const auto* list : {&r.kernels, &r.head_kernels}) {
    for (const KernelTime& k : *list) {
      fmt::print("  {:<32} {:<6} {:<24} {:>11.4f} {:>11.4f} {:>11.4f}\n", k.name, kernel_kind_name(k.kind), k.bound,
                 k.forward_s * 1e3, k.backward_s * 1e3, k.recompute_s * 1e3);
    }
  }
  fmt::print("memory per device {:.2f} GiB of {:.2f} GiB: {}\n", r.memory.total_bytes / gib,
             r.memory.capacity_bytes / gib, r.memory.fits ? "fits" : "OUT OF MEMORY");
}

int run_predict(const PredictArgs& a) {
  if (!a.output.empty()) {
    snr::output::check_output_directory(a.output);
    snr::cli::check_inputs_survive_output(a.output, a.inputs, [](const std::string& name) {
      return name == "prediction.json" || name == "kernels.csv" || name == "device.yaml";
    });
  }
  snr::cli::LoadedInputs loaded = snr::cli::load_predict_inputs(a.inputs);
  const PredictInputs& in = loaded.inputs;
  Prediction r = predict(in);
  nlohmann::ordered_json j = prediction_json(in, r);
  if (loaded.generated) {
    nlohmann::ordered_json components = nlohmann::ordered_json::array();
    for (const auto& c : loaded.generated->components) components.push_back(snr::cli::component_json(c));
    j["generated"] = components;
  }
  if (!a.output.empty()) {
    snr::output::StagedDirectory staged(a.output);
    snr::write_file_atomic(staged.path() / "prediction.json", j.dump(2) + "\n");
    snr::write_file_atomic(staged.path() / "kernels.csv", kernels_csv(r));
    snr::write_file_atomic(staged.path() / "device.yaml", format_device_yaml(in.device));
    staged.commit();
  }
  if (a.json) {
    fmt::print("{}\n", j.dump());
  } else {
    if (loaded.generated) snr::cli::print_generated(*loaded.generated);
    print_summary(r, in.device, in.workload, in.strategy);
    if (!a.output.empty()) fmt::print("wrote {}/prediction.json, kernels.csv, device.yaml\n", a.output);
  }
  return r.memory.fits ? 0 : 3;
}

void setup_pathfind_predict(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<PredictArgs>();
  auto* sub = parent.add_subcommand(
      "predict", "Predict a workload on a device under a parallelism: mapping, end-to-end time, bottleneck, memory "
                 "(exit 3 when it does not fit in memory)");
  snr::cli::add_predict_options(sub, args->inputs);
  sub->add_option("-o,--output", args->output, "directory for prediction.json, kernels.csv and device.yaml");
  sub->add_flag("--json", args->json, "print one JSON object (time_s, bottleneck, causes, mapping, kernels, memory)");
  snr::cli::set_examples(
      sub, {"snr pathfind predict --hw a100-80gb --model examples/pathfind/gpt3-175B-train.yaml "
            "--parallelism tp=8,pp=8,dp=1,sp,recompute=selective",
            "snr pathfind predict --tech n7 --arch gpu-16x16 --budget a100-like "
            "--model examples/pathfind/llama-7b-decode.yaml --parallelism tp=2 -o out/predict"});
  sub->callback([args, &ctx] { ctx.exit_code = run_predict(*args); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(pathfind, "Cross-stack performance model: kernels, training iterations, generated hardware",
                        predict, setup_pathfind_predict);
