// snr collective info|check PLAN — inspect a collective plan (MSCCL++
// execution plan .json, or MSCCLang algorithm .xml) and its load-store
// lowering without timing:
//   info   what the plan declares and what it lowers to at --size (op counts, bytes per GPU)
//   check  lower it and run the data-movement and synchronization checker
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
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
                  "threadblock-group slice splits into whole buffer_alignment units)");
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

int info(const CollectiveArgs& args) {
  const ls::CollectivePlan plan = ls::load_collective_plan(args.plan);
  const uint64_t size_bytes = args.size_bytes != 0 ? args.size_bytes : plan.default_input_bytes;
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
  const uint64_t size_bytes = args.size_bytes != 0 ? args.size_bytes : plan.default_input_bytes;
  const ls::Program program = plan.lower(size_bytes, args.wavefront_threads);
  ls::DataCheckOptions options;
  options.collective = plan.collective;
  options.inplace = plan.inplace;
  const ls::DataCheckResult result = ls::check_data_movement(program, options);
  if (args.json) {
    nlohmann::json out{{"plan", args.plan},
                       {"collective", plan.collective},
                       {"size_bytes", size_bytes},
                       {"ok", result.ok()},
                       {"collective_checked", result.collective_checked},
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
                     : fmt::format("no data definition for '{}', synchronization checked only", plan.collective));
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

}  // namespace

SNR_REGISTER_SUBCOMMAND(collective, "Collective plans (MSCCL++, MSCCLang) on the load-store GPU model", info,
                        setup_info);
SNR_REGISTER_SUBCOMMAND(collective, "Collective plans (MSCCL++, MSCCLang) on the load-store GPU model", check,
                        setup_check);
