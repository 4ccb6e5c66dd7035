// snr collective [run] PLAN | info|check PLAN — a collective plan (MSCCL++
// execution plan .json, or MSCCLang algorithm .xml) and its load-store
// lowering:
//   PLAN   run it on the GPU model over the NoC-level network (also `run PLAN`)
//   info   what the plan declares and what it lowers to at --size (op counts, bytes per GPU)
//   check  lower it and run the data-movement and synchronization checker
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "common/error.h"
#include "dsim/core/event_loop.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/loadstore/collective_plan.h"
#include "dsim/loadstore/data_check.h"
#include "dsim/noc/noc_network.h"

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

struct RunArgs {
  std::string plan;
  uint64_t size_bytes = 0;
  uint32_t wavefront_threads = 32;
  std::string gpu = "generic-448";
  std::string network;  // empty: the generic-448 preset
  std::string protocol;
  uint32_t unroll = 0, max_outstanding = 0, workgroups_per_cu = 0;
  std::string arbitration, routing;
  bool json = false;
};

// nccl-tests' bus bandwidth factor: what each GPU's links must carry
// relative to the buffer, so different collectives compare.
double bus_factor(const std::string& collective, uint32_t gpus) {
  const double n = gpus;
  if (gpus < 2) return 1.0;
  if (collective == "allreduce") return 2.0 * (n - 1) / n;
  if (collective == "allgather" || collective == "reducescatter" || collective == "alltoall") return (n - 1) / n;
  return 1.0;
}

std::string lower_ascii(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

int run_plan(const RunArgs& args) {
  namespace gpu = snr::dsim::gpu;
  namespace noc = snr::dsim::noc;
  snr::cli::check_input_file(args.plan);
  const ls::CollectivePlan plan = ls::load_collective_plan(args.plan);
  if (!args.protocol.empty() && lower_ascii(args.protocol) != lower_ascii(plan.protocol)) {
    throw snr::Error(fmt::format("{} is written for the {} protocol, not {} (a plan fixes its protocol; pick the "
                                 "plan of the protocol you want)",
                                 args.plan, plan.protocol, args.protocol));
  }
  const uint64_t size_bytes = args.size_bytes != 0 ? args.size_bytes : plan.default_input_bytes;
  const ls::Program program = plan.lower(size_bytes, args.wavefront_threads);
  gpu::GpuConfig gpu_config = gpu::load_gpu_config(args.gpu);
  if (args.unroll != 0) gpu_config.unroll = args.unroll;
  if (args.max_outstanding != 0) gpu_config.max_outstanding_per_cu = args.max_outstanding;
  if (args.workgroups_per_cu != 0) gpu_config.workgroups_per_cu = args.workgroups_per_cu;
  noc::NocConfig noc_config =
      noc::load_noc_config(args.network.empty() ? std::string("generic-448") : args.network);
  if (!args.arbitration.empty()) {
    (void)noc::make_arbiter(args.arbitration);
    noc_config.arbitration = args.arbitration;
  }
  if (!args.routing.empty()) {
    (void)noc::make_routing(args.routing);
    noc_config.routing = args.routing;
  }

  const auto wall_start = std::chrono::steady_clock::now();
  snr::dsim::EventLoop loop;
  noc::NocNetwork network(noc_config, program.gpu_count(), loop);
  gpu::GpuModel model(program, gpu_config, loop, network);
  model.start();
  loop.run();
  const gpu::RunStats& stats = model.finish();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const noc::NocStats& net = network.stats();

  const uint64_t buffer_bytes = std::max(program.gpus[0].input_bytes, program.gpus[0].output_bytes);
  const double time_ns = static_cast<double>(stats.end_ps) / 1000.0;
  const double algbw = time_ns > 0 ? static_cast<double>(buffer_bytes) / time_ns : 0.0;  // bytes/ns = GB/s
  const double busbw = algbw * bus_factor(plan.collective, program.gpu_count());
  uint64_t control_bytes = 0, data_bytes = 0;
  for (const gpu::GpuStats& g : stats.gpus) {
    control_bytes += g.control_bytes;
    data_bytes += g.data_bytes;
  }

  if (args.json) {
    nlohmann::json gpus = nlohmann::json::array();
    for (uint32_t g = 0; g < stats.gpus.size(); ++g) {
      const gpu::GpuStats& s = stats.gpus[g];
      gpus.push_back({{"gpu", g},
                      {"end_ns", static_cast<double>(s.end_ps) / 1000.0},
                      {"requests", s.requests},
                      {"data_bytes", s.data_bytes},
                      {"control_bytes", s.control_bytes},
                      {"local_bytes", s.local_bytes},
                      {"remote_bytes", s.remote_bytes},
                      {"loaded_bytes", s.loaded_bytes},
                      {"stored_bytes", s.stored_bytes}});
    }
    nlohmann::json links = nlohmann::json::object();
    for (int k = 0; k < static_cast<int>(noc::LinkKind::kCount); ++k) {
      const noc::LinkKindStats& l = net.kinds[k];
      links[noc::to_string(static_cast<noc::LinkKind>(k))] = {
          {"links", l.links},
          {"messages", l.messages},
          {"bytes", l.bytes},
          {"mean_utilization", l.links && stats.end_ps ? static_cast<double>(l.busy_ps) / l.links / stats.end_ps : 0.0},
          {"max_utilization", stats.end_ps ? static_cast<double>(l.max_link_busy_ps) / stats.end_ps : 0.0},
          {"queued_ns", static_cast<double>(l.queued_ps) / 1000.0}};
    }
    nlohmann::json out{{"plan", args.plan},
                       {"format", plan.format},
                       {"collective", plan.collective},
                       {"protocol", plan.protocol},
                       {"gpus", program.gpu_count()},
                       {"size_bytes", size_bytes},
                       {"buffer_bytes", buffer_bytes},
                       {"time_ns", time_ns},
                       {"algbw_gbps", algbw},
                       {"busbw_gbps", busbw},
                       {"control_bytes", control_bytes},
                       {"data_bytes", data_bytes},
                       {"requests", stats.requests},
                       {"max_requests_in_flight", stats.max_in_flight},
                       {"gpu_config",
                        {{"name", gpu_config.name},
                         {"compute_units", gpu_config.compute_units},
                         {"workgroups_per_cu", gpu_config.workgroups_per_cu},
                         {"unroll", gpu_config.unroll},
                         {"max_outstanding_per_cu", gpu_config.max_outstanding_per_cu},
                         {"clock_ghz", gpu_config.clock_ghz},
                         {"cache_line_bytes", gpu_config.cache_line_bytes},
                         {"stores_wait_for_ack", gpu_config.stores_wait_for_ack}}},
                       {"network",
                        {{"name", noc_config.name},
                         {"endpoints_per_gpu", noc_config.endpoints()},
                         {"routing", noc_config.routing},
                         {"arbitration", noc_config.arbitration},
                         {"messages", net.messages},
                         {"hops", net.hops},
                         {"links", links}}},
                       {"per_gpu", gpus},
                       {"simulation", {{"events", loop.events_processed()}, {"wall_s", wall_s}}}};
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{}: {} {} over {} GPUs, {} B per GPU input ({} B buffer)\n", args.plan, plan.collective, plan.protocol,
             program.gpu_count(), size_bytes, buffer_bytes);
  fmt::print("GPU {}: {} CUs, {} workgroups/CU, unroll {}, {} outstanding/CU, {:g} GHz; network {}: {} endpoints/GPU, "
             "{} routing, {} arbitration\n",
             gpu_config.name, gpu_config.compute_units, gpu_config.workgroups_per_cu, gpu_config.unroll,
             gpu_config.max_outstanding_per_cu, gpu_config.clock_ghz, noc_config.name, noc_config.endpoints(),
             noc_config.routing, noc_config.arbitration);
  fmt::print("time {:.3f} us   algbw {:.2f} GB/s   busbw {:.2f} GB/s\n", time_ns / 1000.0, algbw, busbw);
  fmt::print("bytes: data {}  control {} ({:.1f}% control), {} requests, {} network hops\n", data_bytes, control_bytes,
             data_bytes + control_bytes ? 100.0 * control_bytes / (data_bytes + control_bytes) : 0.0, stats.requests,
             net.hops);
  fmt::print("{:>5} {:>12} {:>10} {:>14} {:>14} {:>14}\n", "gpu", "end_us", "requests", "data_bytes", "control_bytes",
             "off_gpu_bytes");
  for (uint32_t g = 0; g < stats.gpus.size(); ++g) {
    const gpu::GpuStats& s = stats.gpus[g];
    fmt::print("{:>5} {:>12.3f} {:>10} {:>14} {:>14} {:>14}\n", g, static_cast<double>(s.end_ps) / 1e6, s.requests,
               s.data_bytes, s.control_bytes, s.remote_bytes);
  }
  return 0;
}

void add_run_options(CLI::App* app, const std::shared_ptr<RunArgs>& args, bool plan_required) {
  auto* plan = app->add_option("plan", args->plan, "MSCCL++ execution plan (.json) or MSCCLang algorithm (.xml)");
  if (plan_required) plan->required();
  // Up to 1 TiB per GPU: the run is request by request, so far beyond a
  // real buffer only takes forever.
  app->add_option("--size", args->size_bytes, "per-GPU input buffer bytes (default: the plan's smallest exact size)")
      ->check(snr::cli::in_range(1, uint64_t{1} << 40));
  app->add_option("--gpu", args->gpu, "GPU preset (generic-448) or YAML file")->capture_default_str();
  app->add_option("--network-configuration", args->network,
                  "NoC topology YAML file or preset (default: generic-448)");
  app->add_option("--protocol", args->protocol, "Simple or LL: checked against the plan's own protocol");
  app->add_option("--wavefront-threads", args->wavefront_threads, "threads per wavefront (warp)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  app->add_option("--unroll", args->unroll, "override the GPU's loop unrolling factor")->check(CLI::Range(1u, 1024u));
  app->add_option("--max-outstanding", args->max_outstanding, "override the GPU's outstanding requests per CU")
      ->check(CLI::Range(1u, 1u << 20));
  app->add_option("--workgroups-per-cu", args->workgroups_per_cu, "override the GPU's resident workgroups per CU")
      ->check(CLI::Range(1u, 1024u));
  app->add_option("--arbitration", args->arbitration, "override the network's arbitration (fifo, fair, control_first)");
  app->add_option("--routing", args->routing, "override the network's mesh routing (xy, yx)");
  app->add_flag("--json", args->json, "print one JSON object (time_ns, algbw_gbps, busbw_gbps, ...)");
}

// `snr collective PLAN` and `snr collective run PLAN`: the parent takes the
// plan itself when no subcommand is named.
void setup_run(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<RunArgs>();
  auto* sub = parent.add_subcommand("run", "Run a collective plan on the load-store GPU model over the NoC-level "
                                           "network: time, algorithm and bus bandwidth, bytes per GPU");
  add_run_options(sub, args, true);
  snr::cli::set_examples(sub, {"snr collective run ../shared/data/mscclpp/allreduce.json --size 1048576",
                               "snr collective run ../shared/data/mscclpp/allreduce_packet.json --json"});
  sub->callback([args, &ctx] { ctx.exit_code = run_plan(*args); });

  auto direct = std::make_shared<RunArgs>();
  parent.require_subcommand(0, 1);
  add_run_options(&parent, direct, false);
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

SNR_REGISTER_SUBCOMMAND(collective, "Collective plans (MSCCL++, MSCCLang) on the load-store GPU model", info,
                        setup_info);
SNR_REGISTER_SUBCOMMAND(collective, "Collective plans (MSCCL++, MSCCLang) on the load-store GPU model", run,
                        setup_run);
SNR_REGISTER_SUBCOMMAND(collective, "Collective plans (MSCCL++, MSCCLang) on the load-store GPU model", check,
                        setup_check);
