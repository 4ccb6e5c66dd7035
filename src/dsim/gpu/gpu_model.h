// The load-store GPU model (seed 003 §4.4): executes a loadstore::Program on
// GPUs of N compute units, issuing cache-line Wavefront Requests into a
// MemoryNetwork.
//
//  - Workgroups of every kernel of a GPU are placed round-robin on CUs that
//    have a free slot (at most `workgroups_per_cu` resident); the rest wait
//    and take the next slot a retiring workgroup frees (§4.4.1).
//  - A CU issues at most one request per cycle, from the next ready
//    wavefront in round-robin order, so a wavefront stalled on a load, a
//    semaphore or a barrier lets the others issue (§4.4.2); at most
//    `max_outstanding_per_cu` loads and polls of a CU are in flight (§5.3;
//    stores too with `stores_wait_for_ack`).
//  - Data ops (LoadOp, StoreOp, MemcpyOp and chains Load→Reduce→Store) are a
//    per-line loop split evenly over the workgroup's wavefronts; a wavefront
//    runs `unroll` lines at a time: their loads, a Waitcnt for all of them,
//    the reduce, then their stores (Figure 7). The op ends when its last
//    store is issued; stores complete on their acknowledgement.
//  - Control ops are issued by wavefront 0 only (§4.1.3): a SemaphoreAcquire
//    is one poll request answered once the value is positive; a fenced
//    SemaphoreRelease waits for the workgroup's stores to be acknowledged
//    first. Other wavefronts pass them (plans put a NopOp after).
//  - NopOp: the workgroup's wavefronts meet (a draining NopOp also waits for
//    every outstanding store); BarrierOp: the barrier's workgroups meet.
//  - An unchained ReduceOp occupies the CU's ALU for its cycles (one
//    wavefront at a time); a chained one costs `reduce_cycles_per_line` per
//    line.
//
// Flow-level mode (GpuConfig::granularity, docs/gpu-model.md): a
// wavefront issues the run of a group's lines of one range as one Access
// of k lines (gpu_model_flow.cc), costing k issue cycles and k
// outstanding-request slots; semaphore traffic stays one request each.
//
// Multicast (switch) ranges are one request to the switch where the network
// carries multicast (MemoryNetwork::carries_multicast()), else one unicast
// request per member, as are LL-packet multicast ranges.
//
// Approximations (documented in docs/gpu-model.md): port-channel (proxy) copies
// run on the CU like any copy; LL flags are tracked per byte interval and
// never cleared, so a reused packet buffer does not wait a second time.
//
// Memory: per CU and per resident workgroup state, a pool of in-flight
// requests (a freed tag is reused) and the LL flags (packet_flags.h);
// nothing is kept of a request once it has completed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dsim/core/event_loop.h"
#include "dsim/gpu/gpu_config.h"
#include "dsim/gpu/memory_network.h"
#include "dsim/gpu/packet_flags.h"
#include "dsim/loadstore/program.h"

namespace snr::dsim::gpu {

struct GpuStats {
  uint64_t requests = 0;
  uint64_t control_bytes = 0, data_bytes = 0;   // wire bytes of requests and responses by class
  uint64_t local_bytes = 0, remote_bytes = 0;   // wire bytes of accesses to own / other GPUs' memory
  uint64_t loaded_bytes = 0, stored_bytes = 0;  // payload the CUs moved
  TimePs end_ps = 0;                            // last workgroup of this GPU retired
};

struct RunStats {
  TimePs end_ps = 0;
  uint64_t requests = 0;
  uint64_t max_in_flight = 0;
  std::vector<GpuStats> gpus;
  std::vector<TimePs> workgroup_start_ps, workgroup_end_ps;  // per Program workgroup
  std::vector<uint32_t> workgroup_cu;                        // where each ran
};

// A program's own copy-loop settings where they differ from the GPU's
// (NCCL's lines in flight per protocol), for run-time launches.
struct KernelTuning {
  uint32_t unroll = 0;  // 0: the GpuConfig's
  uint32_t reduce_cycles_per_line = 0;
  bool reduce_cycles_given = false;  // reduce_cycles_per_line replaces the config's (0 is a value)
};

class GpuModel final : public EventHandler, public AccessSink {
 public:
  // `program`, `loop` and `network` must outlive the model. Registers itself
  // on `loop` and attaches to `network`. Throws snr::Error when the program
  // does not fit the config (a CU count the network has no endpoints for).
  GpuModel(const loadstore::Program& program, const GpuConfig& config, EventLoop& loop, MemoryNetwork& network);

  // Dispatches every kernel at the loop's current time.
  void start();

  // Run-time launches (`snr sim`'s load-store collectives,
  // src/dsim/system/load_store): a model of `gpus` GPUs without kernels of
  // its own; programs are added while it runs and each kernel starts when
  // launched. `loop` and `network` must outlive the model.
  GpuModel(uint32_t gpus, const GpuConfig& config, EventLoop& loop, MemoryNetwork& network);
  using KernelTuning = gpu::KernelTuning;
  // Adds `fragment`: its GPU g is the model's gpu_of[g]; its semaphores,
  // barriers and buffers are its own (buffers get addresses no earlier
  // program of the run used, so LL flags never carry over). Returns the
  // model's index of the fragment's first kernel (kernel k: that + k).
  // When every kernel added so far has finished, their state is dropped
  // first, so memory is bounded by the programs in flight. Throws
  // snr::Error for a model built from a Program or a GPU out of range.
  uint32_t add_program(const loadstore::Program& fragment, const std::vector<uint32_t>& gpu_of,
                       KernelTuning tuning = {});
  // Starts kernel `kernel` (from add_program) at the loop's current time;
  // `done` runs when its last workgroup retires, inside the model's event
  // handling, so it must not add or launch kernels (schedule that instead).
  using KernelDone = std::function<void(uint32_t kernel)>;
  void launch(uint32_t kernel, KernelDone done);
  // Kernels added and not yet finished (launched or not).
  [[nodiscard]] uint64_t kernels_open() const { return kernels_open_; }
  // After loop.run(): throws snr::Error describing what every unfinished
  // workgroup waits for (a deadlock), else returns the statistics.
  const RunStats& finish();
  // What every unfinished workgroup waits for, and how many were never
  // placed, at the loop's now; empty when every kernel added has finished.
  [[nodiscard]] std::string stall_description() const;

  void handle(const Event& event) override;
  bool arrived(uint32_t tag) override;
  void completed(uint32_t tag) override;

 private:
  enum class Phase : uint8_t {
    kStart,
    kLoads,
    kWaitLoads,
    kReduce,
    kStores,
    kAcquire,
    kRelease,
    kWaitSem,
    kWaitFence,
    kNop,
    kBarrier,
    kAlu,
    kDone,
  };
  enum class ReqKind : uint8_t { kLoad, kStore, kAcquire, kRelease };
  struct LoopEntry {
    uint32_t range = 0;  // into program.ranges
    // Target GPU: a multicast member for multicast ranges the GPU model
    // expands, kSwitchTarget for one the network multicasts.
    uint32_t gpu = 0;
  };
  static constexpr uint32_t kSwitchTarget = UINT32_MAX;
  // The per-line loop of a chain starting at one op.
  struct Loop {
    uint32_t first_entry = 0;  // into loop_entries_
    uint16_t loads = 0, stores = 0;
    uint32_t ops = 1;  // ops the chain spans
    bool reduce = false;
    uint64_t line_payload_bytes = 0;
    uint64_t lines = 0;
    uint64_t bytes = 0;
  };
  struct Wave {
    uint32_t op = 0;
    uint8_t phase = 0;
    uint16_t index = 0;
    uint32_t cursor = 0, cursor_end = 0;
    uint32_t loads_out = 0;
    uint64_t next_line = 0, end_line = 0, group_first = 0;
    uint32_t group_lines = 0;
  };
  struct Slot {
    uint32_t workgroup = loadstore::kNone;
    uint32_t cu = 0;  // global CU index
    uint32_t outstanding = 0, stores_out = 0;
    uint32_t waves_done = 0, waves_waiting = 0;
    bool at_barrier = false;  // counted in its barrier's arrivals
    uint32_t unroll = 0, reduce_cycles_per_line = 0;  // the GpuConfig's, or its kernel's tuning
    std::vector<Wave> waves;
    // A bit per wave in an issuing phase (loads, stores, acquire, release):
    // a CU tick looks only at those instead of every resident wave.
    std::vector<uint64_t> issuing;
  };
  struct Cu {
    std::vector<uint32_t> slots;  // resident slots
    uint32_t outstanding = 0;
    uint32_t rr = 0;
    bool tick_pending = false;
    TimePs last_tick_ps = 0;
    bool ticked = false;
    uint32_t issue_cycles = 1;  // of the last tick's issue (a flow's lines): the next tick waits that long
    TimePs alu_free_ps = 0;
  };
  struct Request {
    uint32_t slot = 0;
    uint16_t wave = 0;
    ReqKind kind = ReqKind::kLoad;
    uint8_t space = 0;
    uint32_t gpu = 0;   // target memory's GPU
    uint32_t sync = 0;  // semaphore index
    bool packet = false;
    bool counted = true;          // holds one of the CU's outstanding-request slots (per line)
    uint16_t lines = 1;           // cache lines (more than one: a flow)
    uint64_t begin = 0, end = 0;  // payload byte interval (LL flags)
    uint32_t next_free = 0;
  };
  struct GpuState {
    std::vector<uint32_t> pending;  // workgroups not yet placed, in dispatch order
    size_t next_pending = 0;
    uint32_t rr_cu = 0;
    uint32_t unfinished = 0;
  };

  // The two public constructors' common part: `owned` (run-time
  // launches) or `borrowed` is the program.
  GpuModel(std::unique_ptr<loadstore::Program> owned, const loadstore::Program* borrowed, const GpuConfig& config,
           EventLoop& loop, MemoryNetwork& network);
  void drop_finished_programs();
  void kernel_retired(uint32_t workgroup);
  const Loop& loop_of(uint32_t op);
  void place(uint32_t gpu);
  void begin_op(uint32_t slot, uint16_t wave);
  void start_group(uint32_t slot, Wave& w);
  void end_loop(uint32_t slot, uint16_t wave);
  void advance(uint32_t slot, uint16_t wave);
  void wave_done(uint32_t slot, uint16_t wave);
  void maybe_release_nop(uint32_t slot);
  static bool issuing_phase(Phase phase) {
    return phase == Phase::kLoads || phase == Phase::kStores || phase == Phase::kAcquire || phase == Phase::kRelease;
  }
  void set_phase(Slot& slot, Wave& w, Phase phase) {
    w.phase = static_cast<uint8_t>(phase);
    uint64_t& word = slot.issuing[w.index >> 6];
    const uint64_t bit = uint64_t{1} << (w.index & 63);
    word = issuing_phase(phase) ? word | bit : word & ~bit;
  }
  void kick(uint32_t cu);
  void tick(uint32_t cu);
  // Issues from the first issuable wave of `slot` among [from, to) (waves
  // at CU positions base + index); true when one issued.
  bool issue_first(uint32_t cu, uint32_t slot, uint32_t from, uint32_t to, uint32_t base, uint32_t total, bool full);
  bool issuable(const Slot& s, const Wave& w) const;
  void issue(uint32_t slot, uint16_t wave);
  // Flow level (gpu_model_flow.cc): set up, and issue the next run of the
  // wavefront's group.
  void use_flows();
  void issue_flow(uint32_t slot, uint16_t wave);
  void after_stores_acked(uint32_t slot);
  void retire(uint32_t slot);
  uint32_t new_request();
  // `dst_gpu` kSwitchTarget: a multicast access (`op`) to group `group`.
  void send(uint32_t tag, uint32_t src_gpu, uint32_t src_cu, uint32_t dst_gpu, uint64_t line, uint32_t req_bytes,
            uint32_t resp_bytes, MessageClass req_class, MessageClass resp_class, Multicast op = Multicast::kNone,
            uint32_t group = 0);
  std::string describe_wait(uint32_t slot) const;

  // Run-time launches: the program added kernels go into (program_ is it).
  std::unique_ptr<loadstore::Program> owned_;
  const loadstore::Program& program_;
  GpuConfig config_;
  EventLoop& loop_;
  MemoryNetwork& network_;
  HandlerId handler_ = 0;
  uint64_t cycle_ps_ = 1000;
  bool flows_ = false;           // GpuConfig::granularity is flow
  uint32_t max_flow_lines_ = 1;  // what one message may carry (the network's 16-bit message size)

  // Address spaces apart in the line index, so input, output, scratch and
  // semaphores of one GPU interleave over its memory channels independently.
  static constexpr uint64_t kSpaceStrideBytes = uint64_t{1} << 40;
  static constexpr uint64_t kSemaphoreSpace = 3;
  // The most lines one flow carries (beyond a group of this many the
  // events saved no longer matter).
  static constexpr uint32_t kMaxFlowLines = 256;

  std::vector<Loop> loops_;  // by op (lazily built)
  std::vector<uint8_t> loop_built_;
  std::vector<LoopEntry> loop_entries_;
  std::vector<Cu> cus_;  // gpu * compute_units + cu
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<GpuState> gpus_;
  std::vector<Request> requests_;
  uint32_t free_request_ = UINT32_MAX;
  uint64_t in_flight_ = 0;
  std::vector<uint32_t> semaphore_values_;
  std::vector<std::vector<uint32_t>> semaphore_waiters_;  // parked acquire tags
  std::vector<uint32_t> barrier_arrived_;
  std::vector<std::vector<uint32_t>> barrier_waiting_;  // slots
  PacketFlags packet_flags_;            // areas gpu * 3 + space
  std::vector<uint32_t> packet_answers_;  // scratch
  RunStats stats_;
  // Run-time launches only (empty otherwise): per workgroup its kernel and
  // its copy-loop settings; per kernel what is left of it.
  struct KernelRun {
    uint32_t workgroups_left = 0;
    bool launched = false;
    KernelDone done;
  };
  std::vector<uint32_t> workgroup_kernel_;
  std::vector<KernelTuning> workgroup_tuning_;
  std::vector<KernelRun> kernel_runs_;
  uint64_t kernels_open_ = 0;
  uint64_t address_base_bytes_ = 0;  // where the next added program's buffers start
};

}  // namespace snr::dsim::gpu
