#include "pathfind/schedule/event_schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "common/error.h"

namespace snr::pathfind {

void ScheduleGraph::reserve(size_t kernels, size_t deps, size_t name_chars) {
  stage_.reserve(kernels);
  duration_s_.reserve(kernels);
  transfer_in_s_.reserve(kernels);
  deps_end_.reserve(kernels);
  name_end_.reserve(kernels);
  deps_.reserve(deps);
  names_.reserve(name_chars);
}

uint32_t ScheduleGraph::add(std::string_view name, uint32_t stage, double duration_s, std::span<const uint32_t> deps,
                            double transfer_in_s) {
  // Indices are 32-bit to halve the memory of million-kernel graphs; the
  // largest value is the "no kernel" marker.
  if (stage_.size() >= kNoKernel - 1) throw Error(fmt::format("schedule: more than {} kernels", kNoKernel - 1));
  const auto index = static_cast<uint32_t>(stage_.size());
  stage_.push_back(stage);
  duration_s_.push_back(duration_s);
  transfer_in_s_.push_back(transfer_in_s);
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  deps_end_.push_back(deps_.size());
  names_.append(name);
  name_end_.push_back(names_.size());
  return index;
}

std::string_view ScheduleGraph::name(uint32_t i) const {
  const size_t begin = i == 0 ? 0 : name_end_[i - 1];
  return std::string_view(names_).substr(begin, name_end_[i] - begin);
}

std::span<const uint32_t> ScheduleGraph::deps(uint32_t i) const {
  const size_t begin = i == 0 ? 0 : deps_end_[i - 1];
  return std::span<const uint32_t>(deps_).subspan(begin, deps_end_[i] - begin);
}

void ScheduleGraph::validate() const {
  if (kernels_per_stage_ == 0) {
    throw Error("schedule: kernels_per_stage (k) is 0; a stage must be able to run at least one kernel");
  }
  if (stages_ == 0) throw Error("schedule: stages is 0; the graph needs at least one hardware node");
  for (uint32_t i = 0; i < size(); ++i) {
    auto where = [&] { return fmt::format("schedule: kernel '{}' (#{})", name(i), i); };
    if (stage_[i] >= stages_) {
      throw Error(fmt::format("{}: stage {} is out of range ({} stages)", where(), stage_[i], stages_));
    }
    if (!std::isfinite(duration_s_[i]) || duration_s_[i] < 0) {
      throw Error(fmt::format("{}: duration_s is {} (must be finite and >= 0)", where(), duration_s_[i]));
    }
    if (!std::isfinite(transfer_in_s_[i]) || transfer_in_s_[i] < 0) {
      throw Error(fmt::format("{}: transfer_in_s is {} (must be finite and >= 0)", where(), transfer_in_s_[i]));
    }
    for (uint32_t d : deps(i)) {
      if (d >= i) {
        throw Error(fmt::format("{}: dependency {} is not an earlier kernel (dependencies point backwards in "
                                "program order, which rules out cycles)",
                                where(), d));
      }
    }
  }
}

std::string_view start_cause_name(StartCause cause) {
  switch (cause) {
    case StartCause::kGraphStart: return "start";
    case StartCause::kDependency: return "dependency";
    case StartCause::kTransfer: return "transfer";
    case StartCause::kStageBusy: return "stage busy";
  }
  return "?";
}

namespace {

struct Event {
  double time_s = 0;
  uint32_t kernel = 0;
  bool arrival = false;  // false: the kernel finished; true: its inputs arrived
};

// std::*_heap keep the largest element first; this puts the earliest event
// there, finishes before arrivals at the same time, then program order.
bool later(const Event& a, const Event& b) {
  if (a.time_s != b.time_s) return a.time_s > b.time_s;
  if (a.arrival != b.arrival) return a.arrival;
  return a.kernel > b.kernel;
}

class Simulator {
 public:
  explicit Simulator(const ScheduleGraph& g) : g_(g), n_(static_cast<uint32_t>(g.size())) {
    const uint32_t stages = g.stages();
    remaining_.resize(n_);
    ready_s_.assign(n_, 0);
    binding_.assign(n_, kNoKernel);
    after_.assign(n_, kNoKernel);
    cause_.assign(n_, StartCause::kGraphStart);
    running_.assign(stages, 0);
    last_finished_.assign(stages, kNoKernel);
    pools_.resize(stages);
    dirty_flag_.assign(stages, 0);
    dirty_.reserve(stages);
    events_.reserve(2 * static_cast<size_t>(n_));
    // Successors as a compressed adjacency list: one counting pass, one fill.
    succ_begin_.assign(static_cast<size_t>(n_) + 1, 0);
    std::vector<uint32_t> per_stage(stages, 0);
    for (uint32_t i = 0; i < n_; ++i) {
      remaining_[i] = static_cast<uint32_t>(g.deps(i).size());
      for (uint32_t d : g.deps(i)) ++succ_begin_[d + 1];
      ++per_stage[g.stage(i)];
    }
    for (uint32_t i = 0; i < n_; ++i) succ_begin_[i + 1] += succ_begin_[i];
    succ_.resize(g.dependency_count());
    std::vector<uint64_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
    for (uint32_t i = 0; i < n_; ++i) {
      for (uint32_t d : g.deps(i)) succ_[fill[d]++] = i;
    }
    for (uint32_t s = 0; s < stages; ++s) pools_[s].reserve(per_stage[s]);
  }

  Schedule run() {
    out_.start_s.assign(n_, 0);
    out_.finish_s.assign(n_, 0);
    out_.stage_busy_s.assign(g_.stages(), 0);
    for (uint32_t i = 0; i < n_; ++i) {
      if (remaining_[i] == 0) make_ready(i);
    }
    dispatch();
    while (!events_.empty()) {
      now_ = events_.front().time_s;
      while (!events_.empty() && events_.front().time_s == now_) {
        std::pop_heap(events_.begin(), events_.end(), later);
        const Event e = events_.back();
        events_.pop_back();
        if (e.arrival) {
          enqueue(e.kernel);
          continue;
        }
        const uint32_t s = g_.stage(e.kernel);
        --running_[s];
        last_finished_[s] = e.kernel;
        mark(s);
        for (uint64_t j = succ_begin_[e.kernel]; j < succ_begin_[e.kernel + 1]; ++j) {
          if (--remaining_[succ_[j]] == 0) make_ready(succ_[j]);
        }
      }
      dispatch();
    }
    finish_critical_path();
    return std::move(out_);
  }

 private:
  // All dependencies are done: the kernel is ready at the latest dependency
  // finish (plus the transfer when that dependency ran elsewhere).
  void make_ready(uint32_t i) {
    double ready = 0;
    uint32_t binding = kNoKernel;
    for (uint32_t d : g_.deps(i)) {
      const double t = out_.finish_s[d] + (g_.stage(d) != g_.stage(i) ? g_.transfer_in_s(i) : 0.0);
      if (binding == kNoKernel || t > ready) {
        ready = t;
        binding = d;
      }
    }
    ready_s_[i] = ready;
    binding_[i] = binding;
    if (ready <= now_) {
      enqueue(i);
    } else {
      events_.push_back({ready, i, true});
      std::push_heap(events_.begin(), events_.end(), later);
    }
  }

  void enqueue(uint32_t i) {
    auto& pool = pools_[g_.stage(i)];
    pool.push_back(i);
    std::push_heap(pool.begin(), pool.end(), std::greater<>());
    mark(g_.stage(i));
  }

  void mark(uint32_t s) {
    if (!dirty_flag_[s]) {
      dirty_flag_[s] = 1;
      dirty_.push_back(s);
    }
  }

  void dispatch() {
    for (uint32_t s : dirty_) {
      dirty_flag_[s] = 0;
      auto& pool = pools_[s];
      while (running_[s] < g_.kernels_per_stage() && !pool.empty()) {
        std::pop_heap(pool.begin(), pool.end(), std::greater<>());
        const uint32_t i = pool.back();
        pool.pop_back();
        start(i, s);
      }
    }
    dirty_.clear();
  }

  void start(uint32_t i, uint32_t s) {
    // Work conservation: a kernel that was ready before now only waited
    // because every slot was taken, and the slot it gets was freed now.
    if (ready_s_[i] < now_) {
      cause_[i] = StartCause::kStageBusy;
      after_[i] = last_finished_[s];
    } else if (binding_[i] == kNoKernel) {
      cause_[i] = StartCause::kGraphStart;
    } else {
      cause_[i] = g_.stage(binding_[i]) == s ? StartCause::kDependency : StartCause::kTransfer;
      after_[i] = binding_[i];
    }
    out_.start_s[i] = now_;
    out_.finish_s[i] = now_ + g_.duration_s(i);
    out_.stage_busy_s[s] += g_.duration_s(i);
    ++running_[s];
    events_.push_back({out_.finish_s[i], i, false});
    std::push_heap(events_.begin(), events_.end(), later);
  }

  void finish_critical_path() {
    uint32_t last = kNoKernel;
    for (uint32_t i = 0; i < n_; ++i) {
      if (last == kNoKernel || out_.finish_s[i] > out_.finish_s[last]) last = i;
    }
    if (last == kNoKernel) return;
    out_.makespan_s = out_.finish_s[last];
    for (uint32_t i = last; i != kNoKernel; i = after_[i]) {
      CriticalStep step;
      step.kernel = i;
      step.cause = cause_[i];
      step.after = after_[i];
      if (after_[i] != kNoKernel) step.gap_s = out_.start_s[i] - out_.finish_s[after_[i]];
      if (cause_[i] == StartCause::kStageBusy) step.queued_s = out_.start_s[i] - ready_s_[i];
      out_.critical_path.push_back(step);
    }
    std::reverse(out_.critical_path.begin(), out_.critical_path.end());
  }

  const ScheduleGraph& g_;
  const uint32_t n_;
  double now_ = 0;
  Schedule out_;
  std::vector<uint32_t> remaining_;
  std::vector<double> ready_s_;
  std::vector<uint32_t> binding_;
  std::vector<uint32_t> after_;
  std::vector<StartCause> cause_;
  std::vector<uint64_t> succ_begin_;
  std::vector<uint32_t> succ_;
  std::vector<uint32_t> running_;
  std::vector<uint32_t> last_finished_;
  std::vector<std::vector<uint32_t>> pools_;  // per stage: min-heap of ready kernel indices
  std::vector<uint8_t> dirty_flag_;
  std::vector<uint32_t> dirty_;
  std::vector<Event> events_;
};

}  // namespace

Schedule schedule_events(const ScheduleGraph& graph) {
  graph.validate();
  return Simulator(graph).run();
}

std::string describe_cause(const ScheduleGraph& graph, const CriticalStep& step) {
  switch (step.cause) {
    case StartCause::kGraphStart: return "graph start";
    case StartCause::kDependency: return fmt::format("dependency {} finished", graph.name(step.after));
    case StartCause::kTransfer:
      return fmt::format("transfer from stage {} ({} finished, {:.6g} s transfer)", graph.stage(step.after),
                         graph.name(step.after), step.gap_s);
    case StartCause::kStageBusy:
      return fmt::format("stage {} busy until {} finished (queued {:.6g} s)", graph.stage(step.kernel),
                         graph.name(step.after), step.queued_s);
  }
  return "?";
}

std::string describe_critical_path(const ScheduleGraph& graph, const Schedule& schedule) {
  std::string out;
  for (const CriticalStep& step : schedule.critical_path) {
    out += fmt::format("{:.6g} s  {}  stage {}  {:.6g} s  <- {}\n", schedule.start_s[step.kernel],
                       graph.name(step.kernel), graph.stage(step.kernel), graph.duration_s(step.kernel),
                       describe_cause(graph, step));
  }
  return out;
}

}  // namespace snr::pathfind
