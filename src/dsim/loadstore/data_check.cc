#include "dsim/loadstore/data_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <numeric>
#include <set>

#include "common/error.h"
#include "common/spelling.h"

namespace snr::dsim::loadstore {
namespace {

// The contributions an element holds, sorted; empty = never written. Shared,
// not copied: a copy or store moves the same set (an all-reduce's sums land
// on every GPU), so memory follows the distinct sets.
class Value {
 public:
  Value() = default;
  explicit Value(std::vector<uint32_t> ids)
      : ids_(ids.empty() ? nullptr : std::make_shared<const std::vector<uint32_t>>(std::move(ids))) {}
  [[nodiscard]] bool empty() const { return ids_ == nullptr; }
  [[nodiscard]] const std::vector<uint32_t>& ids() const { return ids_ ? *ids_ : kNoIds; }
  friend bool operator==(const Value& a, const Value& b) { return a.ids_ == b.ids_ || a.ids() == b.ids(); }

 private:
  static inline const std::vector<uint32_t> kNoIds;
  std::shared_ptr<const std::vector<uint32_t>> ids_;
};

constexpr uint64_t kMaxElements = uint64_t{1} << 26;
// Vector-clock components of the workgroups and barriers: 512 MiB, held by
// one interleaving at a time.
constexpr uint64_t kMaxClockElements = uint64_t{1} << 27;
// Vector-clock components published (by signals still to be waited on and
// packet stores still to be read) at once: 1 GiB.
constexpr uint64_t kMaxLiveClockElements = uint64_t{1} << 28;

using Clock = std::vector<uint32_t>;

class Checker {
 public:
  Checker(const Program& program, const DataCheckOptions& options) : p_(program), options_(options) {}
  DataCheckResult run();

 private:
  struct Location {
    uint32_t gpu;
    Space space;
    uint64_t element;
  };
  // The last write and the last read of an element: who, at which point of
  // their program (epoch), and by which op.
  struct Read {
    uint32_t wg, epoch, op;
  };
  // A clock published by a workgroup: `base`, a snapshot of its clock,
  // with its own component raised to `epoch` (kNone: base alone). Between
  // two joins into a workgroup's clock only its own component grows, so
  // everything it publishes in between shares one snapshot.
  struct Published {
    std::shared_ptr<const Clock> base;
    uint32_t wg = kNone, epoch = 0;
  };
  struct Access {
    uint32_t write_wg = kNone, write_epoch = 0, write_op = 0;
    std::shared_ptr<const Clock> write_snapshot;  // packet stores: the writer's clock (with write_epoch)
    std::vector<Read> reads;  // since the last write, the latest per workgroup
  };
  struct State {
    std::vector<std::array<std::vector<Value>, 3>> memory;  // [gpu][space]
    std::vector<std::array<std::vector<uint8_t>, 3>> ready;  // LL packet flags
    std::vector<uint32_t> semaphores;
    std::vector<uint32_t> barrier_arrived, barrier_generation;
    std::vector<uint32_t> pc;
    std::vector<uint32_t> waiting_generation;  // per workgroup, kNone when not at a barrier
    std::vector<std::vector<std::vector<Value>>> registers;  // per workgroup: operands x elements
    std::vector<uint8_t> done;
    uint64_t executed = 0;
    // Happens-before tracking (vector clocks, one component per workgroup).
    std::vector<Clock> clock;  // per workgroup
    // Per workgroup: its clock's snapshot since its last join, if taken.
    std::vector<std::shared_ptr<const Clock>> snapshot_of;
    // Per semaphore: what fenced releases published, empty until the first
    // one and again after its last wait, which nothing reads after.
    std::vector<Published> semaphore_clock;
    std::vector<uint32_t> waits_left;  // per semaphore: acquire ops not yet executed
    std::vector<Clock> barrier_clock;    // joined by arrivals of the current generation
    std::vector<Clock> barrier_release;  // what the last completed generation publishes
    std::vector<std::array<std::vector<Access>, 3>> access;  // [gpu][space]
    uint32_t wg = 0, op = 0;                                 // the op executing
  };

  void error(std::string message) {
    if (seen_.insert(message).second && result_.errors.size() < options_.max_errors) {
      result_.errors.push_back(std::move(message));
    }
  }
  Location resolve(uint32_t gpu, Space space, uint64_t element) const;
  Value& at(State& s, uint32_t gpu, Space space, uint64_t element) const {
    const Location l = resolve(gpu, space, element);
    return s.memory[l.gpu][static_cast<size_t>(l.space)][l.element];
  }
  std::vector<uint32_t> gpus_of(const MemRange& r) const {
    return r.multicast() ? p_.multicast_group(r.gpu) : std::vector<uint32_t>{r.gpu};
  }
  bool packets_ready(const State& s, const MemRange& r, uint64_t count) const;
  std::vector<Value> read(State& s, uint32_t op_index, const MemRange& r, uint64_t count, bool reduce_members);
  void write(State& s, const MemRange& r, const std::vector<Value>& values);
  Access& access(State& s, uint32_t gpu, Space space, uint64_t element) const {
    const Location l = resolve(gpu, space, element);
    return s.access[l.gpu][static_cast<size_t>(l.space)][l.element];
  }
  static void join(Clock& into, const Clock& from) {
    for (size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
  }
  static void join(Clock& into, const Published& from) {
    if (!from.base) return;
    join(into, *from.base);
    if (from.wg != kNone) into[from.wg] = std::max(into[from.wg], from.epoch);
  }
  // Joins into workgroup `wg`'s own clock (nothing published: unchanged,
  // and its snapshot stays).
  static void join_into_workgroup(State& s, uint32_t wg, const Clock& from) {
    join(s.clock[wg], from);
    s.snapshot_of[wg].reset();
  }
  static void join_into_workgroup(State& s, uint32_t wg, const Published& from) {
    if (!from.base) return;
    join(s.clock[wg], from);
    s.snapshot_of[wg].reset();
  }
  // Workgroup `wg`'s clock as it is now.
  Published publish(State& s, uint32_t wg);
  // A published clock, counted while it lives.
  std::shared_ptr<Clock> new_clock(const Clock& from);
  void race(const State& s, const char* what, uint32_t other_op, const MemRange& r, uint64_t bytes);
  Value merge(const Value& a, const Value& b, uint32_t op_index);
  bool step(State& s, uint32_t wg);
  void execute(State& s, bool round_robin);
  std::string describe_blocked(const State& s, uint32_t wg) const;
  std::string describe(const Value& v) const;
  void check_expected(const State& s);

  const Program& p_;
  const DataCheckOptions& options_;
  DataCheckResult result_;
  std::set<std::string> seen_;
  uint64_t granule_ = 0;
  uint64_t input_elements_max_ = 0;
  State initial_;
  uint64_t live_clocks_ = 0;  // published clocks not yet freed
};

Checker::Location Checker::resolve(uint32_t gpu, Space space, uint64_t element) const {
  if (!options_.inplace) return {gpu, space, element};
  const GpuBuffers& b = p_.gpus[gpu];
  const uint64_t in = b.input_bytes / granule_, out = b.output_bytes / granule_;
  const uint64_t n = p_.gpu_count();
  if (in == out) {
    if (space == Space::kOutput) return {gpu, Space::kInput, element};
  } else if (out == n * in) {
    if (space == Space::kInput) return {gpu, Space::kOutput, gpu * in + element};
  } else if (in == n * out) {
    if (space == Space::kOutput) return {gpu, Space::kInput, gpu * out + element};
  }
  return {gpu, space, element};
}

std::shared_ptr<Clock> Checker::new_clock(const Clock& from) {
  if (++live_clocks_ * from.size() > kMaxLiveClockElements) {
    throw Error(fmt::format("data-movement check: {} published clocks of {} workgroups at once are too many to track",
                            live_clocks_, from.size()));
  }
  return std::shared_ptr<Clock>(new Clock(from), [this](Clock* clock) {
    --live_clocks_;
    delete clock;
  });
}

Checker::Published Checker::publish(State& s, uint32_t wg) {
  if (!s.snapshot_of[wg]) s.snapshot_of[wg] = new_clock(s.clock[wg]);
  return Published{s.snapshot_of[wg], wg, s.clock[wg][wg]};
}

std::string Checker::describe(const Value& v) const {
  if (v.empty()) return "nothing";
  const std::vector<uint32_t>& ids = v.ids();
  std::string out = "{";
  for (size_t i = 0; i < ids.size() && i < 4; ++i) {
    out += fmt::format("{}gpu {} input+{}", i ? ", " : "", ids[i] / input_elements_max_,
                       (ids[i] % input_elements_max_) * granule_);
  }
  if (ids.size() > 4) out += fmt::format(", ... {} in all", ids.size());
  return out + "}";
}

Value Checker::merge(const Value& a, const Value& b, uint32_t op_index) {
  const std::vector<uint32_t>&x = a.ids(), &y = b.ids();
  std::vector<uint32_t> out;
  out.reserve(x.size() + y.size());
  std::merge(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  const auto dup = std::adjacent_find(out.begin(), out.end());
  if (dup != out.end()) {
    error(fmt::format("{}: reduces the contribution of gpu {} input+{} twice", p_.where(op_index),
                      *dup / input_elements_max_, (*dup % input_elements_max_) * granule_));
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return Value(std::move(out));
}

bool Checker::packets_ready(const State& s, const MemRange& r, uint64_t count) const {
  if (!r.packet()) return true;
  for (uint32_t gpu : gpus_of(r)) {
    for (uint64_t e = 0; e < count; ++e) {
      const Location l = resolve(gpu, r.space, r.offset_bytes / granule_ + e);
      if (!s.ready[l.gpu][static_cast<size_t>(l.space)][l.element]) return false;
    }
  }
  return true;
}

std::vector<Value> Checker::read(State& s, uint32_t op_index, const MemRange& r, uint64_t count,
                                 bool reduce_members) {
  const auto gpus = gpus_of(r);
  std::vector<Value> values(count);
  bool undefined = false;
  auto& mine = s.clock[s.wg];
  for (size_t m = 0; m < gpus.size(); ++m) {
    if (m > 0 && !reduce_members) break;
    for (uint64_t e = 0; e < count; ++e) {
      const uint64_t element = r.offset_bytes / granule_ + e;
      Access& a = access(s, gpus[m], r.space, element);
      // Seeing a packet's flag orders this read after the packet's store.
      if (r.packet() && a.write_snapshot) {
        join_into_workgroup(s, s.wg, Published{a.write_snapshot, a.write_wg, a.write_epoch});
      }
      if (a.write_wg != kNone && a.write_wg != s.wg && mine[a.write_wg] < a.write_epoch) {
        race(s, "reads", a.write_op, r, count * granule_);
      }
      auto it = std::find_if(a.reads.begin(), a.reads.end(), [&](const Read& r0) { return r0.wg == s.wg; });
      if (it == a.reads.end()) {
        a.reads.push_back(Read{s.wg, mine[s.wg], s.op});
      } else {
        *it = Read{s.wg, mine[s.wg], s.op};
      }
      const Value& v = at(s, gpus[m], r.space, element);
      undefined = undefined || v.empty();
      values[e] = m == 0 ? v : merge(values[e], v, op_index);
    }
  }
  if (undefined) {
    error(fmt::format("{}: reads {} bytes [{}, {}) of gpu {} that nothing wrote", p_.where(op_index),
                      to_string(r.space), r.offset_bytes, r.offset_bytes + count * granule_,
                      r.multicast() ? fmt::format("group {}", r.gpu) : std::to_string(r.gpu)));
  }
  return values;
}

void Checker::race(const State& s, const char* what, uint32_t other_op, const MemRange& r, uint64_t bytes) {
  error(fmt::format("{} {} {} bytes [{}, {}) of gpu {} that {} {}, with no synchronization in between", p_.where(s.op),
                    what, to_string(r.space), r.offset_bytes, r.offset_bytes + bytes,
                    r.multicast() ? fmt::format("group {}", r.gpu) : std::to_string(r.gpu), p_.where(other_op),
                    std::string_view(what) == "reads" ? "writes" : "also accesses"));
}

void Checker::write(State& s, const MemRange& r, const std::vector<Value>& values) {
  auto& mine = s.clock[s.wg];
  std::shared_ptr<const Clock> snapshot;
  if (r.packet()) snapshot = publish(s, s.wg).base;
  for (uint32_t gpu : gpus_of(r)) {
    for (uint64_t e = 0; e < values.size(); ++e) {
      Access& a = access(s, gpu, r.space, r.offset_bytes / granule_ + e);
      const Location l = resolve(gpu, r.space, r.offset_bytes / granule_ + e);
      Value& held = s.memory[l.gpu][static_cast<size_t>(l.space)][l.element];
      // An LL packet written again with the value it holds (a multicast
      // store that includes its own GPU's copy, say): data and flag travel
      // in one write, so a reader sees the same packet whichever write it
      // meets; not a hazard. Earlier readers stay on record for later writes.
      const bool same_packet =
          r.packet() && s.ready[l.gpu][static_cast<size_t>(l.space)][l.element] && held == values[e];
      if (!same_packet) {
        if (a.write_wg != kNone && a.write_wg != s.wg && mine[a.write_wg] < a.write_epoch) {
          race(s, "overwrites", a.write_op, r, values.size() * granule_);
        } else {
          for (const Read& read : a.reads) {
            if (read.wg != s.wg && mine[read.wg] < read.epoch) {
              race(s, "overwrites", read.op, r, values.size() * granule_);
              break;
            }
          }
        }
        a.reads.clear();
      }
      a.write_wg = s.wg;
      a.write_epoch = mine[s.wg];
      a.write_op = s.op;
      a.write_snapshot = snapshot;
      held = values[e];
      if (r.packet()) s.ready[l.gpu][static_cast<size_t>(l.space)][l.element] = 1;
    }
  }
}

// Executes the next op of workgroup `wg`; false when it cannot proceed.
bool Checker::step(State& s, uint32_t wg) {
  const Workgroup& w = p_.workgroups[wg];
  if (s.pc[wg] >= w.op_count) {
    s.done[wg] = 1;
    return false;
  }
  const uint32_t index = w.first_op + s.pc[wg];
  const GpuOp& op = p_.ops[index];
  const MemRange* ranges = p_.ranges_of(op);
  const uint64_t count = op.bytes / granule_;
  auto& regs = s.registers[wg];
  s.wg = wg;
  s.op = index;
  auto& mine = s.clock[wg];
  ++mine[wg];  // this op's epoch; undone below if the op cannot proceed
  struct Undo {
    std::vector<uint32_t>& clock;
    uint32_t wg;
    bool blocked = true;
    ~Undo() {
      if (blocked) --clock[wg];
    }
  } undo{mine, wg};
  switch (op.kind) {
    case OpKind::kLoad:
      for (uint16_t r = 0; r < op.range_count; ++r) {
        if (!packets_ready(s, ranges[r], count)) return false;
      }
      regs.clear();
      for (uint16_t r = 0; r < op.range_count; ++r) {
        regs.push_back(read(s, index, ranges[r], count, (op.flags & GpuOp::kSwitchReduce) != 0));
      }
      break;
    case OpKind::kReduce:
      if (op.chained()) {
        if (regs.empty()) {
          error(fmt::format("{}: reduces without loaded operands", p_.where(index)));
          break;
        }
        std::vector<Value> out = regs[0];
        for (size_t r = 1; r < regs.size(); ++r) {
          for (uint64_t e = 0; e < out.size() && e < regs[r].size(); ++e) out[e] = merge(out[e], regs[r][e], index);
        }
        regs.assign(1, std::move(out));
      }
      break;
    case OpKind::kStore:
      if (regs.size() != 1) {
        error(fmt::format("{}: stores {} loaded operands (one expected)", p_.where(index), regs.size()));
        break;
      }
      for (uint16_t r = 0; r < op.range_count; ++r) write(s, ranges[r], regs[0]);
      break;
    case OpKind::kMemcpy: {
      if (!packets_ready(s, ranges[0], count)) return false;
      const std::vector<Value> values = read(s, index, ranges[0], count, false);
      write(s, ranges[1], values);
      break;
    }
    case OpKind::kSemaphoreAcquire: {
      if (s.semaphores[op.sync] == 0) return false;
      --s.semaphores[op.sync];
      Published& published = s.semaphore_clock[op.sync];
      join_into_workgroup(s, wg, published);
      if (--s.waits_left[op.sync] == 0) published = Published{};
      break;
    }
    case OpKind::kSemaphoreRelease: {
      ++s.semaphores[op.sync];
      // A relaxed release orders nothing before it (MSCCL++ relaxed signal),
      // and one that no wait follows orders nothing either.
      if ((op.flags & GpuOp::kRelaxed) || s.waits_left[op.sync] == 0) break;
      Published& published = s.semaphore_clock[op.sync];
      if (!published.base) {
        published = publish(s, wg);
      } else {
        // A second release before the last wait: a clock of the
        // semaphore's own, the join of both.
        auto merged = new_clock(mine);
        join(*merged, published);
        published = Published{std::move(merged), kNone, 0};
      }
      break;
    }
    case OpKind::kNop:
      break;
    case OpKind::kBarrier: {
      if (s.waiting_generation[wg] == kNone) {
        s.waiting_generation[wg] = s.barrier_generation[op.sync];
        join(s.barrier_clock[op.sync], mine);
        if (++s.barrier_arrived[op.sync] == p_.barriers[op.sync].participants) {
          s.barrier_arrived[op.sync] = 0;
          ++s.barrier_generation[op.sync];
          s.barrier_release[op.sync] = s.barrier_clock[op.sync];
          std::fill(s.barrier_clock[op.sync].begin(), s.barrier_clock[op.sync].end(), 0);
        }
      }
      if (s.barrier_generation[op.sync] == s.waiting_generation[wg]) return false;
      s.waiting_generation[wg] = kNone;
      join_into_workgroup(s, wg, s.barrier_release[op.sync]);
      break;
    }
  }
  undo.blocked = false;
  ++s.pc[wg];
  ++s.executed;
  if (s.pc[wg] >= w.op_count) s.done[wg] = 1;
  return true;
}

std::string Checker::describe_blocked(const State& s, uint32_t wg) const {
  const Workgroup& w = p_.workgroups[wg];
  const uint32_t index = w.first_op + s.pc[wg];
  const GpuOp& op = p_.ops[index];
  // Ops that could still unblock it: not-yet-executed ops of other workgroups.
  auto pending = [&](auto&& matches) {
    std::vector<std::string> who;
    for (uint32_t other = 0; other < p_.workgroups.size(); ++other) {
      const Workgroup& o = p_.workgroups[other];
      for (uint32_t i = o.first_op + s.pc[other]; i < o.first_op + o.op_count; ++i) {
        if (matches(p_.ops[i])) {
          who.push_back(p_.where(i));
          break;
        }
      }
    }
    return who;
  };
  std::string text = p_.where(index);
  std::vector<std::string> who;
  if (op.kind == OpKind::kSemaphoreAcquire) {
    text += fmt::format(" waits on semaphore '{}'", p_.names[p_.semaphores[op.sync].name]);
    who = pending([&](const GpuOp& o) { return o.kind == OpKind::kSemaphoreRelease && o.sync == op.sync; });
    if (who.empty()) return text + ": no remaining op signals it (a wait without a matching signal)";
  } else if (op.kind == OpKind::kBarrier) {
    return text + fmt::format(" waits at barrier '{}' ({} of {} arrived)", p_.names[p_.barriers[op.sync].name],
                              s.barrier_arrived[op.sync], p_.barriers[op.sync].participants);
  } else {
    const MemRange* ranges = p_.ranges_of(op);
    uint16_t blocked = 0;
    while (blocked + 1 < op.range_count && packets_ready(s, ranges[blocked], op.bytes / granule_)) ++blocked;
    const MemRange& r = ranges[blocked];
    text += fmt::format(" waits for LL packets in {} bytes [{}, {}) of gpu {}", to_string(r.space), r.offset_bytes,
                        r.offset_bytes + op.bytes, r.gpu);
    who = pending([&](const GpuOp& o) {
      const MemRange* rs = p_.ranges_of(o);
      const uint16_t first = o.kind == OpKind::kMemcpy ? 1 : 0;
      if (o.kind != OpKind::kStore && o.kind != OpKind::kMemcpy) return false;
      for (uint16_t i = first; i < o.range_count; ++i) {
        const auto members = gpus_of(rs[i]);
        const bool same_gpu = std::find(members.begin(), members.end(), r.gpu) != members.end();
        if (rs[i].packet() && same_gpu && rs[i].space == r.space && rs[i].offset_bytes < r.offset_bytes + op.bytes &&
            r.offset_bytes < rs[i].offset_bytes + o.bytes) {
          return true;
        }
      }
      return false;
    });
    if (who.empty()) return text + ": no remaining op writes them";
  }
  std::string list;
  for (size_t i = 0; i < who.size() && i < 3; ++i) list += (i ? "; " : "") + who[i];
  return text + fmt::format(", which only blocked ops could provide ({}): a cyclic wait", list);
}

void Checker::execute(State& s, bool round_robin) {
  const uint32_t n = static_cast<uint32_t>(p_.workgroups.size());
  s.clock.assign(n, Clock(n, 0));
  s.snapshot_of.assign(n, nullptr);
  s.barrier_clock.assign(p_.barriers.size(), Clock(n, 0));
  s.barrier_release.assign(p_.barriers.size(), Clock(n, 0));
  struct DropClocks {  // when the interleaving ends, its happens-before state goes
    State& s;
    ~DropClocks() {
      for (auto* clocks : {&s.clock, &s.barrier_clock, &s.barrier_release}) std::vector<Clock>().swap(*clocks);
      std::vector<std::shared_ptr<const Clock>>().swap(s.snapshot_of);
      s.semaphore_clock.assign(s.semaphore_clock.size(), Published{});
      for (auto& spaces : s.access) {
        for (auto& elements : spaces) std::vector<Access>(elements.size()).swap(elements);
      }
    }
  } drop{s};
  for (uint32_t wg = 0; wg < n; ++wg) s.done[wg] = p_.workgroups[wg].op_count == 0;
  while (true) {
    bool progress = false;
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t wg = round_robin ? k : n - 1 - k;
      if (round_robin) {
        if (!s.done[wg] && step(s, wg)) progress = true;
      } else {
        while (!s.done[wg] && step(s, wg)) progress = true;
      }
    }
    if (std::all_of(s.done.begin(), s.done.end(), [](uint8_t d) { return d != 0; })) break;
    if (!progress) {
      for (uint32_t wg = 0; wg < n; ++wg) {
        if (!s.done[wg]) error("deadlock: " + describe_blocked(s, wg));
      }
      return;
    }
  }
  for (size_t i = 0; i < p_.semaphores.size(); ++i) {
    const Semaphore& sem = p_.semaphores[i];
    if (s.semaphores[i] > sem.initial_value) {
      error(fmt::format("semaphore '{}' ends with {} unconsumed signal(s) (a signal without a matching wait)",
                        p_.names[sem.name], s.semaphores[i] - sem.initial_value));
    }
  }
}

void Checker::check_expected(const State& s) {
  const std::string c = checked_collective(options_.collective);
  const uint64_t n = p_.gpu_count();
  uint64_t wrong = 0;
  for (uint32_t g = 0; g < n; ++g) {
    const uint64_t in = p_.gpus[g].input_bytes / granule_, out = p_.gpus[g].output_bytes / granule_;
    std::function<Value(uint64_t)> expected;
    auto id = [&](uint64_t gpu, uint64_t e) { return static_cast<uint32_t>(gpu * input_elements_max_ + e); };
    if (c == "allreduce" && in == out) {
      expected = [&](uint64_t e) {
        std::vector<uint32_t> v;
        for (uint64_t r = 0; r < n; ++r) v.push_back(id(r, e));
        return Value(std::move(v));
      };
    } else if (c == "allgather" && out == n * in && in > 0) {
      expected = [&](uint64_t e) { return Value({id(e / in, e % in)}); };
    } else if (c == "reducescatter" && in == n * out) {
      expected = [&](uint64_t e) {
        std::vector<uint32_t> v;
        for (uint64_t r = 0; r < n; ++r) v.push_back(id(r, g * out + e));
        return Value(std::move(v));
      };
    } else if (c == "alltoall" && in == out && in % n == 0) {
      const uint64_t block = in / n;
      expected = [&, block](uint64_t e) { return Value({id(e / block, g * block + e % block)}); };
    } else if (c == "allreduce" || c == "allgather" || c == "reducescatter" || c == "alltoall") {
      error(fmt::format("gpu {}: input {} B and output {} B do not have the shape of an {} over {} GPUs", g,
                        p_.gpus[g].input_bytes, p_.gpus[g].output_bytes, c, n));
      return;
    } else {
      return;
    }
    result_.collective_checked = true;
    for (uint64_t e = 0; e < out; ++e) {
      ++result_.elements;
      const Location l = resolve(g, Space::kOutput, e);
      const Value& got = s.memory[l.gpu][static_cast<size_t>(l.space)][l.element];
      const Value want = expected(e);
      if (got == want) continue;
      ++wrong;
      error(fmt::format("gpu {} output bytes [{}, {}) (chunk {}): holds {} but {} needs {}", g, e * granule_,
                        (e + 1) * granule_, e * granule_ / std::max<uint64_t>(1, p_.gpus[g].chunk_bytes),
                        describe(got), c, describe(want)));
    }
  }
  if (wrong > 0) error(fmt::format("{} output granules of {} B are wrong in all", wrong, granule_));
}

DataCheckResult Checker::run() {
  // The granule: the largest size dividing every offset, length and buffer.
  uint64_t g = 0;
  for (const GpuBuffers& b : p_.gpus) g = std::gcd(std::gcd(g, b.input_bytes), std::gcd(b.output_bytes, b.scratch_bytes));
  for (const GpuOp& op : p_.ops) {
    if (op.range_count == 0) continue;
    g = std::gcd(g, op.bytes);
    for (uint16_t r = 0; r < op.range_count; ++r) g = std::gcd(g, p_.ranges_of(op)[r].offset_bytes);
  }
  if (g == 0) g = 1;
  granule_ = g;
  result_.element_bytes = g;
  uint64_t total = 0;
  for (const GpuBuffers& b : p_.gpus) {
    input_elements_max_ = std::max(input_elements_max_, b.input_bytes / g);
    total += (b.input_bytes + b.output_bytes + b.scratch_bytes) / g;
  }
  input_elements_max_ = std::max<uint64_t>(input_elements_max_, 1);
  if (total > kMaxElements || input_elements_max_ * p_.gpu_count() > UINT32_MAX) {
    throw Error(fmt::format("data-movement check: {} granules of {} B is too many to track; use a smaller size",
                            total, g));
  }
  // Every range must lie inside its buffer.
  for (uint32_t i = 0; i < p_.ops.size(); ++i) {
    const GpuOp& op = p_.ops[i];
    for (uint16_t r = 0; r < op.range_count; ++r) {
      const MemRange& range = p_.ranges_of(op)[r];
      for (uint32_t gpu : gpus_of(range)) {
        if (range.offset_bytes + op.bytes > p_.gpus[gpu].bytes(range.space)) {
          throw Error(fmt::format("{}: {} bytes [{}, {}) exceed gpu {}'s {}-byte {} buffer", p_.where(i),
                                  to_string(range.space), range.offset_bytes, range.offset_bytes + op.bytes, gpu,
                                  p_.gpus[gpu].bytes(range.space), to_string(range.space)));
        }
      }
    }
  }

  State& s = initial_;
  const uint32_t gpus = p_.gpu_count();
  s.memory.resize(gpus);
  s.ready.resize(gpus);
  for (uint32_t gpu = 0; gpu < gpus; ++gpu) {
    for (Space space : {Space::kInput, Space::kOutput, Space::kScratch}) {
      s.memory[gpu][static_cast<size_t>(space)].resize(p_.gpus[gpu].bytes(space) / g);
      s.ready[gpu][static_cast<size_t>(space)].resize(p_.gpus[gpu].bytes(space) / g);
    }
  }
  for (uint32_t gpu = 0; gpu < gpus; ++gpu) {
    for (uint64_t e = 0; e < p_.gpus[gpu].input_bytes / g; ++e) {
      at(s, gpu, Space::kInput, e) = Value({static_cast<uint32_t>(gpu * input_elements_max_ + e)});
    }
  }
  for (const Semaphore& sem : p_.semaphores) s.semaphores.push_back(sem.initial_value);
  s.barrier_arrived.assign(p_.barriers.size(), 0);
  s.barrier_generation.assign(p_.barriers.size(), 0);
  const size_t wgs = p_.workgroups.size();
  s.pc.assign(wgs, 0);
  s.waiting_generation.assign(wgs, kNone);
  s.registers.resize(wgs);
  s.done.assign(wgs, 0);
  if (wgs * (wgs + 2 * p_.barriers.size()) > kMaxClockElements) {
    throw Error(fmt::format("data-movement check: {} workgroups and {} barriers are too many to track", wgs,
                            p_.barriers.size()));
  }
  // The workgroups' clocks are made by each interleaving (execute) and
  // dropped after it, so that one set lives at a time.
  s.semaphore_clock.resize(p_.semaphores.size());
  s.waits_left.assign(p_.semaphores.size(), 0);
  for (const GpuOp& op : p_.ops) {
    if (op.kind == OpKind::kSemaphoreAcquire) ++s.waits_left[op.sync];
  }
  s.access.resize(gpus);
  for (uint32_t gpu = 0; gpu < gpus; ++gpu) {
    for (Space space : {Space::kInput, Space::kOutput, Space::kScratch}) {
      s.access[gpu][static_cast<size_t>(space)].resize(p_.gpus[gpu].bytes(space) / g);
    }
  }

  State forward = initial_;
  execute(forward, true);
  State backward = initial_;
  execute(backward, false);
  result_.executed_ops = forward.executed;
  if (result_.errors.empty()) {
    for (uint32_t gpu = 0; gpu < gpus && result_.errors.empty(); ++gpu) {
      for (Space space : {Space::kInput, Space::kOutput}) {
        const auto& a = forward.memory[gpu][static_cast<size_t>(space)];
        const auto& b = backward.memory[gpu][static_cast<size_t>(space)];
        for (uint64_t e = 0; e < a.size(); ++e) {
          if (a[e] != b[e]) {
            error(fmt::format("gpu {} {} bytes [{}, {}) end as {} or {} depending on how workgroups interleave: "
                              "synchronization is missing",
                              gpu, to_string(space), e * g, (e + 1) * g, describe(a[e]), describe(b[e])));
            break;
          }
        }
      }
    }
  }
  check_expected(forward);
  return std::move(result_);
}

}  // namespace

DataCheckResult check_data_movement(const Program& program, const DataCheckOptions& options) {
  return Checker(program, options).run();
}

namespace {

constexpr std::array<std::string_view, 4> kCheckedCollectives = {"allreduce", "allgather", "reducescatter",
                                                                  "alltoall"};
// Collectives without a data definition here that are a letter or two
// from one that has one: not typos.
constexpr std::array<std::string_view, 2> kUncheckedNeighbours = {"alltoallv", "allgatherv"};

std::string folded(std::string_view name) {
  std::string out;
  for (char ch : name) {
    if (ch == '_' || ch == '-') continue;
    out += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  }
  return out;
}

}  // namespace

std::string checked_collective(std::string_view name) {
  const std::string key = folded(name);
  for (std::string_view checked : kCheckedCollectives) {
    if (key == checked) return std::string(checked);
  }
  return "";
}

std::string nearest_checked_collective(std::string_view name) {
  if (!checked_collective(name).empty()) return "";
  const std::string key = folded(name);
  if (std::find(kUncheckedNeighbours.begin(), kUncheckedNeighbours.end(), key) != kUncheckedNeighbours.end()) return "";
  for (std::string_view checked : kCheckedCollectives) {
    if (edit_distance(key, checked) <= 2) return std::string(checked);
  }
  return "";
}

}  // namespace snr::dsim::loadstore
