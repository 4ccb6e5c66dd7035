// snr pathfind gemm M N K --hw PRESET|FILE [--dtype bf16|fp16|fp32] [--json]
// One GEMM through the hierarchical roofline: time, what bounds it, the
// chosen tile per memory level and the MCU dataflow.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "pathfind/roofline/gemm.h"

namespace {

struct GemmArgs {
  uint64_t m = 0, n = 0, k = 0;
  std::string hw;
  std::string dtype = "fp16";
  bool json = false;
};

nlohmann::ordered_json tile_json(const snr::pathfind::Tile& t) {
  return nlohmann::ordered_json{{"m", t.m}, {"n", t.n}, {"k", t.k}};
}

void run_gemm(const GemmArgs& a) {
  using namespace snr::pathfind;
  DeviceSpec device = load_device(a.hw);
  DType dtype = parse_dtype(a.dtype);
  GemmPrediction p = predict_gemm(device, {a.m, a.n, a.k}, dtype);
  const LevelUse& block = p.levels[p.bundle_level];
  if (a.json) {
    nlohmann::ordered_json j;
    j["time_s"] = p.time_s;
    j["bound"] = std::string(p.bound);
    nlohmann::ordered_json tile = tile_json(block.tile);
    tile["level"] = std::string(block.name);
    j["tile"] = tile;
    j["dataflow"] = std::string(dataflow_name(p.dataflow));
    j["device"] = device.name;
    j["dtype"] = std::string(dtype_name(dtype));
    j["flops"] = p.flops;
    j["compute_s"] = p.compute_s;
    j["kernel_overhead_s"] = device.kernel_overhead_s;
    j["parallel_efficiency"] = p.parallel_efficiency;
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (size_t i = 0; i < p.level_count; ++i) {
      const LevelUse& l = p.levels[i];
      nlohmann::ordered_json lj{{"name", std::string(l.name)}, {"scope", std::string(scope_name(l.scope))}};
      lj["tile"] = tile_json(l.tile);
      if (i + 1 < p.level_count) lj["loop_order"] = std::string(kLoopOrderNames[l.loop_order]);
      lj["accessed_bytes"] = l.accessed_bytes;
      lj["time_s"] = l.time_s;
      levels.push_back(lj);
    }
    j["levels"] = levels;
    j["tilings_enumerated"] = p.tilings_enumerated;
    j["combinations_visited"] = p.combinations_visited;
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("GEMM {}x{}x{} {} on {}: {:.3f} us, {:.1f} TFLOP/s, bound by {}\n", a.m, a.n, a.k, dtype_name(dtype),
             device.name, p.time_s * 1e6, p.flops / p.time_s / 1e12, p.bound);
  fmt::print("  compute {:.3f} us (parallel efficiency {:.3f}), kernel overhead {:.3f} us, dataflow {}\n",
             p.compute_s * 1e6, p.parallel_efficiency, device.kernel_overhead_s * 1e6, dataflow_name(p.dataflow));
  fmt::print("  {:<8} {:<7} {:>22} {:>6} {:>14} {:>12}\n", "level", "scope", "tile m x n x k", "order", "bytes",
             "time us");
  for (size_t i = 0; i < p.level_count; ++i) {
    const LevelUse& l = p.levels[i];
    std::string order = i + 1 < p.level_count ? std::string(kLoopOrderNames[l.loop_order]) : "-";
    fmt::print("  {:<8} {:<7} {:>22} {:>6} {:>14.4g} {:>12.3f}\n", l.name, scope_name(l.scope),
               fmt::format("{}x{}x{}", l.tile.m, l.tile.n, l.tile.k), order, l.accessed_bytes, l.time_s * 1e6);
  }
}

void setup_pathfind_gemm(CLI::App& parent, snr::cli::CommandContext& /*ctx*/) {
  auto args = std::make_shared<GemmArgs>();
  auto* sub = parent.add_subcommand("gemm", "Predict one GEMM C[M,N] = A[M,K] B[K,N] with the hierarchical roofline");
  sub->add_option("M", args->m, "rows of A and C")->required()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  sub->add_option("N", args->n, "columns of B and C")->required()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  sub->add_option("K", args->k, "reduction dimension")->required()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  sub->add_option("--hw", args->hw, "device preset (v100, a100-80gb, h100-sxm, tpu-v4-like, tpu-v5e-like) or YAML file")
      ->required();
  sub->add_option("--dtype", args->dtype, "input type: bf16, fp16 or fp32")->capture_default_str();
  sub->add_flag("--json", args->json, "print one JSON object (time_s, bound, tile, dataflow, levels, ...)");
  snr::cli::set_examples(sub, {"snr pathfind gemm 8192 12288 12288 --hw a100-80gb",
                               "snr pathfind gemm 4096 4096 4096 --hw h100-sxm --dtype bf16 --json"});
  sub->callback([args] { run_gemm(*args); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(pathfind, "Cross-stack performance model: kernels, training iterations, generated hardware",
                        gemm, setup_pathfind_gemm);
