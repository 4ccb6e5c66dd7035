// Scaling run of the distributed simulator: one all-reduce per NPU, built
// in memory (no trace files), on a one-dimensional network.
// Usage: dsim_scaling TOPOLOGY NPUS BYTES BACKEND [ALGORITHM [SPLITS]]
// (ALGORITHM: an all-reduce-implementation name, default ring; SPLITS:
// preferred-dataset-splits, default 4).
// Prints simulated finish time, wall time and peak resident memory.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "dsim/simulator.h"

int main(int argc, char** argv) {
  if (argc < 5 || argc > 7) {
    fmt::print(stderr, "usage: {} Ring|Switch|FullyConnected NPUS BYTES aware|unaware [ALGORITHM [SPLITS]]\n",
               argv[0]);
    return 2;
  }
  try {
    using namespace snr::dsim;
    const std::string topology = argv[1];
    const uint64_t npus = std::stoull(argv[2]);
    const uint64_t bytes = std::stoull(argv[3]);
    const std::string backend = std::string(argv[4]) == "unaware" ? "analytical-congestion-unaware"
                                                                  : "analytical-congestion-aware";
    const auto network = parse_network_config(
        fmt::format("topology: [{}]\nnpus_count: [{}]\nbandwidth: [50]\nlatency: [500]\n", topology, npus), "bench");
    const std::string algorithm = argc > 5 ? argv[5] : "ring";
    const std::string splits = argc > 6 ? argv[6] : "4";
    const auto system = parse_system_config(
        fmt::format(R"({{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
            "preferred-dataset-splits": {}, "all-reduce-implementation": ["{}"],
            "collective-optimization": "localBWAware", "local-mem-bw": 1600}})", splits, algorithm),
        "bench");
    RankGraph graph;
    WorkNode node;
    node.name = "all_reduce";
    node.node_class = NodeClass::kGpuComm;
    node.action = NodeAction::kCollective;
    node.collective = CollectiveKind::kAllReduce;
    node.comm_bytes = bytes;
    graph.nodes.push_back(node);
    const auto start = std::chrono::steady_clock::now();
    const auto result = simulate(system, network, {}, std::vector<RankGraph>(npus, graph), backend, false);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    // CPU time next to wall time: on a shared machine wall time includes waiting for a core.
    const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    fmt::print("{} {} {} {} {} splits={} finish_ns={} wall_s={:.3f} cpu_s={:.3f} peak_rss_mb={:.1f} events={} "
               "messages={}\n",
               topology, npus, bytes, argv[4], algorithm, splits, result.finish_ns(), wall_s, cpu_s,
               static_cast<double>(usage.ru_maxrss) / 1024.0, result.events_processed, result.messages_sent);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
