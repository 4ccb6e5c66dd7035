// End-to-end time of a compute graph by event-driven simulation (seed 004
// §6.5): a resource-constrained critical path over the original graph, where
// each kernel runs on one pipeline stage (a hardware node) and a stage runs
// at most k kernels at once. Data- and kernel-parallel replicas are
// homogeneous, so one replica's graph is all that is simulated.
//
// Semantics (docs/pathfind-schedule.md):
// - a kernel is ready once every dependency has finished; a dependency that
//   ran on another stage adds the consumer's `transfer_in_s` (a point-to-point
//   copy on a link of its own: it occupies no compute slot and transfers do
//   not contend with each other);
// - a stage never idles while one of its kernels is ready and a slot is free;
//   among the ready kernels of a stage the lowest index (program order) goes
//   first, and a started kernel runs to completion — so the schedule is a
//   pure function of the graph;
// - dependencies point to earlier kernels only, which makes the graph acyclic
//   by construction and the index order a topological order.
//
// Cost: O((V + E) log V) time; all storage is sized once from the graph.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace snr::pathfind {

inline constexpr uint32_t kNoKernel = std::numeric_limits<uint32_t>::max();

// The kernels of one model replica, in program order. Names and dependency
// lists live in two flat buffers so that a graph of millions of kernels costs
// a handful of allocations. `add` only refuses more than 2^32 - 2 kernels;
// `schedule_events` validates the whole graph and names the first bad
// kernel and field.
class ScheduleGraph {
 public:
  ScheduleGraph() = default;
  ScheduleGraph(uint32_t stages, uint32_t kernels_per_stage) : stages_(stages), kernels_per_stage_(kernels_per_stage) {}

  void reserve(size_t kernels, size_t deps, size_t name_chars = 0);

  // Appends a kernel and returns its index.
  uint32_t add(std::string_view name, uint32_t stage, double duration_s, std::span<const uint32_t> deps,
               double transfer_in_s = 0);
  uint32_t add(std::string_view name, uint32_t stage, double duration_s, std::initializer_list<uint32_t> deps,
               double transfer_in_s = 0) {
    return add(name, stage, duration_s, std::span<const uint32_t>(deps.begin(), deps.size()), transfer_in_s);
  }

  [[nodiscard]] uint32_t stages() const { return stages_; }
  [[nodiscard]] uint32_t kernels_per_stage() const { return kernels_per_stage_; }
  [[nodiscard]] size_t size() const { return stage_.size(); }
  [[nodiscard]] size_t dependency_count() const { return deps_.size(); }
  [[nodiscard]] std::string_view name(uint32_t i) const;
  [[nodiscard]] uint32_t stage(uint32_t i) const { return stage_[i]; }
  [[nodiscard]] double duration_s(uint32_t i) const { return duration_s_[i]; }
  [[nodiscard]] double transfer_in_s(uint32_t i) const { return transfer_in_s_[i]; }
  [[nodiscard]] std::span<const uint32_t> deps(uint32_t i) const;

  // Throws snr::Error naming the first bad field: k = 0, no stages, a stage
  // out of range, a negative or non-finite duration or transfer, a dependency
  // that is not an earlier kernel.
  void validate() const;

 private:
  uint32_t stages_ = 1;
  uint32_t kernels_per_stage_ = 1;
  std::vector<uint32_t> stage_;
  std::vector<double> duration_s_;
  std::vector<double> transfer_in_s_;
  std::vector<uint64_t> deps_end_;  // kernel i's deps are deps_[deps_end_[i-1], deps_end_[i])
  std::vector<uint32_t> deps_;
  std::vector<uint64_t> name_end_;
  std::string names_;
};

// Why a kernel started when it did.
enum class StartCause : uint8_t {
  kGraphStart,   // no dependencies and a free slot at time 0
  kDependency,   // its latest dependency finished on the same stage
  kTransfer,     // its latest dependency finished on another stage and the transfer arrived
  kStageBusy,    // it was ready earlier but every slot of its stage was taken until `after` finished
};
std::string_view start_cause_name(StartCause cause);  // "start", "dependency", "transfer", "stage busy"

struct CriticalStep {
  uint32_t kernel = kNoKernel;
  StartCause cause = StartCause::kGraphStart;
  uint32_t after = kNoKernel;  // the kernel whose finish released this one (kNoKernel at the start)
  double gap_s = 0;            // start - finish of `after`: the transfer time for kTransfer, else 0
  double queued_s = 0;         // kStageBusy: how long it was ready but had no slot
};

struct Schedule {
  double makespan_s = 0;
  std::vector<double> start_s;   // per kernel
  std::vector<double> finish_s;  // per kernel
  // Kernel-seconds run on each stage; with k > 1 this may exceed the makespan,
  // so utilisation is busy / (k * makespan).
  std::vector<double> stage_busy_s;
  // The chain that sets the makespan, first kernel first (it starts at 0).
  // Each step starts at the finish of the previous one plus its gap, so the
  // durations and gaps along the path add up to the makespan.
  std::vector<CriticalStep> critical_path;
};

// Throws what ScheduleGraph::validate throws.
Schedule schedule_events(const ScheduleGraph& graph);

// "dependency fwd L0 t3 gemm finished", "transfer from stage 1 (12 us)",
// "stage 0 busy until bwd L1 t2 wgrad finished", "graph start".
std::string describe_cause(const ScheduleGraph& graph, const CriticalStep& step);
// One line per critical step: start, name, stage, duration, cause.
std::string describe_critical_path(const ScheduleGraph& graph, const Schedule& schedule);

}  // namespace snr::pathfind
