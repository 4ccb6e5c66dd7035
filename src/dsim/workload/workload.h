// The workload layer: each NPU's Chakra graph, issued as dependencies
// complete. As in ASTRA-sim, an NPU runs at most one CPU op, one GPU compute
// op and one GPU communication op (collective or send) at a time; ready
// nodes wait in node-id order (ASTRA-sim's), whatever the file order. A
// receive is posted as soon as it is ready and holds no lane, so any number
// may wait for their messages beside the one communication op. METADATA
// nodes complete immediately, and so do MEM_LOAD / MEM_STORE nodes without
// a remote memory; with one they are requests to it on the communication
// lane (dsim/remote_memory). A GPU compute node takes its duration, or runs
// on the system's compute device when it offers one (compute_device.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/config/aux_config.h"
#include "dsim/config/system_config.h"
#include "dsim/core/event_loop.h"
#include "dsim/remote_memory/remote_memory.h"
#include "dsim/system/system_layer.h"
#include "dsim/workload/memory_tracker.h"
#include "dsim/workload/workload_options.h"

namespace snr::dsim {

enum class NodeClass : uint8_t { kCpu, kGpuCompute, kGpuComm, kInstant };
enum class NodeAction : uint8_t { kCompute, kCollective, kSend, kRecv, kRemoteMemory, kInstant };

struct WorkNode {
  uint64_t chakra_id = 0;
  std::string name;
  NodeClass node_class = NodeClass::kInstant;
  NodeAction action = NodeAction::kInstant;
  uint64_t duration_ns = 0;
  CollectiveKind collective = CollectiveKind::kAllReduce;
  uint64_t comm_bytes = 0;  // collectives and messages; a remote-memory request's tensor_size
  int64_t peer = -1;  // send/recv: the other NPU; rooted collectives: the root (-1: default)
  int64_t tag = 0;
  int32_t group = -1;  // index into the communicator groups, -1 for all NPUs
  std::vector<bool> involved_dimensions;
  // replay-only: the node takes duration_ns on its lane whatever its action
  // (its comm attributes are not read).
  bool replayed = false;
  uint32_t parents = 0;
  std::vector<uint32_t> children;
};

struct RankGraph {
  std::vector<WorkNode> nodes;
  uint64_t skipped_records = 0;  // unreadable records the reader skipped
  uint64_t dangling_dependencies_dropped = 0;  // with DanglingDependencies::kIgnore
  uint64_t barriers_run_as_all_reduce = 0;      // BARRIER collectives (see load_rank_graph)
  RankTensors tensors;  // the nodes' tensors, read only with track-local-mem
};

// Reads `<prefix>.<rank>.et` into a graph. Compute times come from
// duration_micros, or from the roofline when enabled and num_ops is set
// (at most kMaxNodeNs); sizes are at most kMaxMessageBytes. A dependency on
// an id not in the trace is an error, or dropped and counted with kIgnore.
// With track-local-mem, the nodes' "inputs"/"outputs" tensor lists too.
// A BARRIER collective runs as an all-reduce of its comm_size (at least
// one byte), as NCCL runs a process group's barrier; ASTRA-sim stops at it.
// MEM_LOAD / MEM_STORE nodes are requests of their tensor_size to `memory`
// on the communication lane (CPU ops: the CPU's), as in ASTRA-sim; with
// NO_MEMORY_EXPANSION they take no time and no lane (ASTRA-sim stops).
RankGraph load_rank_graph(const std::filesystem::path& prefix, uint32_t rank, const SystemConfig& system,
                          const CommGroups& groups, uint64_t npus_count,
                          DanglingDependencies dangling = DanglingDependencies::kError,
                          RemoteMemoryType memory = RemoteMemoryType::kNoExpansion);

struct TimelineSlice {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  uint32_t node = 0;
  NodeClass lane = NodeClass::kGpuCompute;
};

// What kind of work a node is, for the busy times below (ASTRA-sim's
// statistics operator types; instant nodes such as METADATA are none).
enum class NodeActivity : uint8_t { kCpu, kGpu, kCommunication, kRemoteMemory, kCount };

struct NpuResult {
  TimeNs finish_ns = 0;
  TimeNs compute_ns = 0;  // GPU compute nodes' durations (one at a time: also their busy time)
  // Per NodeActivity, the time at least one node of it was in flight (issue
  // to finish; overlapping nodes counted once), as ASTRA-sim's "CPU / GPU /
  // Comm / Remote mem time"; and the time GPU compute and communication were
  // both in flight.
  TimeNs busy_ns[static_cast<int>(NodeActivity::kCount)] = {};
  TimeNs overlap_ns = 0;
  uint8_t activities_seen = 0;  // bit per NodeActivity that had a node
  uint64_t nodes_completed = 0;
  bool finished = false;
  [[nodiscard]] TimeNs busy(NodeActivity a) const { return busy_ns[static_cast<int>(a)]; }
  [[nodiscard]] bool saw(NodeActivity a) const { return (activities_seen >> static_cast<int>(a) & 1) != 0; }
};

class Workload final : public SystemClient, public RemoteMemoryClient, public EventHandler {
 public:
  // Registers the workload's handler on `loop`. `track_memory`: follow the
  // graphs' tensors (RankGraph::tensors) through a MemoryTracker.
  Workload(std::vector<RankGraph> graphs, const CommGroups& groups, EventLoop& loop, bool record_timeline,
           bool track_memory = false);
  // GPU compute nodes run on the system's compute device when it has one.
  void attach(SystemLayer& system) {
    system_ = &system;
    compute_device_ = system.compute_device();
  }
  // Where MEM_LOAD / MEM_STORE nodes go (graphs loaded with that memory).
  void attach(RemoteMemory& memory) { remote_memory_ = &memory; }

  void start();
  void handle(const Event& event) override;
  void communication_finished(NpuId npu, uint64_t node_index) override;
  void remote_memory_done(NpuId npu, uint32_t node_index) override;

  // The workload's one event: a compute node's time is over.
  struct ComputeDone {
    static constexpr uint8_t kKind = 1;
    NpuId npu;
    uint32_t node;
  };

  [[nodiscard]] const std::vector<NpuResult>& results() const { return results_; }
  [[nodiscard]] const std::vector<RankGraph>& graphs() const { return graphs_; }
  // The graphs, moved out: for after the run (results() and
  // take_memory_profiles() do not need them; nothing else may be called).
  [[nodiscard]] std::vector<RankGraph> take_graphs() { return std::move(graphs_); }
  [[nodiscard]] const std::vector<std::vector<TimelineSlice>>& timeline() const { return timeline_; }
  // Per NPU, moved out after the run; empty unless constructed with
  // track_memory.
  [[nodiscard]] std::vector<MemoryProfile> take_memory_profiles();
  // Throws snr::Error naming what the first stalled NPUs wait in when any
  // NPU did not finish; `collective_hint` is added when one waits in a
  // collective (the system layer's reasons such a wait can last forever).
  void check_all_finished(std::string_view collective_hint = {}) const;

 private:
  struct NpuState {
    std::vector<uint32_t> ready;  // min-heap of node indices
    std::vector<uint32_t> parents_left;  // kFinished once the node is done
    std::vector<TimeNs> started_ns;
    uint32_t in_flight[3] = {0, 0, 0};
    // Per NodeActivity the nodes in flight and since when the count is
    // above zero; since when GPU compute and communication both are.
    uint32_t active[static_cast<int>(NodeActivity::kCount)] = {};
    TimeNs active_since_ns[static_cast<int>(NodeActivity::kCount)] = {};
    TimeNs overlap_since_ns = 0;
    uint64_t remaining = 0;
  };
  static constexpr uint32_t kFinished = UINT32_MAX;
  // The nodes a stalled NPU has issued and not finished, collectives and
  // sends before receives; a few of them named in one line.
  [[nodiscard]] std::vector<uint32_t> in_flight_nodes(NpuId npu) const;
  [[nodiscard]] std::string describe_in_flight(NpuId npu, const std::vector<uint32_t>& in_flight) const;
  void issue_ready(NpuId npu);
  void issue(NpuId npu, uint32_t node);
  void complete(NpuId npu, uint32_t node);
  // The busy-time bookkeeping of a node's start and end.
  void activity_started(NpuId npu, const WorkNode& node);
  void activity_ended(NpuId npu, const WorkNode& node);

  std::vector<RankGraph> graphs_;
  std::vector<std::vector<uint32_t>> group_members_;
  EventLoop& loop_;
  HandlerId handler_ = 0;
  SystemLayer* system_ = nullptr;
  RemoteMemory* remote_memory_ = nullptr;
  ComputeDevice* compute_device_ = nullptr;
  std::vector<NpuState> state_;
  std::vector<NpuResult> results_;
  bool record_timeline_;
  std::vector<std::vector<TimelineSlice>> timeline_;
  std::unique_ptr<MemoryTracker> memory_;
};

}  // namespace snr::dsim
