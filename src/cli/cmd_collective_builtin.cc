// snr collective allreduce|allgather|reducescatter|alltoall --gpus N --size BYTES
// — a built-in algorithm (ring, direct, nccl-ring, nccl-tree,
// halving-doubling, double-binary-tree, nccl-nvls) expanded into a load-store plan for
// the collective (put- or get-based, LL, LL128 or Simple) and run on the
// GPU model over the NoC-level network of a system,
// with the report of `snr collective PLAN`. On a system NCCL runs on
// (dgx-a100, dgx-h100) `auto` is NCCL's own choice of algorithm, protocol,
// channels and threads (nccl_tuning.h), and `ring`/`tree` name NCCL's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/collective_run.h"
#include "cli/command.h"
#include "common/error.h"
#include "dsim/gpu/gpu_config.h"
#include "dsim/loadstore/data_check.h"
#include "dsim/loadstore/generated/builtin_plan_choice.h"
#include "dsim/loadstore/generated/nccl_tuning.h"
#include "dsim/loadstore/generated/plan_generator.h"
#include "dsim/noc/noc_config.h"
#include "dsim/system/load_store/load_store_config.h"

namespace {

namespace ls = snr::dsim::loadstore;

struct BuiltinArgs {
  std::string collective;
  uint32_t gpus = 0;
  std::string system = "generic-448";
  uint64_t size_bytes = 0;
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string transfer = "put";
  uint32_t workgroups = 0;             // 0: NCCL's channels on an NCCL system, else 32
  uint32_t threads_per_workgroup = 0;  // 0: NCCL's threads on an NCCL system, else 1024
  double kernel_start_ns = -1;         // < 0: the fitted NCCL constant for nccl-* plans, else 0
  int64_t packet_line_cycles = -1;     // < 0: the fitted NCCL constant
  bool check = false;
  std::string gpu;  // empty: the system's GPU
  std::shared_ptr<snr::cli::ModelOptions> model = std::make_shared<snr::cli::ModelOptions>();
};

int run_builtin(BuiltinArgs& args) {
  const auto systems = snr::dsim::load_store::system_presets();
  if (std::find(systems.begin(), systems.end(), args.system) == systems.end()) {
    throw snr::Error(fmt::format("unknown system '{}' (known: {})", args.system, fmt::join(systems, ", ")));
  }
  args.model->gpu = args.gpu.empty() ? args.system : args.gpu;
  snr::cli::ModelConfigs configs = snr::cli::load_model_configs(*args.model, args.system);

  ls::BuiltinPlanRequest request;
  request.collective = args.collective;
  request.gpus = args.gpus;
  request.buffer_bytes = args.size_bytes;
  request.system = args.system;
  request.algorithm = args.algorithm;
  request.protocol = args.protocol;
  request.transfer = args.transfer;
  request.workgroups = args.workgroups;
  request.threads_per_workgroup = args.threads_per_workgroup;
  request.wavefront_threads = args.model->wavefront_threads;
  request.kernel_start_ns = args.kernel_start_ns;
  request.clock_ghz = configs.gpu.clock_ghz;
  request.scale_up = snr::dsim::noc::scale_up_alpha_beta(configs.network);
  const ls::BuiltinPlanChoice chosen = ls::choose_builtin_plan(request);
  const ls::PlanAlgorithm& algorithm = *chosen.algorithm;
  ls::GeneratedPlanOptions options = chosen.options;
  options.max_line_requests = snr::cli::max_line_requests(configs.gpu.granularity);
  options.cache_line_bytes = configs.gpu.cache_line_bytes;
  const bool nccl_plan = chosen.nccl_plan;
  // How many lines a warp keeps in flight is the kernel's unrolling; NCCL's
  // differs by protocol (unless --unroll says otherwise).
  if (nccl_plan && args.model->unroll == 0) {
    configs.gpu.unroll = ls::nccl_lines_in_flight_per_warp(options.protocol, configs.gpu.cache_line_bytes);
  }
  // LL and LL128 receive loops pay the per-line flag check (nccl_tuning.h).
  if (nccl_plan && options.protocol != ls::Protocol::kSimple) {
    configs.gpu.reduce_cycles_per_line = args.packet_line_cycles >= 0
                                             ? static_cast<uint32_t>(args.packet_line_cycles)
                                             : ls::kNcclPacketLineCycles;
  }
  const ls::Program program = ls::generate_collective_plan(algorithm, options);
  if (args.check) {
    ls::DataCheckOptions check_options;
    check_options.collective = args.collective;
    const ls::DataCheckResult result = ls::check_data_movement(program, check_options);
    if (!result.ok()) {
      std::string errors;
      for (const std::string& e : result.errors) errors += "\n  " + e;
      throw snr::Error(fmt::format("the generated {} {} plan fails the data check:{}", algorithm.name(),
                                   args.collective, errors));
    }
  }

  const std::string protocol(ls::protocol_name(options.protocol));
  const std::string transfer(ls::transfer_name(options.transfer));
  // Workgroups whose slice of every chunk is empty are left out of the plan
  // (a small buffer over many workgroups): say how many ran.
  uint32_t workgroups_with_data = 0;
  for (const ls::Kernel& kernel : program.kernels) {
    workgroups_with_data = std::max(workgroups_with_data, kernel.workgroup_count);
  }
  const std::string workgroups_text =
      workgroups_with_data < options.workgroups
          ? fmt::format("{} workgroups per GPU ({} with data)", options.workgroups, workgroups_with_data)
          : fmt::format("{} workgroups per GPU", options.workgroups);
  snr::cli::RunDescription description;
  description.collective = args.collective;
  description.identity = {{"algorithm", algorithm.name()},
                          {"transfer", transfer},
                          {"protocol", protocol},
                          {"system", args.system},
                          {"workgroups", options.workgroups},
                          {"workgroups_with_data", workgroups_with_data},
                          {"threads_per_workgroup", options.threads_per_workgroup},
                          {"kernel_start_ns", chosen.kernel_start_ns},
                          {"unroll", configs.gpu.unroll},
                          {"reduce_cycles_per_line", configs.gpu.reduce_cycles_per_line},
                          {"size_bytes", args.size_bytes},
                          {"data_checked", args.check}};
  if (chosen.nccl) {
    // NCCL's own estimate for its choice, to compare with the simulation.
    description.identity["nccl_tuning"] = {{"estimated_time_ns", chosen.nccl->estimate.time_us * 1000.0},
                                           {"latency_ns", chosen.nccl->estimate.latency_us * 1000.0},
                                           {"algbw_gbps", chosen.nccl->estimate.bandwidth_gbps},
                                           {"channels", chosen.nccl->channels},
                                           {"threads", chosen.nccl->threads}};
  }
  description.headline =
      fmt::format("{} {} ({}, {}) over {} GPUs of {}, {}, {} B buffer per GPU ({} B per chunk), "
                  "{} threads per workgroup",
                  algorithm.name(), args.collective, transfer, protocol, args.gpus, args.system, workgroups_text,
                  args.size_bytes, args.size_bytes / args.gpus, options.threads_per_workgroup);
  return snr::cli::simulate_and_report(program, configs, description, args.model->json);
}

// The four verbs, in the order of their registrations below.
struct CollectiveVerb {
  std::string_view collective, description;
  std::array<std::string_view, 2> examples;
};
constexpr std::array<CollectiveVerb, 4> kVerbs{{
    {"allreduce",
     "All-reduce with a built-in algorithm on the load-store GPU model",
     {"snr collective allreduce --gpus 8 --system generic-448 --size 1048576",
      "snr collective allreduce --gpus 8 --system dgx-a100 --size 16777216 --json"}},
    {"allgather",
     "All-gather with a built-in algorithm on the load-store GPU model",
     {"snr collective allgather --gpus 16 --workgroups 60 --size 1048576 --transfer get",
      "snr collective allgather --gpus 16 --workgroups 60 --size 1048576 --arbitration fair --json"}},
    {"reducescatter",
     "Reduce-scatter with a built-in algorithm on the load-store GPU model",
     {"snr collective reducescatter --gpus 32 --workgroups 32 --size 4194304 --transfer get",
      "snr collective reducescatter --gpus 4 --size 65536 --protocol LL --check --json"}},
    {"alltoall",
     "All-to-all with a built-in algorithm on the load-store GPU model",
     {"snr collective alltoall --gpus 16 --workgroups 60 --size 1048576 --unroll 8",
      "snr collective alltoall --gpus 16 --size 1048576 --algorithm direct --transfer get --json"}},
}};

template <size_t kVerb>
void setup_verb(CLI::App& parent, snr::cli::CommandContext& ctx) {
  const CollectiveVerb& verb = kVerbs[kVerb];
  auto args = std::make_shared<BuiltinArgs>();
  args->collective = std::string(verb.collective);
  auto* sub = parent.add_subcommand(args->collective, std::string(verb.description));
  // A scale-up domain of thousands of GPUs is already far beyond any system.
  sub->add_option("--gpus", args->gpus, "GPUs taking part")->required()->check(snr::cli::in_range(2, 4096));
  sub->add_option("--size", args->size_bytes,
                  "per-GPU buffer bytes, the larger of input and output (all-gather: output, reduce-scatter: input); "
                  "a multiple of 4 B per GPU; e.g. 1048576 or 1MiB")
      ->required()
      ->transform(snr::cli::bytes_in_range(1, uint64_t{1} << 40));
  sub->add_option("--system", args->system, "the GPU and network presets to run on (generic-448, dgx-a100, dgx-h100)")
      ->capture_default_str();
  sub->add_option("--algorithm", args->algorithm,
                  fmt::format("auto or a built-in algorithm ({}); auto: NCCL's choice on dgx-a100/dgx-h100 (where "
                              "ring, tree and nvls mean nccl-ring, nccl-tree and nccl-nvls), else the first that implements the "
                              "collective",
                              fmt::join(ls::plan_algorithm_names(), ", ")))
      ->capture_default_str();
  sub->add_option("--protocol", args->protocol,
                  "auto, LL, LL128 or Simple; auto: NCCL's choice on dgx-a100/dgx-h100, else LL while a step's bytes "
                  "are below 2 x scale-up latency x bandwidth (seed 003 §3.2)")
      ->capture_default_str();
  sub->add_option("--transfer", args->transfer, "put (remote stores, then a signal) or get (remote loads)")
      ->capture_default_str();
  sub->add_option("--workgroups", args->workgroups,
                  "workgroups (channels) per GPU; default: NCCL's channel count on dgx-a100/dgx-h100, else 32")
      ->check(snr::cli::in_range(1, 1024));
  sub->add_option("--threads-per-workgroup", args->threads_per_workgroup,
                  "threads per workgroup (divided into wavefronts of --wavefront-threads); default: NCCL's on "
                  "dgx-a100/dgx-h100, else 1024")
      ->check(snr::cli::in_range(1, 65536));
  sub->add_option("--kernel-start-ns", args->kernel_start_ns,
                  "time from a kernel's start to its first transfer, spent on every workgroup's SM; default: the "
                  "fitted NCCL value for nccl-* plans, else 0")
      ->check(snr::cli::in_real_range(0, 1e9));
  sub->add_option("--packet-line-cycles", args->packet_line_cycles,
                  "nccl-ring/nccl-tree with LL or LL128: SM cycles per received line (flag check); default: the "
                  "fitted NCCL value")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
  sub->add_option("--gpu", args->gpu, "override the system's GPU: a preset or YAML file");
  sub->add_flag("--check", args->check,
                "first check, without timing, that the generated plan moves exactly the collective's bytes");
  snr::cli::add_model_options(sub, args->model, false);
  snr::cli::set_examples(sub, {verb.examples[0], verb.examples[1]});
  sub->callback([args, &ctx] { ctx.exit_code = run_builtin(*args); });
}

}  // namespace

// The verb names here must be kVerbs' collectives, in order.
static_assert(kVerbs[0].collective == "allreduce" && kVerbs[1].collective == "allgather" &&
              kVerbs[2].collective == "reducescatter" && kVerbs[3].collective == "alltoall");
SNR_REGISTER_SUBCOMMAND(collective, snr::cli::kCollectiveVerbDescription, allreduce, setup_verb<0>);
SNR_REGISTER_SUBCOMMAND(collective, snr::cli::kCollectiveVerbDescription, allgather, setup_verb<1>);
SNR_REGISTER_SUBCOMMAND(collective, snr::cli::kCollectiveVerbDescription, reducescatter, setup_verb<2>);
SNR_REGISTER_SUBCOMMAND(collective, snr::cli::kCollectiveVerbDescription, alltoall, setup_verb<3>);
