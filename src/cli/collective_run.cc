#include "cli/collective_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "cli/collective_report.h"
#include "cli/collective_trace.h"
#include "cli/command.h"
#include "common/error.h"
#include "common/output.h"
#include "dsim/core/event_loop.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/noc/noc_network.h"

namespace snr::cli {

namespace gpu = dsim::gpu;
namespace noc = dsim::noc;

void add_model_options(CLI::App* app, const std::shared_ptr<ModelOptions>& options, bool with_gpu) {
  if (with_gpu) {
    app->add_option("--gpu", options->gpu, "GPU preset (generic-448, dgx-a100, dgx-h100) or YAML file")
        ->capture_default_str();
  }
  app->add_option("--network-configuration", options->network,
                  "NoC topology YAML file or preset (generic-448, dgx-a100, dgx-h100; default: the --system's, "
                  "for plan files the --gpu preset's, generic-448 with a GPU YAML)");
  app->add_option("--wavefront-threads", options->wavefront_threads, "threads per wavefront (warp)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  app->add_option("--unroll", options->unroll, "override the GPU's loop unrolling factor")
      ->check(CLI::Range(1u, 1024u));
  app->add_option("--max-outstanding", options->max_outstanding, "override the GPU's outstanding requests per CU")
      ->check(CLI::Range(1u, 1u << 20));
  app->add_option("--workgroups-per-cu", options->workgroups_per_cu, "override the GPU's resident workgroups per CU")
      ->check(CLI::Range(1u, 1024u));
  app->add_option("--arbitration", options->arbitration,
                  "override the network's arbitration (fifo, fair, control_first)");
  app->add_option("--routing", options->routing, "override the network's mesh routing (xy, yx)");
  app->add_option("--granularity", options->granularity,
                  "request: one message per cache line (the reference); flow: a wavefront's run of lines to one "
                  "range as one message, far faster, approximate (docs/gpu-model.md)")
      ->check(CLI::IsMember({"request", "flow"}));
  app->add_option("--scale-up-latency-ns", options->scale_up_latency_ns,
                  "override the network's scale-up link latency (ns)")
      ->check(snr::cli::in_real_range(0, 1e9));
  app->add_option("--port-bandwidth-gib-per-s", options->port_bandwidth_gib_per_s,
                  "override the bandwidth of every I/O port and its scale-up link (GiB/s)")
      ->check(snr::cli::in_real_range(1e-3, 1e6));
  app->add_flag("--json", options->json, "print one JSON object (time_ns, algbw_gbps, busbw_gbps, ...)");
  app->add_option("--trace", options->trace_path,
                  "write a Perfetto timeline (Chrome trace-event JSON): workgroups per CU group, kernels, NoC link "
                  "counters");
  app->add_option("--csv", options->csv_path, "write one CSV row per kernel per GPU (times, stored bytes, busbw)");
}

namespace {

// The GPU model refuses a network routing another number of compute units;
// the user picked one of the two, often --gpu alone, so name the option
// that supplies the other and the preset that matches.
void check_network_fits_gpu(const ModelConfigs& configs, const ModelOptions& options,
                            const std::string& default_network) {
  const uint32_t gpu_cus = configs.gpu.compute_units;
  const uint32_t network_cus = configs.network.compute_units();
  if (gpu_cus == network_cus) return;
  const std::string network =
      options.network.empty() ? fmt::format("the default network '{}'", default_network)
                              : fmt::format("--network-configuration '{}'", options.network);
  std::string fix = fmt::format("give --gpu and --network-configuration of one GPU (a NoC YAML with {} compute "
                                "units, or a GPU YAML with {})", gpu_cus, network_cus);
  if (noc::is_noc_preset(options.gpu)) {
    fix = fmt::format("{} --network-configuration {} (the network preset of that GPU)",
                      options.network.empty() ? "add" : "use", options.gpu);
  }
  throw Error(fmt::format("--gpu '{}' has {} compute units but {} has endpoints for {}: {}", options.gpu, gpu_cus,
                          network, network_cus, fix));
}

}  // namespace

std::string network_of_gpu(const std::string& gpu, const std::string& fallback) {
  return noc::is_noc_preset(gpu) ? gpu : fallback;
}

ModelConfigs load_model_configs(const ModelOptions& options, const std::string& default_network) {
  ModelConfigs configs{gpu::load_gpu_config(options.gpu),
                       noc::load_noc_config(options.network.empty() ? default_network : options.network),
                       options.trace_path, options.csv_path};
  if (options.unroll != 0) configs.gpu.unroll = options.unroll;
  if (options.max_outstanding != 0) configs.gpu.max_outstanding_per_cu = options.max_outstanding;
  if (options.workgroups_per_cu != 0) configs.gpu.workgroups_per_cu = options.workgroups_per_cu;
  if (!options.arbitration.empty()) {
    (void)noc::make_arbiter(options.arbitration);  // an unknown name fails here, listing the known ones
    configs.network.arbitration = options.arbitration;
  }
  if (!options.granularity.empty()) configs.gpu.granularity = gpu::parse_granularity(options.granularity);
  if (!options.routing.empty()) {
    (void)noc::make_routing(options.routing);
    configs.network.routing = options.routing;
  }
  if (options.scale_up_latency_ns >= 0) configs.network.scale_up_link.latency_ns = options.scale_up_latency_ns;
  if (options.port_bandwidth_gib_per_s > 0) {
    configs.network.io_link.bandwidth_gib_per_s = options.port_bandwidth_gib_per_s;
    configs.network.scale_up_link.bandwidth_gib_per_s = options.port_bandwidth_gib_per_s;
  }
  check_network_fits_gpu(configs, options, default_network);
  // Before the run, which may take minutes.
  if (!options.trace_path.empty()) output::check_output_file(options.trace_path, "--trace");
  if (!options.csv_path.empty()) output::check_output_file(options.csv_path, "--csv");
  if (!options.trace_path.empty() && !options.csv_path.empty()) {
    output::check_outputs_differ(options.trace_path, "--trace", options.csv_path, "--csv");
  }
  return configs;
}

double bus_bandwidth_factor(const std::string& collective, uint32_t gpus) {
  const double n = gpus;
  if (gpus < 2) return 1.0;
  if (collective == "allreduce") return 2.0 * (n - 1) / n;
  if (collective == "allgather" || collective == "reducescatter" || collective == "alltoall") return (n - 1) / n;
  return 1.0;
}

uint64_t max_line_requests(gpu::Granularity granularity) {
  return granularity == gpu::Granularity::kFlow ? uint64_t{1} << 34 : uint64_t{1} << 32;
}

int simulate_and_report(const dsim::loadstore::Program& program, const ModelConfigs& configs,
                        const RunDescription& description, bool json) {
  const gpu::GpuConfig& gpu_config = configs.gpu;
  const noc::NocConfig& noc_config = configs.network;
  const uint64_t requests = dsim::loadstore::line_requests(program, gpu_config.cache_line_bytes);
  if (requests > max_line_requests(gpu_config.granularity)) {
    throw snr::Error(fmt::format("{} on {} GPUs issues about {:.3g} cache-line requests, more than the {:.3g} one "
                                 "{}-level run simulates: use a smaller --size, or model the collective at message "
                                 "level (snr sim)",
                                 description.collective, program.gpu_count(), static_cast<double>(requests),
                                 static_cast<double>(max_line_requests(gpu_config.granularity)),
                                 gpu::to_string(gpu_config.granularity)));
  }
  const auto wall_start = std::chrono::steady_clock::now();
  dsim::EventLoop loop;
  noc::NocNetwork network(noc_config, program.gpu_count(), loop);
  // Only a trace needs the per-bin link figures; without it the network
  // records none.
  if (!configs.trace_path.empty()) network.record_timeline();
  gpu::GpuModel model(program, gpu_config, loop, network);
  if (noc_config.scale_up_multicast && !program.multicast_members.empty() && !network.carries_multicast()) {
    // Never silent: stderr, so that --json's stdout stays one object.
    fmt::print(stderr,
               "snr: warning: network '{}' multicasts, but not at flow level: the plan's switch ranges run as one "
               "request per member GPU, without reduction in the switch (--granularity request runs them as "
               "multicast)\n",
               noc_config.name);
  }
  model.start();
  loop.run();
  const gpu::RunStats& stats = model.finish();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const noc::NocStats& net = network.stats();

  const uint64_t buffer_bytes = std::max(program.gpus[0].input_bytes, program.gpus[0].output_bytes);
  const double time_ns = static_cast<double>(stats.end_ps) / 1000.0;
  const double algbw = time_ns > 0 ? static_cast<double>(buffer_bytes) / time_ns : 0.0;  // bytes/ns = GB/s
  const double busbw = algbw * bus_bandwidth_factor(description.collective, program.gpu_count());
  uint64_t control_bytes = 0, data_bytes = 0;
  for (const gpu::GpuStats& g : stats.gpus) {
    control_bytes += g.control_bytes;
    data_bytes += g.data_bytes;
  }
  const std::vector<KernelTiming> kernels =
      kernel_timings(program, stats, bus_bandwidth_factor(description.collective, program.gpu_count()));
  const std::vector<CuOccupancy> occupancy = cu_occupancy(program, stats, gpu_config.compute_units);
  if (!configs.csv_path.empty()) write_kernels_csv(configs.csv_path, kernels);
  CollectiveTraceSummary trace;
  if (!configs.trace_path.empty()) {
    trace = write_collective_trace(configs.trace_path, program, stats, gpu_config.compute_units, &net,
                                   network.timeline());
    if (trace.workgroups_left_out > 0) {
      // Never silent: stderr, so that --json's stdout stays one object.
      fmt::print(stderr, "snr: warning: {}: {} workgroup slices written, {} left out (the trace's cap)\n",
                 configs.trace_path, trace.workgroup_slices, trace.workgroups_left_out);
    }
  }

  if (json) {
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
    const noc::PlaneStats multicast = multicast_totals(net);
    nlohmann::json out = description.identity;
    out.update({{"collective", description.collective},
                {"gpus", program.gpu_count()},
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
                  {"stores_wait_for_ack", gpu_config.stores_wait_for_ack},
                  {"granularity", gpu::to_string(gpu_config.granularity)}}},
                {"network",
                 {{"name", noc_config.name},
                  {"endpoints_per_gpu", noc_config.endpoints()},
                  {"routing", noc_config.routing},
                  {"arbitration", noc_config.arbitration},
                  {"messages", net.messages},
                  {"hops", net.hops},
                  {"links", links}}},
                {"per_gpu", gpus},
                {"kernels", kernels_json(kernels)},
                {"occupancy", occupancy_json(occupancy)},
                {"simulation", {{"events", loop.events_processed()}, {"wall_s", wall_s}}}});
    if (multicast.reduce_loads + multicast.broadcast_stores > 0) {
      out["network"]["multicast"] = {{"planes", net.planes.size()},
                                     {"reduce_loads", multicast.reduce_loads},
                                     {"broadcast_stores", multicast.broadcast_stores},
                                     {"fanout_messages", multicast.fanout_messages},
                                     {"fanout_bytes", multicast.fanout_bytes},
                                     {"gathered_messages", multicast.gathered_messages},
                                     {"gathered_bytes", multicast.gathered_bytes},
                                     {"reduce_busy_ns", static_cast<double>(multicast.reduce_busy_ps) / 1000.0}};
    }
    if (!configs.trace_path.empty()) {
      out["trace"] = {{"path", configs.trace_path},
                      {"workgroup_slices", trace.workgroup_slices},
                      {"workgroups_left_out", trace.workgroups_left_out},
                      {"counter_tracks", trace.counter_tracks}};
    }
    if (!configs.csv_path.empty()) out["csv"] = {{"path", configs.csv_path}, {"rows", kernels.size()}};
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{}\n", description.headline);
  fmt::print("GPU {}: {} CUs, {} workgroups/CU, unroll {}, {} outstanding/CU, {:g} GHz; network {}: {} endpoints/GPU, "
             "{} routing, {} arbitration\n",
             gpu_config.name, gpu_config.compute_units, gpu_config.workgroups_per_cu, gpu_config.unroll,
             gpu_config.max_outstanding_per_cu, gpu_config.clock_ghz, noc_config.name, noc_config.endpoints(),
             noc_config.routing, noc_config.arbitration);
  if (gpu_config.granularity != gpu::Granularity::kRequest) {
    fmt::print("granularity {} (docs/gpu-model.md, flow-level mode)\n", gpu::to_string(gpu_config.granularity));
  }
  fmt::print("time {:.3f} us   algbw {:.2f} GB/s   busbw {:.2f} GB/s\n", time_ns / 1000.0, algbw, busbw);
  fmt::print("bytes: data {}  control {} ({:.1f}% control), {} requests, {} network hops\n", data_bytes, control_bytes,
             data_bytes + control_bytes ? 100.0 * control_bytes / (data_bytes + control_bytes) : 0.0, stats.requests,
             net.hops);
  if (const noc::PlaneStats m = multicast_totals(net); m.reduce_loads + m.broadcast_stores > 0) {
    fmt::print("switch multicast: {} reduce-loads, {} broadcast-stores over {} planes; {} copies ({} bytes) down to "
               "members, reduction engines busy {:.3f} us in all\n",
               m.reduce_loads, m.broadcast_stores, net.planes.size(), m.fanout_messages, m.fanout_bytes,
               static_cast<double>(m.reduce_busy_ps) / 1e6);
  }
  fmt::print("{:>5} {:>12} {:>10} {:>14} {:>14} {:>14}\n", "gpu", "end_us", "requests", "data_bytes", "control_bytes",
             "off_gpu_bytes");
  for (uint32_t g = 0; g < stats.gpus.size(); ++g) {
    const gpu::GpuStats& s = stats.gpus[g];
    fmt::print("{:>5} {:>12.3f} {:>10} {:>14} {:>14} {:>14}\n", g, static_cast<double>(s.end_ps) / 1e6, s.requests,
               s.data_bytes, s.control_bytes, s.remote_bytes);
  }
  fmt::print("occupancy (busy: a workgroup resident on the CU, over the whole run):\n");
  for (const std::string& line : occupancy_lines(occupancy)) fmt::print("  {}\n", line);
  if (!configs.trace_path.empty()) {
    fmt::print("timeline: {} ({} workgroup slices{}, {} link counter tracks)\n", configs.trace_path,
               trace.workgroup_slices,
               trace.workgroups_left_out ? fmt::format(", {} left out", trace.workgroups_left_out) : std::string(),
               trace.counter_tracks);
  }
  if (!configs.csv_path.empty()) fmt::print("kernels: {} ({} rows)\n", configs.csv_path, kernels.size());
  return 0;
}

}  // namespace snr::cli
