// Running one collective's load-store Program on the GPU model over the
// NoC-level network and reporting it, shared by `snr collective PLAN`
// (plan files, cmd_collective.cc) and `snr collective allgather|...`
// (built-in algorithms, cmd_collective_builtin.cc): the same model options,
// the same text and the same JSON keys (`time_ns`, `algbw_gbps` and
// `busbw_gbps` are the stable contract).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "dsim/gpu/gpu_config.h"
#include "dsim/loadstore/program.h"
#include "dsim/noc/noc_config.h"

namespace snr::cli {

// The `collective` verb's description, the same in every file that adds a
// subcommand to it.
inline constexpr const char* kCollectiveVerbDescription =
    "Collectives (MSCCL++ and MSCCLang plans, built-in algorithms) on the load-store GPU model";

// The GPU model's and the network's configuration and overrides.
struct ModelOptions {
  std::string gpu = "generic-448";  // preset or YAML file
  std::string network;              // preset or YAML file; empty: the GPU's system preset
  uint32_t wavefront_threads = 32;
  uint32_t unroll = 0, max_outstanding = 0, workgroups_per_cu = 0;  // 0: the GPU config's
  std::string arbitration, routing;                                 // empty: the network config's
  std::string granularity;  // request or flow; empty: the GPU config's (request unless its YAML says)
  // < 0: the network config's. The port bandwidth sets both the on-chip
  // I/O port links and the scale-up links (one NVLink is both).
  double scale_up_latency_ns = -1, port_bandwidth_gib_per_s = -1;
  bool json = false;
  std::string trace_path;  // --trace: Perfetto timeline; empty: none (the network records no timeline)
  std::string csv_path;    // --csv: one row per kernel
};

// Adds --gpu (unless `with_gpu` is false: a caller naming a system adds
// its own), --network-configuration, --wavefront-threads, --unroll,
// --max-outstanding, --workgroups-per-cu, --arbitration, --routing, --granularity,
// --scale-up-latency-ns, --port-bandwidth-gib-per-s, --json, --trace, --csv.
void add_model_options(CLI::App* app, const std::shared_ptr<ModelOptions>& options, bool with_gpu = true);
// The network a GPU comes with when --network-configuration is left out: the
// NoC preset of the same name for a GPU preset (dgx-h100's 132 SMs need its
// 132-CU network), else `fallback`.
std::string network_of_gpu(const std::string& gpu, const std::string& fallback);

struct ModelConfigs {
  dsim::gpu::GpuConfig gpu;
  dsim::noc::NocConfig network;
  // Files the report writes beside stdout (--trace, --csv; empty: none).
  // They travel with the configurations because every form of the verb
  // passes these to simulate_and_report.
  std::string trace_path, csv_path;
};
// Reads the configurations (`default_network`: preset used when no
// --network-configuration is given), applies the overrides and checks the
// output files can be written; throws snr::Error naming a bad file, key or
// name.
ModelConfigs load_model_configs(const ModelOptions& options, const std::string& default_network);

// What is being run, for the report: `identity` holds the keys that name it
// (plan or algorithm, collective, protocol, size_bytes, ...) and is merged
// into the JSON result; `headline` is the text report's first line.
struct RunDescription {
  std::string collective;
  nlohmann::json identity = nlohmann::json::object();
  std::string headline;
};

// The most cache-line requests (loadstore::line_requests) one run
// simulates: about an hour of a request-level run at the million requests
// per second a ring all-reduce runs at, and the same hour at flow level,
// which simulates a wavefront's run of lines as one message. A 1 GiB
// all-reduce on 8 GPUs (about 1e9 requests) is inside; 1 TiB, or an
// all-to-all of 1 GiB on 4096 GPUs, would run for days and is refused.
uint64_t max_line_requests(dsim::gpu::Granularity granularity);

// Simulates `program` and prints the text or JSON report (and writes the
// --trace and --csv files); returns the exit code. A program of more than
// max_line_requests is refused (snr::Error) before it runs.
int simulate_and_report(const dsim::loadstore::Program& program, const ModelConfigs& configs,
                        const RunDescription& description, bool json);

// nccl-tests' bus bandwidth factor for a collective over `gpus`.
double bus_bandwidth_factor(const std::string& collective, uint32_t gpus);

}  // namespace snr::cli
