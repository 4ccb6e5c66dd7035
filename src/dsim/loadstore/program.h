// The load-store workload representation (seed 003 §4.1): kernels of
// workgroups, workgroups of wavefronts running a sequence of GPU operations,
// each operation a sequence of primitive GPU instructions (Load, Store,
// SemaphoreAcquire, SemaphoreRelease, Reduce, Waitcnt) over local or remote
// memory.
//
// Layout: one Program holds every GPU's kernels in flat arrays indexed by
// 32-bit ids (kernels → workgroups → ops → ranges), so thousands of GPUs with
// many operations stay a handful of contiguous allocations. Hot data (GpuOp,
// 24 bytes; MemRange, 16 bytes) is separate from cold diagnostics (OpOrigin).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace snr::dsim::loadstore {

inline constexpr uint32_t kNone = UINT32_MAX;

// Memory spaces of a GPU. A collective's buffers are the three MSCCL++ ones.
enum class Space : uint8_t { kInput, kOutput, kScratch };

// A byte range's start. `gpu` is the GPU holding the memory, or, with
// kMulticast, an index into Program::multicast_groups (NVLS-style switch
// address: a load reduces over the members in the switch, a store writes to
// every member).
struct MemRange {
  enum Flags : uint8_t {
    kMulticast = 1 << 0,
    // LL packet format: every payload word travels with a flag word in the
    // same write (2x the wire bytes of the payload); a load of a packet range
    // spins until the flags show the data arrived, so no semaphore is needed.
    kPacket = 1 << 1,
    // LL128 packet format: a flag word in every 128-byte line (120 payload
    // bytes per 128 on the wire); loads spin on the flags like LL.
    kPacket128 = 1 << 2,
  };
  uint32_t gpu = 0;
  Space space = Space::kInput;
  uint8_t flags = 0;
  uint16_t reserved = 0;
  uint64_t offset_bytes = 0;  // payload offset within the space

  bool multicast() const { return (flags & kMulticast) != 0; }
  bool packet() const { return (flags & (kPacket | kPacket128)) != 0; }
  // Bytes on the wire for `payload_bytes` of this range.
  uint64_t wire_bytes(uint64_t payload_bytes) const {
    if (flags & kPacket) return 2 * payload_bytes;
    if (flags & kPacket128) return (payload_bytes + 119) / 120 * 128;
    return payload_bytes;
  }
};
static_assert(sizeof(MemRange) == 16);

// GPU operations (§4.1.2). How each expands into instructions:
//   kLoad        per cache line: Load from every range (all the same length)
//   kStore       per cache line: Store of the loaded (or reduced) line to every range
//   kMemcpy      per cache line: Load range[0] → Waitcnt → Store range[1]
//   kReduce      Reduce: combines the lines the preceding kLoad fetched (chained) or,
//                unchained, occupies the CU for `reduce_cycles` (compute)
//   kSemaphoreAcquire / kSemaphoreRelease
//                one cache-line Load (poll until the value is positive, then take one)
//                / Store (add one) by wavefront 0 on Program::semaphores[sync]
//   kNop         all wavefronts of the workgroup meet (__syncthreads)
//   kBarrier     the workgroups of Program::barriers[sync] meet
enum class OpKind : uint8_t {
  kLoad, kStore, kMemcpy, kReduce, kSemaphoreAcquire, kSemaphoreRelease, kNop, kBarrier,
};

struct GpuOp {
  enum Flags : uint8_t {
    // This op runs in the same per-cache-line loop as the op before it:
    // Load(ranges) → Waitcnt → [Reduce] → Store(ranges) for line 0, then line
    // 1, ... (the loop a GPU model unrolls, §4.4.4). Loaded lines live only
    // in registers between the ops of one chain.
    kChained = 1 << 0,
    // Semaphore release without a memory fence (MSCCL++ relaxed signal); a
    // fenced release first waits until the workgroup's stores completed.
    kRelaxed = 1 << 1,
    // kNop that also waits for every outstanding store of the workgroup,
    // including transfers a port channel's proxy (DMA engine) performs.
    kDrain = 1 << 2,
    // kMemcpy performed by a DMA engine on the workgroup's behalf (MSCCL++
    // port channel) rather than by the CU's own loads and stores.
    kViaProxy = 1 << 3,
    // kLoad through a multicast range that the switch reduces (multimem.ld_reduce).
    kSwitchReduce = 1 << 4,
  };
  OpKind kind = OpKind::kNop;
  uint8_t flags = 0;
  uint16_t range_count = 0;
  uint32_t first_range = 0;   // into Program::ranges
  uint64_t bytes = 0;         // payload bytes per range
  uint32_t sync = kNone;      // semaphore or barrier index
  uint32_t reduce_cycles = 0; // unchained kReduce only; 0 for chained ones (the GPU model prices them)

  bool chained() const { return (flags & kChained) != 0; }
};
static_assert(sizeof(GpuOp) == 24);

struct Workgroup {
  uint32_t gpu = 0;
  uint32_t first_op = 0, op_count = 0;
  uint16_t wavefronts = 1;
  uint16_t reserved = 0;
};

struct Kernel {
  uint32_t gpu = 0;
  uint32_t first_workgroup = 0, workgroup_count = 0;
  uint32_t name = 0;  // into Program::names
};

// A counting semaphore in GPU memory. Releases add one; an acquire waits
// until the value is positive and takes one.
struct Semaphore {
  uint32_t gpu = 0;            // where the value lives (acquires are local to it)
  uint32_t initial_value = 0;
  uint32_t name = 0;           // into Program::names, e.g. "gpu 1 memory channel 0 (from gpu 0)"
};

// Inter-workgroup barrier on one GPU: `participants` workgroups meet, then
// it resets for its next use.
struct Barrier {
  uint32_t gpu = 0;
  uint32_t participants = 0;
  uint32_t name = 0;
};

// Where an op came from, for messages: the source plan's threadblock and op
// index (and pipeline step/iteration), and the source op's name.
struct OpOrigin {
  uint32_t threadblock = 0;
  uint32_t op_index = 0;
  uint32_t inner_index = kNone;  // op inside a pipeline
  uint32_t iteration = 0;        // pipeline iteration
  uint32_t name = 0;             // into Program::names
};

struct GpuBuffers {
  uint64_t input_bytes = 0, output_bytes = 0, scratch_bytes = 0;
  uint64_t chunk_bytes = 0;  // the plan's chunk size on this GPU (diagnostics)
  uint64_t bytes(Space space) const {
    return space == Space::kInput ? input_bytes : space == Space::kOutput ? output_bytes : scratch_bytes;
  }
};

struct Program {
  std::vector<Kernel> kernels;
  std::vector<Workgroup> workgroups;
  std::vector<GpuOp> ops;
  std::vector<OpOrigin> origins;  // parallel to ops
  std::vector<MemRange> ranges;
  std::vector<Semaphore> semaphores;
  std::vector<Barrier> barriers;
  std::vector<uint32_t> multicast_offsets{0};  // group g's members: multicast_members[offsets[g], offsets[g+1])
  std::vector<uint32_t> multicast_members;
  std::vector<GpuBuffers> gpus;
  std::vector<std::string> names;
  std::string origin_unit = "op";  // what the source format calls one instruction ("op", "step")

  uint32_t gpu_count() const { return static_cast<uint32_t>(gpus.size()); }
  uint32_t add_name(std::string name);
  uint32_t add_multicast_group(const std::vector<uint32_t>& members);
  // Appends `op` reading or writing `ranges` (sets its first_range and
  // range_count) and where it came from; returns the op's index.
  uint32_t add_op(GpuOp op, const std::vector<MemRange>& ranges, const OpOrigin& origin);
  std::vector<uint32_t> multicast_group(uint32_t group) const {
    return {multicast_members.begin() + multicast_offsets[group], multicast_members.begin() + multicast_offsets[group + 1]};
  }
  const MemRange* ranges_of(const GpuOp& op) const { return ranges.data() + op.first_range; }
  // "gpu 0 threadblock 3 op 5 ('rres')" (plus pipeline step and iteration).
  std::string where(uint32_t op_index) const;
};

std::string_view to_string(OpKind kind);
std::string_view to_string(Space space);

// Wavefronts of a workgroup of `threads` (a last, partly filled one
// included). More than a Workgroup holds (65535), or a zero count, is an
// error naming both numbers.
uint16_t wavefronts_per_workgroup(uint32_t threads, uint32_t wavefront_threads);

// Per-GPU traffic the program generates, in payload bytes and wire bytes
// (LL packets double the wire bytes), and op counts by kind.
struct GpuTraffic {
  uint64_t local_load_bytes = 0, remote_load_bytes = 0, multicast_load_bytes = 0;
  uint64_t local_store_bytes = 0, remote_store_bytes = 0, multicast_store_bytes = 0;
  uint64_t proxy_bytes = 0;              // moved by port-channel DMA
  uint64_t served_load_bytes = 0;        // this GPU's memory that other GPUs' loads read
  uint64_t wire_bytes_remote = 0;        // bytes leaving the GPU (stores out, multicast, proxy) incl. packet flags
  uint64_t semaphore_requests = 0;       // control: one cache line each
  uint64_t op_counts[8] = {};            // by OpKind
};

std::vector<GpuTraffic> traffic(const Program& program);

// The cache-line requests running every op of `program` issues: a request
// per range and line of a load, store or copy, one per semaphore op, where
// a line carries a whole cache line of payload unless a range of its op's
// chain holds LL packets (half a line) or LL128 lines (15/16). It is what a
// request-level run simulates one by one (the GPU model's `requests`;
// multicast ranges count once), so it sizes a run before it starts.
uint64_t line_requests(const Program& program, uint32_t cache_line_bytes);

// Deterministic text summary: per GPU, op counts and bytes (golden files, CLI).
std::string summarize(const Program& program);

}  // namespace snr::dsim::loadstore
