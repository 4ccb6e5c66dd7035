// NCCL's own choice of algorithm, protocol, channels and threads for a
// collective (`--algorithm auto --protocol auto` on a DGX system), from the
// facts of NCCL's tuning model (src/graph/tuning.cc, search.cc, enqueue.cc
// of NVIDIA/nccl): each (algorithm, protocol) gets a time
//
//   t = base latency + steps x hardware latency per step + bytes / bandwidth
//
// with the bandwidth derived from the ring/tree graph NCCL's topology search
// finds (channels x per-channel bandwidth) and per-protocol caps; the
// fastest wins. Channels are then cut back for small sizes (a channel's
// threads need enough bytes each) and threads halved likewise.
//
// Only what runs inside one NVSwitch node is modelled: ring, tree and NVLS
// (NVSwitch multimem reduction, Hopper, Simple only), the LL, LL128 and
// Simple protocols.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/loadstore/protocols.h"

namespace snr::dsim::loadstore {

// The GPU generations NCCL's constants are indexed by.
enum class NcclArch : uint8_t { kVolta, kAmpere, kHopper };

// What NCCL's topology search sees of a single-node system: every GPU has
// `nvlinks_per_gpu` NVLinks to NVSwitches, which multicast and reduce
// (NVLS) where `switch_multicast`.
struct NcclSystem {
  std::string name;
  NcclArch arch = NcclArch::kAmpere;
  uint32_t nvlinks_per_gpu = 0;
  bool switch_multicast = false;
};

// dgx-a100 (Ampere, 12 NVLink3), dgx-h100 (Hopper, 18 NVLink4); nullptr for
// another name (such a system has no NCCL tuning: `auto` keeps its own rule).
const NcclSystem* find_nccl_system(std::string_view system);
std::vector<std::string> nccl_system_names();

// The ring (and tree) graph of NCCL's search on an NVSwitch node: the
// channels it found and each one's bandwidth (GB/s).
struct NcclGraph {
  uint32_t channels = 0;
  double bw_per_channel_gbps = 0;
};
NcclGraph nccl_graph(const NcclSystem& system);
// Channels a collective kernel may use: twice the graph's (NCCL duplicates
// them when it connects the rings).
uint32_t nccl_max_channels(const NcclSystem& system);
// The NVLS graph of `gpus` GPUs: one channel per GPU (each GPU the head of
// one), at the fastest speed whose traffic fits every GPU's NVLinks (a
// head's channel crosses its links twice); channels 0 where the system
// has no NVLS.
NcclGraph nccl_nvls_graph(const NcclSystem& system, uint32_t gpus);

// One entry of NCCL's cost table.
struct NcclEstimate {
  std::string algorithm;  // "nccl-ring", "nccl-tree" or "nccl-nvls"
  Protocol protocol = Protocol::kSimple;
  double latency_us = 0;
  double bandwidth_gbps = 0;  // algorithm bandwidth, after NCCL's corrections
  double time_us = 0;         // latency + bytes / bandwidth
};
// Every (algorithm, protocol) NCCL considers for the collective at `bytes`
// (the larger of a GPU's input and output, as NCCL counts them).
std::vector<NcclEstimate> nccl_cost_table(const NcclSystem& system, std::string_view collective, uint32_t gpus,
                                          uint64_t bytes);

struct NcclChoice {
  NcclEstimate estimate;  // the chosen entry
  uint32_t channels = 0;  // thread blocks (one ring or chain each)
  uint32_t threads = 0;   // per block, including Simple's extra synchronization warps
};
// NCCL's choice. `algorithm` is "auto", "nccl-ring", "nccl-tree" or "nccl-nvls" and
// `protocol` fixes the protocol when given; the fastest remaining entry
// wins. Throws snr::Error when nothing is left (e.g. tree for all-gather).
NcclChoice nccl_choose(const NcclSystem& system, std::string_view collective, uint32_t gpus, uint64_t bytes,
                       std::string_view algorithm = "auto", std::optional<Protocol> protocol = std::nullopt);

// Cache lines a warp of NCCL's kernels keeps in flight in a copy or reduce
// loop (the GPU model's `unroll`): LL reads one 16-byte FIFO line per
// thread per trip (512 bytes a warp), LL128 keeps 8 words of 8 bytes per
// thread in registers (2 KiB), Simple unrolls 8 loads of 16 bytes per
// thread on sm80 and newer (4 KiB).
uint32_t nccl_lines_in_flight_per_warp(Protocol protocol, uint32_t cache_line_bytes);

// Fitted on DGX A100 (docs/nccl-fidelity.md): SM cycles an LL or LL128
// receiver spends per received cache line to check its flags and unpack it
// (the GPU model's reduce_cycles_per_line for those protocols). It caps a
// channel at one line per this many cycles, which is why both protocols
// stay below Simple's bandwidth on the same links.
inline constexpr uint32_t kNcclPacketLineCycles = 38;

// Fitted on DGX A100 (docs/nccl-fidelity.md): time from the profiler's start
// of an NCCL kernel to its first transfer. It covers the kernel's prologue
// and the wait for the last peer's kernel to start, and becomes every
// workgroup's prologue (GeneratedPlanOptions::prologue_cycles at the GPU's
// clock).
inline constexpr double kNcclKernelStartNs = 10000;

}  // namespace snr::dsim::loadstore
