#include "dsim/gpu/gpu_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "common/error.h"

namespace snr::dsim::gpu {

namespace ls = loadstore;

namespace {

struct CuTick {
  static constexpr uint8_t kKind = 1;
  uint32_t cu;
};
struct AluDone {
  static constexpr uint8_t kKind = 2;
  uint32_t slot;
  uint16_t wave;
};
struct PlaceWorkgroups {
  static constexpr uint8_t kKind = 3;
  uint32_t gpu;
};

}  // namespace

GpuModel::GpuModel(const ls::Program& program, const GpuConfig& config, EventLoop& loop, MemoryNetwork& network)
    : GpuModel(nullptr, &program, config, loop, network) {}

GpuModel::GpuModel(std::unique_ptr<ls::Program> owned, const ls::Program* borrowed, const GpuConfig& config,
                   EventLoop& loop, MemoryNetwork& network)
    : owned_(std::move(owned)),
      program_(borrowed != nullptr ? *borrowed : *owned_),
      config_(config),
      loop_(loop),
      network_(network),
      packet_flags_(static_cast<uint32_t>(program_.gpu_count()) * 3) {
  const ls::Program& program = program_;
  cycle_ps_ = config.cycle_ps();
  if (cycle_ps_ == 0) throw Error(fmt::format("GPU '{}': clock {} GHz is too fast", config.name, config.clock_ghz));
  if (network.compute_units() != 0 && network.compute_units() != config.compute_units) {
    throw Error(fmt::format("GPU '{}' has {} compute units but the network has endpoints for {}", config.name,
                            config.compute_units, network.compute_units()));
  }
  handler_ = loop.add_handler("gpu model", *this);
  use_picosecond_buckets(loop);
  network.attach(*this);
  if (config.granularity == Granularity::kFlow) use_flows();
  const uint32_t gpus = program.gpu_count();
  cus_.resize(size_t{gpus} * config.compute_units);
  // Every slot that can be resident at once exists up front: the pool never
  // moves, so references survive the callbacks that retire and place
  // workgroups.
  slots_.resize(std::min<size_t>(cus_.size() * config.workgroups_per_cu, program.workgroups.size()));
  for (uint32_t s = static_cast<uint32_t>(slots_.size()); s-- > 0;) free_slots_.push_back(s);
  gpus_.resize(gpus);
  for (const ls::Kernel& kernel : program.kernels) {
    if (kernel.gpu >= gpus) throw Error(fmt::format("kernel on gpu {} but the program has {} GPUs", kernel.gpu, gpus));
    for (uint32_t i = 0; i < kernel.workgroup_count; ++i) {
      const uint32_t wg = kernel.first_workgroup + i;
      if (program.workgroups[wg].wavefronts == 0) {
        throw Error(fmt::format("{}: workgroup without wavefronts", program.where(program.workgroups[wg].first_op)));
      }
      gpus_[kernel.gpu].pending.push_back(wg);
      ++gpus_[kernel.gpu].unfinished;
    }
  }
  for (const ls::Semaphore& s : program.semaphores) semaphore_values_.push_back(s.initial_value);
  semaphore_waiters_.resize(program.semaphores.size());
  barrier_arrived_.assign(program.barriers.size(), 0);
  barrier_waiting_.resize(program.barriers.size());
  loops_.resize(program.ops.size());
  loop_built_.assign(program.ops.size(), 0);
  stats_.gpus.resize(gpus);
  stats_.workgroup_start_ps.assign(program.workgroups.size(), 0);
  stats_.workgroup_end_ps.assign(program.workgroups.size(), 0);
  stats_.workgroup_cu.assign(program.workgroups.size(), ls::kNone);
}

void GpuModel::start() {
  for (uint32_t g = 0; g < gpus_.size(); ++g) place(g);
}

const GpuModel::Loop& GpuModel::loop_of(uint32_t op_index) {
  Loop& loop = loops_[op_index];
  if (loop_built_[op_index]) return loop;
  loop_built_[op_index] = 1;
  std::vector<LoopEntry> loads, stores;
  uint64_t line_payload = config_.cache_line_bytes;
  auto add = [&](std::vector<LoopEntry>& to, uint32_t range_index) {
    const ls::MemRange& r = program_.ranges[range_index];
    if (r.flags & ls::MemRange::kPacket) line_payload = std::min<uint64_t>(line_payload, config_.cache_line_bytes / 2);
    if (r.flags & ls::MemRange::kPacket128) {
      line_payload = std::min<uint64_t>(line_payload, config_.cache_line_bytes - config_.cache_line_bytes / 16);
    }
    if (!r.multicast()) {
      to.push_back({range_index, r.gpu});
      return;
    }
    // LL flags are checked and parked per member GPU, so packet ranges keep
    // the per-member requests.
    if (network_.carries_multicast() && !r.packet()) {
      to.push_back({range_index, kSwitchTarget});
      return;
    }
    for (uint32_t member : program_.multicast_group(r.gpu)) to.push_back({range_index, member});
  };
  uint32_t o = op_index;
  const uint32_t wg_end = static_cast<uint32_t>(program_.ops.size());
  do {
    const ls::GpuOp& op = program_.ops[o];
    const uint32_t first = op.first_range;
    loop.bytes = std::max(loop.bytes, op.bytes);
    switch (op.kind) {
      case ls::OpKind::kLoad:
        for (uint32_t r = 0; r < op.range_count; ++r) add(loads, first + r);
        break;
      case ls::OpKind::kStore:
        for (uint32_t r = 0; r < op.range_count; ++r) add(stores, first + r);
        break;
      case ls::OpKind::kMemcpy:
        if (op.range_count != 2) throw Error(fmt::format("{}: a MemcpyOp needs 2 ranges", program_.where(o)));
        add(loads, first);
        add(stores, first + 1);
        break;
      case ls::OpKind::kReduce: loop.reduce = true; break;
      default:
        throw Error(
            fmt::format("{}: {} cannot be part of a load/store chain", program_.where(o), ls::to_string(op.kind)));
    }
    ++o;
  } while (o < wg_end && program_.ops[o].chained());
  loop.ops = o - op_index;
  loop.first_entry = static_cast<uint32_t>(loop_entries_.size());
  loop.loads = static_cast<uint16_t>(loads.size());
  loop.stores = static_cast<uint16_t>(stores.size());
  loop_entries_.insert(loop_entries_.end(), loads.begin(), loads.end());
  loop_entries_.insert(loop_entries_.end(), stores.begin(), stores.end());
  loop.line_payload_bytes = line_payload;
  loop.lines = (loop.bytes + line_payload - 1) / line_payload;
  return loop;
}

void GpuModel::place(uint32_t gpu) {
  GpuState& g = gpus_[gpu];
  const uint32_t n = config_.compute_units;
  while (g.next_pending < g.pending.size()) {
    uint32_t found = UINT32_MAX;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t c = (g.rr_cu + i) % n;
      if (cus_[size_t{gpu} * n + c].slots.size() < config_.workgroups_per_cu) {
        found = c;
        break;
      }
    }
    if (found == UINT32_MAX || free_slots_.empty()) return;
    g.rr_cu = (found + 1) % n;
    const uint32_t wg_index = g.pending[g.next_pending++];
    const ls::Workgroup& wg = program_.workgroups[wg_index];
    const uint32_t slot_index = free_slots_.back();
    free_slots_.pop_back();
    Slot& slot = slots_[slot_index];
    slot.workgroup = wg_index;
    slot.cu = gpu * n + found;
    slot.outstanding = slot.stores_out = slot.waves_done = slot.waves_waiting = 0;
    slot.at_barrier = false;
    slot.unroll = config_.unroll;
    slot.reduce_cycles_per_line = config_.reduce_cycles_per_line;
    if (!workgroup_tuning_.empty()) {
      const KernelTuning& tuning = workgroup_tuning_[wg_index];
      if (tuning.unroll != 0) slot.unroll = tuning.unroll;
      if (tuning.reduce_cycles_given) slot.reduce_cycles_per_line = tuning.reduce_cycles_per_line;
    }
    slot.waves.assign(wg.wavefronts, Wave{});
    slot.issuing.assign((wg.wavefronts + 63) / 64, 0);
    cus_[slot.cu].slots.push_back(slot_index);
    stats_.workgroup_start_ps[wg_index] = loop_.now();
    stats_.workgroup_cu[wg_index] = found;
    for (uint16_t w = 0; w < wg.wavefronts; ++w) {
      slot.waves[w].index = w;
      slot.waves[w].op = wg.first_op;
    }
    for (uint16_t w = 0; w < wg.wavefronts; ++w) begin_op(slot_index, w);
  }
}

void GpuModel::begin_op(uint32_t slot_index, uint16_t wave) {
  Slot& slot = slots_[slot_index];
  const ls::Workgroup& wg = program_.workgroups[slot.workgroup];
  Wave& w = slot.waves[wave];
  const uint32_t end = wg.first_op + wg.op_count;
  while (true) {
    if (w.op >= end) {
      wave_done(slot_index, wave);
      return;
    }
    const ls::GpuOp& op = program_.ops[w.op];
    switch (op.kind) {
      case ls::OpKind::kReduce:
        if (!op.chained()) {
          Cu& cu = cus_[slot.cu];
          const TimePs now = loop_.now();
          const TimePs start = std::max(now, cu.alu_free_ps);
          cu.alu_free_ps = start + uint64_t{op.reduce_cycles} * cycle_ps_;
          set_phase(slot, w, Phase::kAlu);
          loop_.schedule(cu.alu_free_ps, handler_, AluDone{slot_index, wave});
          return;
        }
        [[fallthrough]];
      case ls::OpKind::kLoad:
      case ls::OpKind::kStore:
      case ls::OpKind::kMemcpy: {
        const Loop& loop = loop_of(w.op);
        const uint64_t n = slot.waves.size();
        w.next_line = loop.lines * wave / n;
        w.end_line = loop.lines * (wave + 1) / n;
        if (w.next_line == w.end_line || (loop.loads == 0 && loop.stores == 0)) {
          w.op += loop.ops;
          continue;
        }
        start_group(slot_index, w);
        return;
      }
      case ls::OpKind::kSemaphoreAcquire:
      case ls::OpKind::kSemaphoreRelease:
        if (wave != 0) {
          ++w.op;
          continue;
        }
        if (op.kind == ls::OpKind::kSemaphoreAcquire) {
          set_phase(slot, w, Phase::kAcquire);
        } else if ((op.flags & ls::GpuOp::kRelaxed) == 0 && slot.stores_out > 0) {
          set_phase(slot, w, Phase::kWaitFence);
          return;
        } else {
          set_phase(slot, w, Phase::kRelease);
        }
        kick(slot.cu);
        return;
      case ls::OpKind::kNop:
        set_phase(slot, w, Phase::kNop);
        ++slot.waves_waiting;
        maybe_release_nop(slot_index);
        return;
      case ls::OpKind::kBarrier:
        set_phase(slot, w, Phase::kBarrier);
        ++slot.waves_waiting;
        maybe_release_nop(slot_index);
        return;
    }
  }
}

void GpuModel::start_group(uint32_t slot_index, Wave& w) {
  const Loop& loop = loops_[w.op];
  const uint64_t lines = std::min<uint64_t>(slots_[slot_index].unroll, w.end_line - w.next_line);
  w.group_first = w.next_line;
  w.group_lines = static_cast<uint32_t>(lines);
  w.next_line += lines;
  w.cursor = 0;
  if (loop.loads > 0) {
    set_phase(slots_[slot_index], w, Phase::kLoads);
    w.cursor_end = static_cast<uint32_t>(lines * loop.loads);
  } else {
    set_phase(slots_[slot_index], w, Phase::kStores);
    w.cursor_end = static_cast<uint32_t>(lines * loop.stores);
  }
  kick(slots_[slot_index].cu);
}

// The group's loads are back: reduce, then store (or go on).
void GpuModel::advance(uint32_t slot_index, uint16_t wave) {
  Slot& slot = slots_[slot_index];
  Wave& w = slot.waves[wave];
  const Loop& loop = loops_[w.op];
  if (static_cast<Phase>(w.phase) == Phase::kWaitLoads && loop.reduce && slot.reduce_cycles_per_line > 0) {
    Cu& cu = cus_[slot.cu];
    const TimePs start = std::max(loop_.now(), cu.alu_free_ps);
    cu.alu_free_ps = start + uint64_t{w.group_lines} * slot.reduce_cycles_per_line * cycle_ps_;
    set_phase(slot, w, Phase::kReduce);
    loop_.schedule(cu.alu_free_ps, handler_, AluDone{slot_index, wave});
    return;
  }
  if (loop.stores > 0) {
    set_phase(slot, w, Phase::kStores);
    w.cursor = 0;
    w.cursor_end = w.group_lines * loop.stores;
    kick(slot.cu);
    return;
  }
  end_loop(slot_index, wave);
}

// The group's stores are issued (or it had none): next group or next op.
void GpuModel::end_loop(uint32_t slot_index, uint16_t wave) {
  Wave& w = slots_[slot_index].waves[wave];
  if (w.next_line < w.end_line) {
    start_group(slot_index, w);
    return;
  }
  w.op += loops_[w.op].ops;
  set_phase(slots_[slot_index], w, Phase::kStart);
  begin_op(slot_index, wave);
}

void GpuModel::wave_done(uint32_t slot_index, uint16_t wave) {
  Slot& slot = slots_[slot_index];
  set_phase(slot, slot.waves[wave], Phase::kDone);
  ++slot.waves_done;
  if (slot.waves_done == slot.waves.size() && slot.outstanding == 0) retire(slot_index);
}

void GpuModel::maybe_release_nop(uint32_t slot_index) {
  Slot& slot = slots_[slot_index];
  if (slot.waves_waiting + slot.waves_done < slot.waves.size() || slot.waves_waiting == 0) return;
  const Wave& first = slot.waves[0];
  const ls::GpuOp& op = program_.ops[first.op];
  if (op.kind == ls::OpKind::kNop && (op.flags & ls::GpuOp::kDrain) && slot.stores_out > 0) return;
  if (op.kind == ls::OpKind::kBarrier) {
    if (slot.at_barrier) return;  // a later store acknowledgement re-checks; count it once
    const uint32_t b = op.sync;
    if (b >= barrier_arrived_.size())
      throw Error(fmt::format("{}: barrier {} does not exist", program_.where(first.op), b));
    slot.at_barrier = true;
    barrier_waiting_[b].push_back(slot_index);
    if (++barrier_arrived_[b] < program_.barriers[b].participants) return;
    barrier_arrived_[b] = 0;
    std::vector<uint32_t> released;
    released.swap(barrier_waiting_[b]);
    for (uint32_t s : released) {
      Slot& other = slots_[s];
      other.waves_waiting = 0;
      other.at_barrier = false;
      for (Wave& w : other.waves) {
        ++w.op;
        set_phase(other, w, Phase::kStart);
      }
    }
    for (uint32_t s : released) {
      for (uint16_t w = 0; w < slots_[s].waves.size(); ++w) begin_op(s, w);
    }
    return;
  }
  slot.waves_waiting = 0;
  for (Wave& w : slot.waves) {
    ++w.op;
    set_phase(slot, w, Phase::kStart);
  }
  for (uint16_t w = 0; w < slot.waves.size(); ++w) begin_op(slot_index, w);
}

void GpuModel::kick(uint32_t cu_index) {
  Cu& cu = cus_[cu_index];
  if (cu.tick_pending) return;
  const TimePs now = loop_.now();
  TimePs at = (now + cycle_ps_ - 1) / cycle_ps_ * cycle_ps_;
  const TimePs issue_ps = cycle_ps_ * cu.issue_cycles;
  if (cu.ticked && at < cu.last_tick_ps + issue_ps) at = cu.last_tick_ps + issue_ps;
  cu.tick_pending = true;
  loop_.schedule(at, handler_, CuTick{cu_index});
}

bool GpuModel::issuable(const Slot&, const Wave& w) const {
  const auto phase = static_cast<Phase>(w.phase);
  return ((phase == Phase::kLoads || phase == Phase::kStores) && w.cursor < w.cursor_end) || phase == Phase::kAcquire ||
         phase == Phase::kRelease;
}

void GpuModel::tick(uint32_t cu_index) {
  Cu& cu = cus_[cu_index];
  cu.tick_pending = false;
  cu.ticked = true;
  cu.last_tick_ps = loop_.now();
  cu.issue_cycles = 1;
  // With every slot taken only stores (which hold none) may still go; a
  // response kicks the CU again.
  const bool full = cu.outstanding >= config_.max_outstanding_per_cu;
  if (full && config_.stores_wait_for_ack) return;
  // The resident waves in slot order are positions 0..total-1; the search
  // goes round from position rr (modulo total: a slot may have retired).
  uint32_t total = 0;
  for (uint32_t s : cu.slots) total += static_cast<uint32_t>(slots_[s].waves.size());
  if (total == 0) return;
  const uint32_t start = cu.rr % total;
  uint32_t base = 0;
  for (uint32_t s : cu.slots) {
    const auto n = static_cast<uint32_t>(slots_[s].waves.size());
    if (base + n > start && issue_first(cu_index, s, start > base ? start - base : 0, n, base, total, full)) return;
    base += n;
  }
  base = 0;
  for (uint32_t s : cu.slots) {
    if (base >= start) break;
    const auto n = static_cast<uint32_t>(slots_[s].waves.size());
    if (issue_first(cu_index, s, 0, std::min(n, start - base), base, total, full)) return;
    base += n;
  }
}

bool GpuModel::issue_first(uint32_t cu_index, uint32_t slot_index, uint32_t from, uint32_t to, uint32_t base,
                           uint32_t total, bool full) {
  const Slot& slot = slots_[slot_index];
  for (uint32_t word = from >> 6; word << 6 < to; ++word) {
    uint64_t bits = slot.issuing[word];
    if (word == from >> 6) bits &= ~uint64_t{0} << (from & 63);
    while (bits != 0) {
      const uint32_t w = (word << 6) + static_cast<uint32_t>(std::countr_zero(bits));
      bits &= bits - 1;
      if (w >= to) return false;
      const Wave& wave = slot.waves[w];
      if (!issuable(slot, wave)) continue;
      const auto phase = static_cast<Phase>(wave.phase);
      if (full && phase != Phase::kStores && phase != Phase::kRelease) continue;
      cus_[cu_index].rr = (base + w + 1) % total;
      issue(slot_index, static_cast<uint16_t>(w));
      kick(cu_index);  // the next cycle may issue again; an idle tick costs one event
      return true;
    }
  }
  return false;
}

void GpuModel::completed(uint32_t tag) {
  Request& req = requests_[tag];
  const uint32_t slot_index = req.slot;
  const uint16_t wave = req.wave;
  const ReqKind kind = req.kind;
  const bool counted = req.counted;
  const uint32_t lines = req.lines;
  req.next_free = free_request_;
  free_request_ = tag;
  --in_flight_;
  Slot& slot = slots_[slot_index];
  Cu& cu = cus_[slot.cu];
  if (counted) {
    // The CU was full (never more than full): it may issue again.
    const bool was_full = cu.outstanding >= config_.max_outstanding_per_cu;
    cu.outstanding -= lines;
    if (was_full) kick(slot.cu);
  }
  slot.outstanding -= lines;
  Wave& w = slot.waves[wave];
  switch (kind) {
    case ReqKind::kLoad:
      w.loads_out -= lines;
      if (w.loads_out == 0 && static_cast<Phase>(w.phase) == Phase::kWaitLoads) advance(slot_index, wave);
      break;
    case ReqKind::kAcquire:
      ++w.op;
      set_phase(slot, w, Phase::kStart);
      begin_op(slot_index, wave);
      break;
    case ReqKind::kStore:
    case ReqKind::kRelease:
      slot.stores_out -= lines;
      if (slot.stores_out == 0) after_stores_acked(slot_index);
      break;
  }
  if (slot.workgroup != ls::kNone && slot.waves_done == slot.waves.size() && slot.outstanding == 0) {
    retire(slot_index);
  }
}

void GpuModel::after_stores_acked(uint32_t slot_index) {
  Slot& slot = slots_[slot_index];
  if (static_cast<Phase>(slot.waves[0].phase) == Phase::kWaitFence) {
    set_phase(slot, slot.waves[0], Phase::kRelease);
    kick(slot.cu);
  }
  if (slot.waves_waiting > 0) maybe_release_nop(slot_index);
}

void GpuModel::retire(uint32_t slot_index) {
  Slot& slot = slots_[slot_index];
  const uint32_t gpu = slot.cu / config_.compute_units;
  const TimePs now = loop_.now();
  const uint32_t workgroup = slot.workgroup;
  stats_.workgroup_end_ps[workgroup] = now;
  stats_.gpus[gpu].end_ps = std::max(stats_.gpus[gpu].end_ps, now);
  stats_.end_ps = std::max(stats_.end_ps, now);
  auto& resident = cus_[slot.cu].slots;
  std::erase(resident, slot_index);
  slot.workgroup = ls::kNone;
  free_slots_.push_back(slot_index);
  --gpus_[gpu].unfinished;
  // Placing from inside a callback could reuse this slot while a caller up
  // the stack still walks it; the placement runs as its own event, now.
  if (gpus_[gpu].next_pending < gpus_[gpu].pending.size()) loop_.schedule(now, handler_, PlaceWorkgroups{gpu});
  if (!workgroup_kernel_.empty()) kernel_retired(workgroup);
}

void GpuModel::handle(const Event& event) {
  switch (event.kind) {
    case CuTick::kKind: tick(event.get<CuTick>().cu); return;
    case AluDone::kKind: {
      const AluDone done = event.get<AluDone>();
      Wave& w = slots_[done.slot].waves[done.wave];
      if (static_cast<Phase>(w.phase) == Phase::kReduce) {
        if (loops_[w.op].stores > 0) {
          set_phase(slots_[done.slot], w, Phase::kStores);
          w.cursor = 0;
          w.cursor_end = w.group_lines * loops_[w.op].stores;
          kick(slots_[done.slot].cu);
        } else {
          end_loop(done.slot, done.wave);
        }
      } else {
        ++w.op;
        set_phase(slots_[done.slot], w, Phase::kStart);
        begin_op(done.slot, done.wave);
      }
      return;
    }
    case PlaceWorkgroups::kKind: place(event.get<PlaceWorkgroups>().gpu); return;
    default: throw_unknown_event("gpu model", event);
  }
}

}  // namespace snr::dsim::gpu
