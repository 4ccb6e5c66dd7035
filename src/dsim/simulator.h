// One simulation run: loads the configs and per-rank traces, builds the
// network backend named by the inputs (network/registry.h), registers the
// workload, system and network layers on one event loop, runs it to the end
// and returns the per-NPU results. Shared by `snr sim` and `snr et timeline`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "dsim/config/aux_config.h"
#include "dsim/config/network_config.h"
#include "dsim/config/system_config.h"
#include "dsim/network/network.h"
#include "dsim/perturbation/perturbation.h"
#include "dsim/system/custom_collective.h"
#include "dsim/workload/workload.h"

namespace snr::dsim {

inline constexpr std::string_view kDefaultNetworkBackend = "analytical-congestion-aware";

struct SimulationInputs {
  std::filesystem::path workload_prefix;
  std::filesystem::path system_configuration;
  std::filesystem::path network_configuration;
  std::filesystem::path remote_memory_configuration;
  std::filesystem::path comm_group_configuration;  // optional
  std::filesystem::path perturbation_configuration;  // optional: stragglers, link bandwidth factors
  std::string backend{kDefaultNetworkBackend};  // a registered network backend
  // Keep what only outputs need: each NPU's timeline of nodes and, on a
  // packet-level backend, each message's record (snr sim -o DIR).
  bool record_details = false;
  // ASTRA-sim's --compute-scale / --comm-scale and --injection-scale
  // (multiplies a given endpoint-delay), and what to do with dependencies
  // on nodes missing from a trace.
  WorkloadScales scales;
  double injection_scale = 1;
  DanglingDependencies dangling_dependencies = DanglingDependencies::kError;
};

struct SimulationResult {
  std::string backend_name;
  std::vector<NpuResult> npus;
  std::vector<uint64_t> bytes_sent_per_npu;
  std::vector<LinkStats> links;
  std::optional<FlowTotals> flow_totals;                 // packet-level backends only
  std::vector<FlowStats> flows;                          // with record_details: each message, as it completed
  std::optional<PacketStats> packets;                    // packet-level backends only
  std::vector<RankGraph> graphs;                         // kept for timeline names and memory traces
  std::vector<std::vector<TimelineSlice>> timeline;
  std::vector<std::vector<uint32_t>> group_members;      // by WorkNode::group (with the timeline)
  uint64_t events_processed = 0;
  uint64_t messages_sent = 0;
  uint64_t skipped_records = 0;
  uint64_t dangling_dependencies_dropped = 0;
  // With track-local-mem: per NPU, and the trace files' prefix
  // (<prefix>.<npu>.json, ASTRA-sim's local-mem-trace-filename).
  std::vector<MemoryProfile> memory;
  std::string memory_trace_prefix;
  // What the user should know that changes no result (a setting accepted
  // but not applied, records the tracker could not use), one sentence each.
  std::vector<std::string> notes;
  [[nodiscard]] TimeNs finish_ns() const;
};

// Runs a simulation from in-memory inputs (tests, benchmarks) on the
// network backend registered as `backend`. `custom` holds the custom
// collectives' programs when the system configuration names any (see
// load_custom_collectives). `perturbations` (optional) slows NPUs' compute
// and scales link bandwidths (dsim/perturbation). `remote_memory`
// (optional) serves MEM_LOAD / MEM_STORE nodes (dsim/remote_memory); the
// graphs must have been loaded with its type.
SimulationResult simulate(const SystemConfig& system, const NetworkConfig& network, const CommGroups& groups,
                          std::vector<RankGraph> graphs, std::string_view backend, bool record_details,
                          const CustomCollectives* custom = nullptr, const Perturbations* perturbations = nullptr,
                          const RemoteMemoryConfig* remote_memory = nullptr);
// Loads every input named in `inputs`, then simulates. The trace set must
// have one file per NPU (check_trace_set_size). Throws snr::Error.
SimulationResult simulate_files(const SimulationInputs& inputs);

// One configuration as text: what its reader parses, the name its errors
// use, and the folder its relative paths resolve against.
struct ConfigText {
  std::string text;
  std::string source;
  std::filesystem::path base_dir;
};
// The configuration files of a run as text, so a caller can edit them in
// memory (snr sweep) and still go through the same readers.
struct SimulationDocuments {
  ConfigText system;
  ConfigText network;
  ConfigText remote_memory;
  std::optional<ConfigText> comm_groups;   // none: the groups the traces describe
  std::optional<ConfigText> perturbation;  // none: no perturbation
};
// Reads the files `inputs` names.
// `network`, when given, is used instead of reading network_configuration
// (a network translated from another description, e.g. InfraGraph).
SimulationDocuments read_simulation_documents(const SimulationInputs& inputs,
                                              std::optional<ConfigText> network = std::nullopt);
// simulate_files with the configurations given as text; the trace prefix,
// backend, scales and options still come from `inputs` (its configuration
// paths are not read).
SimulationResult simulate_documents(const SimulationInputs& inputs, const SimulationDocuments& documents);

// The lines ASTRA-sim prints per NPU:
// "sys[R] finished, T cycles, exposed communication E cycles.", ASTRA-sim's
// statistics lines ("sys[R], Wall time: T", "sys[R], GPU time: G", ...,
// "sys[R], Total compute-communication overlap: O") and, with
// track-local-mem, "sys[R] peak memory usage: 1.50 MB" after them.
std::string astra_summary_lines(const SimulationResult& result);
// With track-local-mem: each NPU's memory trace, <prefix>.<npu>.json
// (parent folders created); returns the paths written. No-op otherwise.
std::vector<std::filesystem::path> write_memory_traces(const SimulationResult& result);
// What npus.json and summary.json hold (per NPU: total_ns, compute_ns,
// exposed_communication_ns, bytes_sent, nodes_completed, cpu_ns,
// communication_ns, remote_memory_ns, overlap_ns, and with
// track-local-mem peak_memory_bytes and peak_memory_ns; the run: backend,
// npus, finish_ns, messages, events, skipped_records,
// dangling_dependencies_dropped, and with track-local-mem "memory").
nlohmann::ordered_json npus_json(const SimulationResult& result);
nlohmann::ordered_json summary_json(const SimulationResult& result);
// Writes npus.json, npus.csv, links.csv and summary.json into `dir`.
void write_result_files(const SimulationResult& result, const std::filesystem::path& dir);
// Chrome-trace JSON: one process per NPU with compute / communication / cpu tracks.
void write_timeline(const SimulationResult& result, const std::filesystem::path& path);

}  // namespace snr::dsim
