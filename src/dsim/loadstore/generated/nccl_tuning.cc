#include "dsim/loadstore/generated/nccl_tuning.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

// NCCL's constants, indexed [algorithm: tree, ring][protocol: LL, LL128,
// Simple] or [generation: Volta, Ampere, Hopper], single-node values.
enum Algo { kTree = 0, kRing = 1, kNvls = 2 };
constexpr std::array<std::string_view, 3> kAlgoNames{"nccl-tree", "nccl-ring", "nccl-nvls"};
// NVLS (Simple only): its whole latency over NVLink (us, no base latency),
// the share of its graph's bandwidth it reaches per generation (none before
// Hopper), and the channels (thread blocks) its kernels run on Hopper.
constexpr double kNvlsLatencyUs = 25.0;
constexpr double kNvlsEfficiency[3] = {0.0, 0.0, 0.85};
constexpr uint32_t kNvlsChannelsHopper = 16;
constexpr uint32_t kNvlsThreads = 640;
constexpr std::array<Protocol, 3> kProtocols{Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
// Fixed cost of launching and running one collective, per algorithm (us).
constexpr double kBaseLatencyUs[2][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
// Cost of one step over NVLink (us): a ring all-reduce has 2(N-1) steps, a
// tree 2(N-1) hops of its chain.
constexpr double kNvlinkStepLatencyUs[2][3] = {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}};
// LL's bandwidth cap for one node (GB/s).
constexpr double kLlMaxBwGbps[3] = {39.0, 87.7, 141.0};
// Per-channel caps (GB/s): ring LL128, tree LL128, tree.
constexpr double kRingLl128PerChannelGbps[3] = {20.0, 20.0, 36.7};
constexpr double kTreeLl128PerChannelGbps[3] = {20.0, 20.0, 36.7};
constexpr double kTreePerChannelGbps[3] = {26.5, 24.0, 38.7};
// Tree all-reduce bandwidth corrections for medium sizes, by
// log2(bytes / 64) from 0 to 22 (NCCL measured its trees to be slower there).
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
// Bandwidth NCCL assumes per NVLink (GB/s) and the per-channel speeds its
// search tries, fastest first.
constexpr double kNvlinkGbps[3] = {20.0, 20.0, 20.6};
constexpr std::array<double, 13> kSpeedsIntra{40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr std::array<double, 11> kSpeedsIntraHopper{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr uint32_t kMaxGraphChannels = 32;  // MAXCHANNELS / 2
// Threads per block and bytes per thread before another channel (or more
// threads) pays off.
constexpr uint32_t kMaxThreads[3] = {512, 640, 512};  // LL, LL128, Simple
constexpr uint64_t kThreadThreshold[3] = {8, 8, 64};
constexpr uint32_t kWarp = 32;
// Bytes a thread has in flight per loop trip, by protocol (LL, LL128, Simple).
constexpr uint32_t kBytesInFlightPerThread[3] = {16, 8 * 8, 8 * 16};

size_t proto_index(Protocol p) {
  switch (p) {
    case Protocol::kLL: return 0;
    case Protocol::kLL128: return 1;
    case Protocol::kSimple: break;
  }
  return 2;
}

const std::array<NcclSystem, 2>& systems() {
  static const std::array<NcclSystem, 2> list{
      {{"dgx-a100", NcclArch::kAmpere, 12, false}, {"dgx-h100", NcclArch::kHopper, 18, true}}};
  return list;
}

int floor_log2(uint64_t v) {
  int log = -1;
  while (v != 0) {
    v >>= 1;
    ++log;
  }
  return log;
}

}  // namespace

const NcclSystem* find_nccl_system(std::string_view system) {
  for (const NcclSystem& s : systems()) {
    if (s.name == system) return &s;
  }
  return nullptr;
}

std::vector<std::string> nccl_system_names() {
  std::vector<std::string> names;
  for (const NcclSystem& s : systems()) names.push_back(s.name);
  return names;
}

NcclGraph nccl_graph(const NcclSystem& system) {
  const auto arch = static_cast<size_t>(system.arch);
  const double total_gbps = system.nvlinks_per_gpu * kNvlinkGbps[arch];
  // Through NVSwitches every ring's GPU-to-GPU path is the GPU's whole
  // NVLink bandwidth: the search takes the fastest speed that fits and as
  // many channels of it as the links carry.
  const bool hopper = system.arch == NcclArch::kHopper;
  const double* speeds = hopper ? kSpeedsIntraHopper.data() : kSpeedsIntra.data();
  const size_t count = hopper ? kSpeedsIntraHopper.size() : kSpeedsIntra.size();
  size_t i = 0;
  while (i + 1 < count && speeds[i] > total_gbps) ++i;
  NcclGraph g;
  g.bw_per_channel_gbps = speeds[i];
  g.channels = std::clamp<uint32_t>(static_cast<uint32_t>(std::floor(total_gbps / speeds[i] + 1e-9)), 1,
                                    kMaxGraphChannels);
  // Fast channels are then split in two (more blocks, same total), except
  // on Hopper-class GPUs for mid-speed graphs that already have many.
  const bool split = g.bw_per_channel_gbps >= 25.0 &&
                     !(system.arch == NcclArch::kHopper && g.bw_per_channel_gbps < 50.0 && g.channels > 4);
  if (split) {
    const uint32_t doubled = std::min(2 * g.channels, kMaxGraphChannels);
    g.bw_per_channel_gbps /= static_cast<double>((doubled + g.channels - 1) / g.channels);
    g.channels = doubled;
  }
  return g;
}

uint32_t nccl_max_channels(const NcclSystem& system) { return std::min(64u, 2 * nccl_graph(system).channels); }

NcclGraph nccl_nvls_graph(const NcclSystem& system, uint32_t gpus) {
  NcclGraph g;
  if (!system.switch_multicast || kNvlsEfficiency[static_cast<size_t>(system.arch)] <= 0 || gpus < 2) return g;
  const double total_gbps = system.nvlinks_per_gpu * kNvlinkGbps[static_cast<size_t>(system.arch)];
  // The search starts at the fastest speed whose channels fit the GPU's
  // links (counted n / (n - 1) times for a pattern other than a ring) and
  // keeps it while every GPU's links carry the n channels, its own twice.
  const double* speeds = system.arch == NcclArch::kHopper ? kSpeedsIntraHopper.data() : kSpeedsIntra.data();
  const size_t count = system.arch == NcclArch::kHopper ? kSpeedsIntraHopper.size() : kSpeedsIntra.size();
  const double n = gpus;
  size_t i = 0;
  while (i + 1 < count && (speeds[i] * n > total_gbps * n / (n - 1) || speeds[i] * (n + 1) > total_gbps)) ++i;
  g.channels = gpus;
  g.bw_per_channel_gbps = speeds[i];
  return g;
}

std::vector<NcclEstimate> nccl_cost_table(const NcclSystem& system, std::string_view collective, uint32_t gpus,
                                          uint64_t bytes) {
  if (gpus < 2) throw Error(fmt::format("NCCL tuning: {} GPUs (at least 2)", gpus));
  const bool all_reduce = collective == kAllReduce;
  if (!all_reduce && collective != kAllGather && collective != kReduceScatter) {
    throw Error(fmt::format("NCCL tuning: no model for '{}' (allreduce, allgather, reducescatter)", collective));
  }
  const auto arch = static_cast<size_t>(system.arch);
  const NcclGraph graph = nccl_graph(system);
  const double n = gpus;
  const double steps = all_reduce ? 2 * (n - 1) : n - 1;
  std::vector<NcclEstimate> table;
  for (int a : {kTree, kRing}) {
    // Only all-reduce has a tree.
    if (a == kTree && !all_reduce) continue;
    for (size_t p = 0; p < kProtocols.size(); ++p) {
      const Protocol protocol = kProtocols[p];
      double bus = graph.channels * graph.bw_per_channel_gbps;
      if (a == kRing && protocol == Protocol::kLL) bus = std::min(kLlMaxBwGbps[arch], bus * 0.5);
      if (a == kRing && protocol == Protocol::kLL128) {
        bus = std::min(bus * 0.92, graph.channels * kRingLl128PerChannelGbps[arch]);
      }
      if (a == kTree) bus = std::min(bus * 0.92, graph.channels * kTreePerChannelGbps[arch]);
      if (a == kTree && protocol == Protocol::kLL) bus = std::min(bus / 3.8, kLlMaxBwGbps[arch]);
      if (a == kTree && protocol == Protocol::kLL128) {
        bus = std::min(bus * 7.0 / 9.0, graph.channels * kTreeLl128PerChannelGbps[arch]);
      }
      // Bus bandwidth to algorithm bandwidth: a ring moves (steps / N) of
      // the buffer per GPU, a tree's chain each byte up and down once.
      double bw = bus * (a == kRing ? n / steps : 0.5);
      const int log_size = floor_log2(bytes >> 6);
      if (a == kTree && log_size >= 0 && log_size < 23) bw *= kTreeCorrection[p][log_size];
      NcclEstimate e;
      e.algorithm = std::string(kAlgoNames[a]);
      e.protocol = protocol;
      e.latency_us = kBaseLatencyUs[a][p] + steps * kNvlinkStepLatencyUs[a][p];
      e.bandwidth_gbps = bw;
      e.time_us = e.latency_us + static_cast<double>(bytes) / (1000.0 * bw);
      table.push_back(e);
    }
  }
  const NcclGraph nvls = nccl_nvls_graph(system, gpus);
  if (nvls.channels >= 2) {
    // Per channel: the graph's speed at NVLS's efficiency, less one
    // channel's share; all-reduce pipelines its reduce and its broadcast
    // (twice that), the others move (n - 1) / n of it. A single node's
    // inter-node bound is the graph's speed itself.
    double per_channel = nvls.bw_per_channel_gbps * kNvlsEfficiency[arch] * (nvls.channels - 1) / nvls.channels;
    per_channel *= all_reduce ? 2.0 : (n - 1) / n;
    per_channel = std::min(per_channel, nvls.bw_per_channel_gbps);
    double bw = nvls.channels * per_channel;
    // Only all-reduce converts bus to algorithm bandwidth (like a ring).
    if (all_reduce) bw *= n / steps;
    NcclEstimate e;
    e.algorithm = std::string(kAlgoNames[kNvls]);
    e.protocol = Protocol::kSimple;
    e.latency_us = kNvlsLatencyUs;
    e.bandwidth_gbps = bw;
    e.time_us = e.latency_us + static_cast<double>(bytes) / (1000.0 * bw);
    table.push_back(e);
  }
  return table;
}

NcclChoice nccl_choose(const NcclSystem& system, std::string_view collective, uint32_t gpus, uint64_t bytes,
                       std::string_view algorithm, std::optional<Protocol> protocol) {
  if (algorithm != "auto" && std::find(kAlgoNames.begin(), kAlgoNames.end(), algorithm) == kAlgoNames.end()) {
    throw Error(fmt::format("NCCL tuning: unknown algorithm '{}' (auto, nccl-ring, nccl-tree, nccl-nvls)", algorithm));
  }
  const NcclEstimate* best = nullptr;
  const auto table = nccl_cost_table(system, collective, gpus, bytes);
  for (const NcclEstimate& e : table) {
    if (algorithm != "auto" && e.algorithm != algorithm) continue;
    if (protocol && e.protocol != *protocol) continue;
    // Strictly faster: on a tie the earlier entry (tree, then LL) stays, as in NCCL.
    if (best == nullptr || e.time_us < best->time_us) best = &e;
  }
  if (best == nullptr) {
    throw Error(fmt::format("NCCL tuning: no {} variant of {} with protocol {} on {}", algorithm, collective,
                            protocol ? protocol_name(*protocol) : "auto", system.name));
  }
  NcclChoice choice;
  choice.estimate = *best;
  if (best->algorithm == kAlgoNames[kNvls]) {
    // NVLS runs its own channel count, all threads, whatever the size.
    choice.channels = kNvlsChannelsHopper;
    choice.threads = kNvlsThreads;
    return choice;
  }
  const size_t p = proto_index(best->protocol);
  const bool ring = best->algorithm == kAlgoNames[kRing];
  // Fewer channels, then fewer threads, until each thread has its share of bytes.
  uint64_t nc = nccl_max_channels(system);
  uint64_t nt = kMaxThreads[p];
  const uint64_t threshold = kThreadThreshold[p] * (ring && best->protocol == Protocol::kLL ? gpus : 1);
  while (bytes < nc * nt * threshold && nc >= 2) --nc;
  while (bytes < nc * nt * threshold && nt % 128 == 0) nt /= 2;
  // Simple adds a warp for synchronization (ring) or four (the tree's split threads).
  if (best->protocol == Protocol::kSimple) nt += ring ? kWarp : 4 * kWarp;
  choice.channels = static_cast<uint32_t>(nc);
  choice.threads = static_cast<uint32_t>(nt);
  return choice;
}

uint32_t nccl_lines_in_flight_per_warp(Protocol protocol, uint32_t cache_line_bytes) {
  if (cache_line_bytes == 0) throw Error("NCCL tuning: a cache line of 0 bytes");
  return std::max<uint32_t>(1, kWarp * kBytesInFlightPerThread[proto_index(protocol)] / cache_line_bytes);
}

}  // namespace snr::dsim::loadstore
