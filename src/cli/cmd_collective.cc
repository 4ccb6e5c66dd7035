// snr collective [run] PLAN | info|check PLAN — a collective plan (MSCCL++
// execution plan .json, or MSCCLang algorithm .xml) and its load-store
// lowering:
//   PLAN   run it on the GPU model over the NoC-level network (also `run PLAN`)
//   info   what the plan declares and what it lowers to at --size (op counts, bytes per GPU)
//   check  lower it and run the data-movement and synchronization checker
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/collective_run.h"
#include "cli/command.h"
#include "common/error.h"
#include "dsim/loadstore/collective_plan.h"
#include "dsim/loadstore/data_check.h"

namespace {

namespace ls = snr::dsim::loadstore;

struct CollectiveArgs {
  std::string plan;
  uint64_t size_bytes = 0;  // 0: the smallest size every op splits exactly
  uint32_t wavefront_threads = 32;
  bool json = false;
};

void add_common_options(CLI::App* sub, const std::shared_ptr<CollectiveArgs>& args) {
  sub->add_option("plan", args->plan, "MSCCL++ execution plan (.json) or MSCCLang algorithm (.xml)")->required();
  sub->add_option("--size", args->size_bytes,
                  "per-GPU input buffer bytes to lower at (default: the smallest size every chunk and "
                  "threadblock-group slice splits into whole buffer_alignment units); e.g. 1048576 or 1MiB")
      ->transform(snr::cli::bytes_in_range(1, uint64_t{1} << 40));
  sub->add_option("--wavefront-threads", args->wavefront_threads, "threads per wavefront (warp)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  sub->add_flag("--json", args->json, "print one JSON object");
}

nlohmann::json traffic_json(const ls::Program& program) {
  nlohmann::json gpus = nlohmann::json::array();
  const auto traffic = ls::traffic(program);
  for (uint32_t g = 0; g < program.gpu_count(); ++g) {
    const ls::GpuTraffic& t = traffic[g];
    nlohmann::json ops = nlohmann::json::object();
    for (size_t k = 0; k < 8; ++k) ops[std::string(ls::to_string(static_cast<ls::OpKind>(k)))] = t.op_counts[k];
    gpus.push_back({{"gpu", g},
                    {"input_bytes", program.gpus[g].input_bytes},
                    {"output_bytes", program.gpus[g].output_bytes},
                    {"scratch_bytes", program.gpus[g].scratch_bytes},
                    {"ops", ops},
                    {"local_load_bytes", t.local_load_bytes},
                    {"remote_load_bytes", t.remote_load_bytes},
                    {"multicast_load_bytes", t.multicast_load_bytes},
                    {"local_store_bytes", t.local_store_bytes},
                    {"remote_store_bytes", t.remote_store_bytes},
                    {"multicast_store_bytes", t.multicast_store_bytes},
                    {"proxy_bytes", t.proxy_bytes},
                    {"off_gpu_wire_bytes", t.wire_bytes_remote},
                    {"semaphore_requests", t.semaphore_requests}});
  }
  return gpus;
}

nlohmann::json plan_json(const ls::CollectivePlan& plan) {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [name, count] : plan.op_counts) ops[name] = count;
  return {{"format", plan.format},     {"name", plan.name},       {"collective", plan.collective},
          {"protocol", plan.protocol}, {"inplace", plan.inplace}, {"schema", plan.schema},
          {"gpus", plan.gpus},         {"ops", ops}};
}

// The per-GPU size to lower at: --size, else the plan's smallest exact one.
// A plan without buffers (it only synchronizes) has nothing to size.
uint64_t lowering_size(const ls::CollectivePlan& plan, uint64_t size_bytes, const std::string& path) {
  if (plan.default_input_bytes == 0) {
    if (size_bytes != 0) fmt::print(stderr, "note: {} has no buffers (it only synchronizes): --size is ignored\n", path);
    return 0;
  }
  return size_bytes != 0 ? size_bytes : plan.default_input_bytes;
}

int info(const CollectiveArgs& args) {
  const ls::CollectivePlan plan = ls::load_collective_plan(args.plan);
  const uint64_t size_bytes = lowering_size(plan, args.size_bytes, args.plan);
  if (!args.json) fmt::print("{}", plan.summary);
  const ls::Program program = plan.lower(size_bytes, args.wavefront_threads);
  if (args.json) {
    nlohmann::json out{{"plan", plan_json(plan)},
                       {"size_bytes", size_bytes},
                       {"lowered",
                        {{"kernels", program.kernels.size()},
                         {"workgroups", program.workgroups.size()},
                         {"ops", program.ops.size()},
                         {"semaphores", program.semaphores.size()},
                         {"barriers", program.barriers.size()},
                         {"gpus", traffic_json(program)}}}};
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("lowered at {} B per GPU input:\n{}", size_bytes, ls::summarize(program));
  }
  return 0;
}

int check(const CollectiveArgs& args) {
  const ls::CollectivePlan plan = ls::load_collective_plan(args.plan);
  const uint64_t size_bytes = lowering_size(plan, args.size_bytes, args.plan);
  const ls::Program program = plan.lower(size_bytes, args.wavefront_threads);
  ls::DataCheckOptions options;
  options.collective = plan.collective;
  options.inplace = plan.buffers_alias;
  const ls::DataCheckResult result = ls::check_data_movement(program, options);
  // A misspelt name checks synchronization only: say which name was meant.
  const std::string hint = ls::nearest_checked_collective(plan.collective);
  if (args.json) {
    nlohmann::json out{{"plan", args.plan},
                       {"collective", plan.collective},
                       {"size_bytes", size_bytes},
                       {"ok", result.ok()},
                       {"collective_checked", result.collective_checked},
                       {"collective_did_you_mean", hint},
                       {"output_granules", result.elements},
                       {"granule_bytes", result.element_bytes},
                       {"executed_ops", result.executed_ops},
                       {"errors", result.errors}};
    fmt::print("{}\n", out.dump(2));
  } else {
    for (const std::string& e : result.errors) fmt::print("error: {}\n", e);
    if (result.ok()) {
      fmt::print("{}: {} over {} GPUs at {} B per GPU input: {} ops ran without deadlock or race; {}\n", args.plan,
                 plan.collective, plan.gpus, size_bytes, result.executed_ops,
                 result.collective_checked
                     ? fmt::format("all {} output granules of {} B hold exactly what the {} requires",
                                   result.elements, result.element_bytes, plan.collective)
                     : fmt::format("no data definition for '{}' (those checked: allreduce, allgather, reducescatter, "
                                   "alltoall{}), synchronization checked only",
                                   plan.collective, hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
    } else {
      fmt::print("{}: FAILED ({} errors listed)\n", args.plan, result.errors.size());
    }
  }
  return result.ok() ? 0 : 1;
}

void setup_info(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<CollectiveArgs>();
  auto* sub = parent.add_subcommand("info", "What a collective plan declares and what it lowers to (op counts, "
                                            "bytes per GPU) at --size");
  add_common_options(sub, args);
  snr::cli::set_examples(sub, {"snr collective info ../shared/data/mscclpp/allreduce.json",
                               "snr collective info ../shared/data/mscclpp/allreduce_packet.json --size 1048576 --json"});
  sub->callback([args, &ctx] { ctx.exit_code = info(*args); });
}

void setup_check(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<CollectiveArgs>();
  auto* sub = parent.add_subcommand("check", "Lower a collective plan and check, without timing, that it moves "
                                             "exactly the bytes its collective requires, without deadlock or race");
  add_common_options(sub, args);
  snr::cli::set_examples(sub, {"snr collective check ../shared/data/mscclpp/allreduce.json --size 1048576",
                               "snr collective check ../shared/data/mscclpp/reduce_nvls.json --json"});
  sub->callback([args, &ctx] { ctx.exit_code = check(*args); });
}

struct RunArgs {
  std::string plan;
  uint64_t size_bytes = 0;
  std::string protocol;
  bool no_check = false;
  std::shared_ptr<snr::cli::ModelOptions> model = std::make_shared<snr::cli::ModelOptions>();
};

std::string lower_ascii(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// A time and a bus bandwidth for a plan that does not do its collective
// would be a wrong result that looks right, so the plan is checked first
// (data movement, deadlock, races) at its smallest exact size, where the
// check costs little: the lowering scales every op alike.
void refuse_failing_plan(const ls::CollectivePlan& plan, const std::string& path, uint32_t wavefront_threads) {
  ls::DataCheckOptions options;
  options.collective = plan.collective;
  options.inplace = plan.buffers_alias;
  const uint64_t size_bytes = plan.default_input_bytes;
  ls::DataCheckResult result;
  try {
    result = ls::check_data_movement(plan.lower(size_bytes, wavefront_threads), options);
  } catch (const snr::Error& e) {  // a plan too large to check, say
    throw snr::Error(fmt::format("{}: {}; --no-check times the plan without the data check", path, e.what()));
  }
  if (result.ok()) return;
  throw snr::Error(fmt::format("{}: the plan fails the data check at {} B per GPU ({} error{}, the first: {}); "
                               "`snr collective check {}` lists them, --no-check times the plan anyway",
                               path, size_bytes, result.errors.size(), result.errors.size() == 1 ? "" : "s",
                               result.errors.front(), path));
}

int run_plan(const RunArgs& args) {
  snr::cli::check_input_file(args.plan);
  const ls::CollectivePlan plan = ls::load_collective_plan(args.plan);
  if (!args.no_check) refuse_failing_plan(plan, args.plan, args.model->wavefront_threads);
  if (!args.protocol.empty() && lower_ascii(args.protocol) != lower_ascii(plan.protocol)) {
    throw snr::Error(fmt::format("{} is written for the {} protocol, not {} (a plan fixes its protocol; pick the "
                                 "plan of the protocol you want)",
                                 args.plan, plan.protocol, args.protocol));
  }
  const uint64_t size_bytes = lowering_size(plan, args.size_bytes, args.plan);
  const ls::Program program = plan.lower(size_bytes, args.model->wavefront_threads);
  const snr::cli::ModelConfigs configs =
      snr::cli::load_model_configs(*args.model, snr::cli::network_of_gpu(args.model->gpu, "generic-448"));
  snr::cli::RunDescription description;
  description.collective = plan.collective;
  description.identity = {{"plan", args.plan},
                          {"format", plan.format},
                          {"protocol", plan.protocol},
                          {"size_bytes", size_bytes},
                          {"data_checked", !args.no_check}};
  description.headline = fmt::format("{}: {} {} over {} GPUs, {} B per GPU input ({} B buffer)", args.plan,
                                     plan.collective, plan.protocol, program.gpu_count(), size_bytes,
                                     std::max(program.gpus[0].input_bytes, program.gpus[0].output_bytes));
  return snr::cli::simulate_and_report(program, configs, description, args.model->json);
}

void add_run_options(CLI::App* app, RunArgs& args, bool plan_required) {
  auto* plan = app->add_option("plan", args.plan, "MSCCL++ execution plan (.json) or MSCCLang algorithm (.xml)");
  if (plan_required) plan->required();
  // Up to 1 TiB per GPU: the run is request by request, so far beyond a
  // real buffer only takes forever.
  app->add_option("--size", args.size_bytes,
                  "per-GPU input buffer bytes, e.g. 1048576 or 1MiB (default: the plan's smallest exact size)")
      ->transform(snr::cli::bytes_in_range(1, uint64_t{1} << 40));
  app->add_option("--protocol", args.protocol, "Simple or LL: checked against the plan's own protocol");
  app->add_flag("--no-check", args.no_check,
                "time the plan even if it fails the data check (by default a plan that does not move exactly its "
                "collective's bytes, or deadlocks or races, is refused before it is timed)");
  snr::cli::add_model_options(app, args.model);
}

// `snr collective PLAN` and `snr collective run PLAN`: the parent takes the
// plan itself when no subcommand is named.
void setup_run(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<RunArgs>();
  auto* sub = parent.add_subcommand("run", "Run a collective plan on the load-store GPU model over the NoC-level "
                                           "network: time, algorithm and bus bandwidth, bytes per GPU");
  add_run_options(sub, *args, true);
  snr::cli::set_examples(sub, {"snr collective run ../shared/data/mscclpp/allreduce.json --size 1048576",
                               "snr collective run ../shared/data/mscclpp/allreduce_packet.json --json"});
  sub->callback([args, &ctx] { ctx.exit_code = run_plan(*args); });

  auto direct = std::make_shared<RunArgs>();
  parent.require_subcommand(0, 1);
  add_run_options(&parent, *direct, false);
  snr::cli::set_examples(&parent, {"snr collective ../shared/data/mscclpp/allreduce.json --size 1048576 --json",
                                   "snr collective info ../shared/data/mscclpp/allreduce.json",
                                   "snr collective check ../shared/data/mscclpp/reduce_nvls.json"});
  parent.callback([direct, &parent, &ctx] {
    if (!parent.get_subcommands().empty()) return;
    if (direct->plan.empty()) {
      throw CLI::RequiredError("collective: a PLAN file to run, or one of the subcommands run, info, check");
    }
    ctx.exit_code = run_plan(*direct);
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(collective, snr::cli::kCollectiveVerbDescription, info, setup_info);
SNR_REGISTER_SUBCOMMAND(collective, snr::cli::kCollectiveVerbDescription, run, setup_run);
SNR_REGISTER_SUBCOMMAND(collective, snr::cli::kCollectiveVerbDescription, check, setup_check);
