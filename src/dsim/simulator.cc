#include "dsim/simulator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numeric>

#include <algorithm>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "dsim/core/event_loop.h"
#include "dsim/network/registry.h"
#include "dsim/system/system_layer.h"
#include "dsim/workload/compute_slowdown.h"
#include "dsim/workload/custom_program.h"
#include "dsim/workload/trace_comm_groups.h"
#include "formats/perfetto/trace_writer.h"

namespace snr::dsim {

TimeNs SimulationResult::finish_ns() const {
  TimeNs latest = 0;
  for (const auto& npu : npus) latest = std::max(latest, npu.finish_ns);
  return latest;
}

namespace {

// The memory profiles summed over the NPUs (the peak is the largest).
struct MemoryTotals {
  uint64_t peak_bytes = 0, tensors = 0, without_lists = 0, read_before_write = 0, written_again = 0;
};
MemoryTotals memory_totals(const std::vector<MemoryProfile>& memory) {
  MemoryTotals sum;
  for (const MemoryProfile& m : memory) {
    sum.peak_bytes = std::max(sum.peak_bytes, m.peak_bytes);
    sum.tensors += m.tensors.size();
    sum.without_lists += m.nodes_without_lists;
    sum.read_before_write += m.read_before_write;
    sum.written_again += m.written_again;
  }
  return sum;
}

// What the tracker could not use, summed over the NPUs.
void add_memory_notes(SimulationResult& result) {
  const auto [peak_bytes, tensors, without_lists, read_before_write, written_again] = memory_totals(result.memory);
  uint64_t nodes = 0;
  for (const NpuResult& npu : result.npus) nodes += npu.nodes_completed;
  if (without_lists > 0) {
    result.notes.push_back(fmt::format(
        "track-local-mem: {} of {} nodes name no tensors (no \"inputs\"/\"outputs\" attribute); they hold no "
        "memory in the profile",
        without_lists, nodes));
  }
  if (read_before_write > 0) {
    result.notes.push_back(fmt::format(
        "track-local-mem: {} tensors are read before any node writes them; they count as live from time 0",
        read_before_write));
  }
  if (written_again > 0) {
    result.notes.push_back(fmt::format(
        "track-local-mem: {} writes name a tensor already written or read; the first naming stays", written_again));
  }
}

// What can make NPUs disagree on which of their waiting chunks runs next.
// Each NPU picks its chunks on its own (as ASTRA-sim 2.x does), so a stall
// in a collective need not come from collectives issued in different orders.
std::string chunk_order_hint(const SystemConfig& system, const NetworkConfig& network) {
  std::vector<std::string> kinds;
  if (system.scheduling_policy == SchedulingPolicy::kLifo) {
    kinds.emplace_back(
        "with scheduling-policy LIFO a newer collective's chunks go ahead of older waiting ones on each NPU, so NPUs "
        "that reach overlapping collectives in different orders can wait on each other (as in ASTRA-sim): "
        "scheduling-policy FIFO or a larger active-chunks-per-dimension avoids that kind");
  }
  // A chunk joins a dimension's queue when its previous phase ends: with
  // three or more dimensions, one chunk's all-gather back through a middle
  // dimension and another's reduce-scatter into it arrive in an order set by
  // timing, which a straggler or a slower link makes differ between NPUs.
  const bool chunks_wait = system.preferred_dataset_splits > system.active_chunks_per_dimension;
  if (chunks_wait && network.dimensions.size() >= 3) {
    kinds.emplace_back(fmt::format(
        "a chunk joins a dimension's queue when its previous phase ends, so in a middle dimension of this {}-dimension "
        "network one chunk's all-gather and another's reduce-scatter can queue in different orders on different NPUs "
        "(a straggler or a slower link is enough, even for one collective, under FIFO too), and only {} of the {} "
        "chunks run at a time: active-chunks-per-dimension at least preferred-dataset-splits avoids that kind",
        network.dimensions.size(), system.active_chunks_per_dimension, system.preferred_dataset_splits));
  }
  // Node ids are per rank (a microbenchmark's one collective is node r on
  // rank r): a member whose node id is not listed runs the native algorithm
  // and never meets the others' custom program.
  if (!system.per_node_custom.empty()) {
    kinds.emplace_back(
        "per-node-custom-implementation is looked up by each rank's own node id, so every member's node of a "
        "custom collective must be listed (a rank whose id is missing runs the native algorithm and waits for peers "
        "that run the program)");
  }
  return fmt::format("{}", fmt::join(kinds, "; "));
}

}  // namespace

SimulationResult simulate(const SystemConfig& system, const NetworkConfig& network, const CommGroups& groups,
                          std::vector<RankGraph> graphs, std::string_view backend, bool record_details,
                          const CustomCollectives* custom, const Perturbations* perturbations,
                          const RemoteMemoryConfig* remote_memory) {
  const NetworkBackendSpec& backend_spec = find_network_backend(backend);
  if (system.names_custom_collectives() && (custom == nullptr || custom->empty())) {
    throw Error("the system configuration names custom collectives, but their programs were not loaded");
  }
  if (graphs.size() != network.npus_count()) {
    throw Error(fmt::format("{} rank traces for a network of {} NPUs", graphs.size(), network.npus_count()));
  }
  uint64_t skipped = 0;
  uint64_t dangling = 0;
  uint64_t barriers = 0;
  for (const auto& g : graphs) {
    skipped += g.skipped_records;
    dangling += g.dangling_dependencies_dropped;
    barriers += g.barriers_run_as_all_reduce;
  }
  if (perturbations != nullptr) apply_compute_slowdown(graphs, perturbations->compute_slowdown);
  EventLoop loop;
  // The system layers' events of one NPU and tick run as ASTRA-sim's Sys
  // runs them, as one batch.
  loop.queue().enable_batches(static_cast<uint32_t>(network.npus_count()));
  Workload workload(std::move(graphs), groups, loop, record_details, system.track_local_mem);
  const std::unique_ptr<NetworkBackend> net = backend_spec.create(network, loop);
  if (FlowLog* flows = net->flow_log()) flows->keep_records(record_details);
  if (perturbations != nullptr && !perturbations->bandwidth.empty()) net->set_bandwidth_factors(perturbations->bandwidth);
  SystemLayer system_layer(system, network, loop, *net, workload, custom);
  workload.attach(system_layer);
  std::unique_ptr<RemoteMemory> memory;
  if (remote_memory != nullptr && remote_memory->type != RemoteMemoryType::kNoExpansion) {
    memory = std::make_unique<RemoteMemory>(*remote_memory, network.npus_count(), loop, workload);
    workload.attach(*memory);
  }
  workload.start();
  loop.run();
  try {
    workload.check_all_finished(chunk_order_hint(system, network));
  } catch (const Error& e) {
    // A collective model with state of its own (the load-store GPU model)
    // says what it waits for: a plan's deadlock, members never started.
    const std::string stall = system_layer.stall_report();
    if (stall.empty()) throw;
    throw Error(std::string(e.what()) + "; " + stall);
  }
  SimulationResult result;
  result.backend_name = net->name();
  result.npus = workload.results();
  result.bytes_sent_per_npu = system_layer.traffic().bytes_sent_per_npu;
  result.links = net->link_stats();
  if (FlowLog* flows = net->flow_log()) {
    result.flow_totals = flows->totals();
    result.flows = flows->take_records();
  }
  result.packets = net->packet_stats();
  if (barriers > 0) {
    result.notes.push_back(fmt::format(
        "{} BARRIER collective(s) ran as all-reduces of their comm_size (at least one byte), as NCCL runs a "
        "process group's barrier (an all-reduce of a one-element tensor); ASTRA-sim stops at them",
        barriers));
  }
  for (std::string& note : system_layer.notes()) result.notes.push_back(std::move(note));
  for (std::string& note : net->notes()) result.notes.push_back(std::move(note));
  result.events_processed = loop.events_processed();
  result.messages_sent = system_layer.traffic().messages_sent;
  result.skipped_records = skipped;
  result.dangling_dependencies_dropped = dangling;
  if (record_details) {
    result.timeline = workload.timeline();
    for (const auto& [name, members] : groups.groups) result.group_members.push_back(members);
  }
  if (system.track_local_mem) {
    result.memory = workload.take_memory_profiles();
    result.memory_trace_prefix = system.local_mem_trace_filename;
    add_memory_notes(result);
  }
  if (record_details || system.track_local_mem) result.graphs = workload.take_graphs();
  if (const auto world = groups.groups.find(std::string(kWorldGroupName)); world != groups.groups.end()) {
    std::vector<uint32_t> every_npu(network.npus_count());
    std::iota(every_npu.begin(), every_npu.end(), 0u);
    if (world->second != every_npu) {
      result.notes.push_back(fmt::format(
          "communicator group '{}' is not the {} NPUs in order (it lists {}), but pg_name '{}' means every NPU "
          "(PyTorch's default group, as ASTRA-sim reads it): its collectives ran on all of them in order; give the "
          "group another name to use it",
          kWorldGroupName, network.npus_count(), world->second.size(), kWorldGroupName));
    }
  }
  if (system.trace_enabled) {
    result.notes.push_back(
        "trace-enabled: 1 asks ASTRA-sim for a debug line per issued and finished node; snr prints none (its "
        "per-node record is timeline.json of snr sim -o DIR)");
  }
  return result;
}

SimulationDocuments read_simulation_documents(const SimulationInputs& inputs, std::optional<ConfigText> network) {
  const auto read = [](const std::filesystem::path& path) {
    return ConfigText{read_file(path), path.string(), path.parent_path()};
  };
  ConfigText system = read(inputs.system_configuration);
  if (!network) network = read(inputs.network_configuration);
  SimulationDocuments documents{std::move(system), std::move(*network), read(inputs.remote_memory_configuration),
                                std::nullopt, std::nullopt};
  if (!inputs.comm_group_configuration.empty()) documents.comm_groups = read(inputs.comm_group_configuration);
  if (!inputs.perturbation_configuration.empty()) documents.perturbation = read(inputs.perturbation_configuration);
  return documents;
}

SimulationResult simulate_files(const SimulationInputs& inputs) {
  // Backend and scales first: a bad option is reported before any file is read.
  find_network_backend(inputs.backend);
  check_workload_scales(inputs.scales);
  return simulate_documents(inputs, read_simulation_documents(inputs));
}

SimulationResult simulate_documents(const SimulationInputs& inputs, const SimulationDocuments& documents) {
  const NetworkBackendSpec& backend = find_network_backend(inputs.backend);
  const ConfigText& sys = documents.system;
  SystemConfig system = parse_system_config(sys.text, sys.source, sys.base_dir);
  apply_injection_scale(system, inputs.injection_scale);
  check_workload_scales(inputs.scales);
  const NetworkConfig network = parse_backend_config(backend, documents.network.text, documents.network.source);
  check_trace_set_size(inputs.workload_prefix, network.npus_count());
  const RemoteMemoryConfig remote_memory =
      parse_remote_memory_config(documents.remote_memory.text, documents.remote_memory.source);
  Perturbations perturbations;
  if (documents.perturbation) {
    perturbations = resolve_perturbations(
        parse_perturbation_config(documents.perturbation->text, documents.perturbation->source), network);
  }
  const CustomCollectives custom = load_custom_collectives(system, network.npus_count());
  // Without a communicator-group file, the groups the traces describe
  // themselves (their "## process_group:init ##" METADATA nodes).
  const CommGroups groups =
      documents.comm_groups
          ? parse_comm_groups(documents.comm_groups->text, documents.comm_groups->source, network.npus_count())
          : comm_groups_from_traces(inputs.workload_prefix, network.npus_count());
  std::vector<RankGraph> graphs;
  graphs.reserve(network.npus_count());
  for (uint32_t rank = 0; rank < network.npus_count(); ++rank) {
    graphs.push_back(load_rank_graph(inputs.workload_prefix, rank, system, groups, network.npus_count(),
                                     inputs.dangling_dependencies, remote_memory.type));
  }
  apply_workload_scales(graphs, inputs.scales);
  return simulate(system, network, groups, std::move(graphs), inputs.backend, inputs.record_details,
                  custom.empty() ? nullptr : &custom, &perturbations, &remote_memory);
}

std::string astra_summary_lines(const SimulationResult& result) {
  std::string out;
  for (size_t npu = 0; npu < result.npus.size(); ++npu) {
    const auto& r = result.npus[npu];
    out += fmt::format("sys[{}] finished, {} cycles, exposed communication {} cycles.\n", npu, r.finish_ns,
                       r.finish_ns - r.compute_ns);
    // ASTRA-sim's statistics report (its operator types in declaration
    // order, those the NPU ran; the overlap only when there is one).
    out += fmt::format("sys[{}], Wall time: {}\n", npu, r.finish_ns);
    static constexpr std::pair<NodeActivity, std::string_view> kActivityLines[] = {
        {NodeActivity::kCpu, "CPU time"},
        {NodeActivity::kGpu, "GPU time"},
        {NodeActivity::kCommunication, "Comm time"},
        {NodeActivity::kRemoteMemory, "Remote mem time"}};
    for (const auto& [activity, label] : kActivityLines) {
      if (r.saw(activity)) out += fmt::format("sys[{}], {}: {}\n", npu, label, r.busy(activity));
    }
    if (r.overlap_ns > 0) out += fmt::format("sys[{}], Total compute-communication overlap: {}\n", npu, r.overlap_ns);
    if (npu < result.memory.size()) {
      out += fmt::format("sys[{}] peak memory usage: {}\n", npu, format_peak_memory(result.memory[npu].peak_bytes));
    }
  }
  return out;
}

std::vector<std::filesystem::path> write_memory_traces(const SimulationResult& result) {
  std::vector<std::filesystem::path> written;
  if (result.memory.empty()) return written;
  if (result.graphs.size() != result.memory.size()) throw Error("the graphs were not kept for the memory traces");
  for (size_t npu = 0; npu < result.memory.size(); ++npu) {
    const RankGraph& graph = result.graphs[npu];
    std::vector<NodeLabel> labels;
    labels.reserve(graph.nodes.size());
    for (const WorkNode& node : graph.nodes) labels.push_back(NodeLabel{node.name, node.chakra_id});
    const std::filesystem::path path = fmt::format("{}.{}.json", result.memory_trace_prefix, npu);
    with_error_context(fmt::format("memory trace {} (local-mem-trace-filename)", path.string()), [&] {
      write_memory_trace(result.memory[npu], graph.tensors, labels, static_cast<NpuId>(npu),
                         result.npus[npu].finish_ns, path);
    });
    written.push_back(path);
  }
  return written;
}

nlohmann::ordered_json npus_json(const SimulationResult& result) {
  nlohmann::ordered_json npus = nlohmann::ordered_json::array();
  for (size_t i = 0; i < result.npus.size(); ++i) {
    const auto& r = result.npus[i];
    npus.push_back({{"npu", i},
                    {"total_ns", r.finish_ns},
                    {"compute_ns", r.compute_ns},
                    {"exposed_communication_ns", r.finish_ns - r.compute_ns},
                    {"bytes_sent", result.bytes_sent_per_npu[i]},
                    {"nodes_completed", r.nodes_completed},
                    {"cpu_ns", r.busy(NodeActivity::kCpu)},
                    {"communication_ns", r.busy(NodeActivity::kCommunication)},
                    {"remote_memory_ns", r.busy(NodeActivity::kRemoteMemory)},
                    {"overlap_ns", r.overlap_ns}});
    if (i < result.memory.size()) {
      npus.back()["peak_memory_bytes"] = result.memory[i].peak_bytes;
      npus.back()["peak_memory_ns"] = result.memory[i].peak_ns;
    }
  }
  return npus;
}

nlohmann::ordered_json summary_json(const SimulationResult& result) {
  nlohmann::ordered_json summary = {{"backend", result.backend_name},
                                    {"npus", result.npus.size()},
                                    {"finish_ns", result.finish_ns()},
                                    {"messages", result.messages_sent},
                                    {"events", result.events_processed},
                                    {"skipped_records", result.skipped_records},
                                    {"dangling_dependencies_dropped", result.dangling_dependencies_dropped}};
  if (result.flow_totals && result.flow_totals->count > 0) {
    const FlowTotals& flows = *result.flow_totals;
    summary["flows"] = {{"count", flows.count},
                        {"fct_min_ns", flows.min_fct_ns},
                        {"fct_avg_ns", flows.mean_fct_ns},
                        {"fct_max_ns", flows.max_fct_ns}};
  }
  if (!result.memory.empty()) {
    const MemoryTotals sum = memory_totals(result.memory);
    summary["memory"] = {{"trace_prefix", result.memory_trace_prefix},
                         {"peak_bytes", sum.peak_bytes},
                         {"tensors", sum.tensors},
                         {"nodes_without_tensor_lists", sum.without_lists},
                         {"tensors_read_before_write", sum.read_before_write},
                         {"tensors_written_again", sum.written_again}};
  }
  if (result.packets) {
    summary["packets"] = {{"sent", result.packets->packets_sent},
                          {"dropped", result.packets->packets_dropped},
                          {"max_queue_bytes", result.packets->max_queue_bytes},
                          {"max_queue_port", result.packets->max_queue_port}};
  }
  return summary;
}

void write_result_files(const SimulationResult& result, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::string csv =
      "npu,total_ns,compute_ns,exposed_communication_ns,bytes_sent,nodes_completed,cpu_ns,communication_ns,"
      "remote_memory_ns,overlap_ns\n";
  for (size_t i = 0; i < result.npus.size(); ++i) {
    const auto& r = result.npus[i];
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", i, r.finish_ns, r.compute_ns, r.finish_ns - r.compute_ns,
                       result.bytes_sent_per_npu[i], r.nodes_completed, r.busy(NodeActivity::kCpu),
                       r.busy(NodeActivity::kCommunication), r.busy(NodeActivity::kRemoteMemory), r.overlap_ns);
  }
  std::string links = "link,bytes,messages,busy_ns\n";
  for (const auto& link : result.links) {
    links += fmt::format("{},{},{},{}\n", link.name, link.bytes, link.messages, link.busy_ns);
  }
  write_file_atomic(dir / "npus.json", npus_json(result).dump(2) + "\n");
  write_file_atomic(dir / "npus.csv", csv);
  write_file_atomic(dir / "links.csv", links);
  write_file_atomic(dir / "summary.json", summary_json(result).dump(2) + "\n");
  if (!result.flows.empty()) {
    // Row by row: a run can carry millions of messages.
    AtomicFileWriter flows(dir / "flows.csv");
    fmt::memory_buffer rows;
    fmt::format_to(std::back_inserter(rows), "message,src,dst,bytes,start_ns,end_ns,fct_ns\n");
    for (const FlowStats& flow : result.flows) {
      fmt::format_to(std::back_inserter(rows), "{},{},{},{},{},{},{}\n", flow.message, flow.src, flow.dst, flow.bytes,
                     flow.start_ns, flow.end_ns, flow.completion_ns());
      if (rows.size() >= (1u << 20)) {
        flows.write({rows.data(), rows.size()});
        rows.clear();
      }
    }
    flows.write({rows.data(), rows.size()});
    flows.commit();
  }
}

void write_timeline(const SimulationResult& result, const std::filesystem::path& path) {
  if (result.timeline.size() != result.npus.size()) throw Error("timeline was not recorded");
  perfetto::TraceWriter writer(perfetto::TimeBase::nanoseconds(), perfetto::OverlapPolicy::kSpreadToLanes);
  for (size_t npu = 0; npu < result.timeline.size(); ++npu) {
    const std::string process = fmt::format("NPU {}", npu);
    const perfetto::TrackId compute = writer.add_track(process, "compute");
    const perfetto::TrackId comm = writer.add_track(process, "communication");
    const perfetto::TrackId cpu = writer.add_track(process, "cpu");
    for (const auto& slice : result.timeline[npu]) {
      const WorkNode& node = result.graphs[npu].nodes[slice.node];
      const perfetto::TrackId track = slice.lane == NodeClass::kGpuComm ? comm
                                      : slice.lane == NodeClass::kCpu   ? cpu
                                                                        : compute;
      perfetto::Args args;
      args.add("node_id", node.chakra_id);
      if (node.node_class == NodeClass::kGpuComm) args.add("bytes", node.comm_bytes);
      writer.slice(track, static_cast<int64_t>(slice.start_ns), static_cast<int64_t>(slice.end_ns - slice.start_ns),
                   node.name.empty() ? fmt::format("node {}", node.chakra_id) : node.name, std::move(args));
    }
  }
  writer.write_file(path);
}

}  // namespace snr::dsim
