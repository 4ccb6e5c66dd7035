#include "sim/timing.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>

#include "common/error.h"
#include "isa/compressed.h"

namespace snr::sim {
namespace {

using isa::LatencyClass;
using isa::Opcode;

bool is_divide(Opcode op) {
  switch (op) {
    case Opcode::kDiv: case Opcode::kDivu: case Opcode::kRem: case Opcode::kRemu:
    case Opcode::kDivw: case Opcode::kDivuw: case Opcode::kRemw: case Opcode::kRemuw:
      return true;
    default:
      return false;
  }
}

bool is_dma_fence(Opcode op) {
  return op == Opcode::kFence || op == Opcode::kFenceTso || op == Opcode::kFenceI || op == Opcode::kFenceDma;
}

// Calls fn(file, index, is_write) for every register in `use`.
template <typename Fn>
void for_each_register(const RegisterUse& use, Fn fn) {
  for (uint32_t m = use.x_reads; m != 0; m &= m - 1) fn(RegisterFile::kScalar, static_cast<uint8_t>(std::countr_zero(m)), false);
  for (uint32_t m = use.v_reads; m != 0; m &= m - 1) fn(RegisterFile::kVector, static_cast<uint8_t>(std::countr_zero(m)), false);
  for (uint32_t m = use.x_writes; m != 0; m &= m - 1) fn(RegisterFile::kScalar, static_cast<uint8_t>(std::countr_zero(m)), true);
  for (uint32_t m = use.v_writes; m != 0; m &= m - 1) fn(RegisterFile::kVector, static_cast<uint8_t>(std::countr_zero(m)), true);
}

}  // namespace

TimingSimulator::TimingSimulator(System& system)
    : system_(system),
      executor_(system, this),
      dma_(system.config(), system.topology(), system.bus()),
      cores_(system.chip_count()),
      stats_(system.chip_count()) {
  executor_.set_publish_retired(false);
  for (CoreTiming& core : cores_) {
    core.mxu_free.assign(system.config().mxu_count, 0);
    core.mxu_weights_ready.assign(system.config().mxu_count, 0);
    core.mxu_acc_ready.assign(system.config().mxu_count, 0);
  }
  dma_.on_completion([this](const DmaCompletion& completion) { on_dma_complete(completion); });
}

void TimingSimulator::dma_issued(ChipState& issuer, const DmaRequest& request) {
  const uint64_t id = dma_.issue(dma_issue_cycle_, request);
  requests_.push_back(request);
  cores_[issuer.chip_id].dma_ids_by_semaphore[request.semaphore].push_back(id);
  if (request.dst_chip != issuer.chip_id) cores_[request.dst_chip].dma_ids_by_semaphore[request.semaphore].push_back(id);
  ChipRunStats& stats = stats_[issuer.chip_id];
  ++stats.dma_count;
  stats.dma_bytes += request.bytes;
}

void TimingSimulator::on_dma_complete(const DmaCompletion& completion) {
  signal_dma_completion(system_, completion.request, completion.cycle);
  publish_dma_memory(completion);
  for (CoreTiming& core : cores_) {
    if (core.blocked) core.next_try = std::min(core.next_try, completion.cycle);
  }
}

void TimingSimulator::publish_dma_memory(const DmaCompletion& completion) const {
  const Channel<MemoryAccess>& channel = system_.bus().memory;
  const DmaRequest& r = completion.request;
  if (!channel.active() || r.bytes == 0) return;
  // Contiguous rows are one range.
  const uint64_t rows = r.rows;
  const bool src_flat = rows == 1 || r.src_stride == r.row_bytes;
  const bool dst_flat = rows == 1 || r.dst_stride == r.row_bytes;
  channel.publish(MemoryAccess{r.src_chip, completion.cycle, r.src_memory, r.src_offset,
                               src_flat ? r.bytes : r.row_bytes, src_flat ? 1 : rows, r.src_stride, false, r.pc,
                               completion.dma_id});
  channel.publish(MemoryAccess{r.dst_chip, completion.cycle, r.dst_memory, r.dst_offset,
                               dst_flat ? r.bytes : r.row_bytes, dst_flat ? 1 : rows, r.dst_stride, true, r.pc,
                               completion.dma_id});
}

void TimingSimulator::publish_unit_busy(uint32_t chip, isa::Unit unit, uint64_t start, uint64_t end, uint64_t pc) const {
  if (system_.bus().unit_busy.active()) system_.bus().unit_busy.publish(UnitBusy{chip, unit, start, end, pc});
}

uint64_t TimingSimulator::static_ready(const CoreTiming& core, const isa::DecodedInstruction& d,
                                       StallReason& reason) const {
  uint64_t ready = core.next_issue;
  reason = core.next_issue > core.nominal_issue ? StallReason::kBranch : StallReason::kNone;
  auto need = [&](uint64_t cycle, StallReason why) {
    if (cycle >= ready && cycle > core.nominal_issue) {
      ready = cycle;
      reason = why;
    }
  };
  for_each_register(system_.register_use(&d), [&](RegisterFile file, uint8_t index, bool) {
    if (file == RegisterFile::kScalar) {
      if (index != 0) need(core.x_ready[index], StallReason::kDataHazard);
    } else {
      need(core.v_ready[index], StallReason::kDataHazard);
    }
  });
  const size_t mxu = std::min<size_t>(d.mxu, core.mxu_free.size() - 1);
  switch (d.row->unit) {
    case isa::Unit::kVector: need(core.vector_free, StallReason::kUnitBusy); break;
    case isa::Unit::kMatrix:
      if (d.opcode == Opcode::kMxuMul) need(core.mxu_weights_ready[mxu], StallReason::kDataHazard);
      if (d.opcode == Opcode::kMxuPop) need(core.mxu_acc_ready[mxu], StallReason::kDataHazard);
      need(core.mxu_free[mxu], StallReason::kUnitBusy);
      break;
    default: break;
  }
  if (is_divide(d.opcode)) need(core.divider_free, StallReason::kUnitBusy);
  if (d.opcode == Opcode::kFenceVec || is_dma_fence(d.opcode)) {
    need(std::max(core.vector_done, core.matrix_done), StallReason::kFence);
  }
  return ready;
}

StallReason TimingSimulator::dynamic_block(const ChipState& chip, const isa::DecodedInstruction& d) const {
  if (d.opcode == Opcode::kSemWait && chip.semaphore[d.sem] < static_cast<uint64_t>(d.imm)) {
    return StallReason::kSemaphoreWait;
  }
  if ((d.opcode == Opcode::kDmaIssue || d.opcode == Opcode::kDmaIssue2d) &&
      dma_.in_flight(chip.chip_id) >= system_.config().dma_max_outstanding) {
    return StallReason::kDmaQueueFull;
  }
  if (is_dma_fence(d.opcode) && dma_.in_flight(chip.chip_id) > 0) return StallReason::kFence;
  return StallReason::kNone;
}

void TimingSimulator::attempt_issue(uint32_t chip_id, uint64_t now) {
  CoreTiming& core = cores_[chip_id];
  ChipState& chip = system_.chip(chip_id);
  const isa::DecodedInstruction* d = system_.fetch(chip.pc);
  if (d == nullptr || !d->valid()) {
    executor_.step(chip);  // throws the fetch / illegal-instruction error
    return;
  }
  StallReason reason = StallReason::kNone;
  const uint64_t ready = static_ready(core, *d, reason);
  if (ready > now) {
    core.next_try = ready;
    return;
  }
  if (StallReason block = dynamic_block(chip, *d); block != StallReason::kNone) {
    if (!core.blocked) {
      core.blocked = true;
      core.blocked_reason = block;
    }
    core.next_try = UINT64_MAX;  // woken by a DMA completion or another chip's issue
    return;
  }
  if (core.blocked) reason = core.blocked_reason;
  core.blocked = false;
  const uint64_t stall = now - core.nominal_issue;
  if (stall == 0) reason = StallReason::kNone;
  ChipRunStats& stats = stats_[chip_id];
  stats.stall_cycles[static_cast<size_t>(reason)] += stall;
  if (system_.bus().instruction_issued.active()) {
    system_.bus().instruction_issued.publish(
        InstructionIssued{chip_id, now, chip.pc, d, stall, reason, system_.register_use(d)});
  }
  const uint64_t old_pc = chip.pc;
  chip.cycle = now;
  dma_issue_cycle_ = now;
  const StepResult result = executor_.step(chip);
  if (d->opcode == Opcode::kSemWait) publish_waits(chip_id, *d, core.nominal_issue, now);
  account_issue(chip_id, *d, now, old_pc);
  core.nominal_issue = now + 1;
  const bool redirected = result == StepResult::kRetired && chip.pc != old_pc + isa::instruction_bytes(d->word);
  core.next_issue = now + 1 + (redirected ? system_.config().branch_taken_penalty_cycles : 0);
  core.next_try = core.next_issue;
  ++stats.instructions;
  stats.last_cycle = now + 1;
  if (result == StepResult::kExited || result == StepResult::kBreak || stats.instructions == core.instruction_limit) {
    core.done = true;
  }
  // Another chip may have signalled a semaphore someone is waiting on.
  for (CoreTiming& other : cores_) {
    if (other.blocked) other.next_try = std::min(other.next_try, now + 1);
  }
}

void TimingSimulator::account_issue(uint32_t chip_id, const isa::DecodedInstruction& d, uint64_t now, uint64_t pc) {
  const hw::HwConfig& hw = system_.config();
  CoreTiming& core = cores_[chip_id];
  uint64_t latency = 1;
  const size_t mxu = std::min<size_t>(d.mxu, core.mxu_free.size() - 1);
  switch (d.row->latency) {
    case LatencyClass::kScalarAlu: case LatencyClass::kBranch: latency = hw.scalar_alu_latency_cycles; break;
    case LatencyClass::kScalarMulDiv:
      latency = is_divide(d.opcode) ? hw.scalar_div_latency_cycles : hw.scalar_mul_latency_cycles;
      if (is_divide(d.opcode)) core.divider_free = now + latency;  // unpipelined
      break;
    case LatencyClass::kScalarLoadStore: latency = hw.scalar_load_latency_cycles; break;
    case LatencyClass::kVectorAlu: latency = hw.vector_alu_latency_cycles; break;
    case LatencyClass::kVectorTranscendental: latency = hw.vector_transcendental_latency_cycles; break;
    case LatencyClass::kVectorLoadStore: latency = hw.vector_load_latency_cycles; break;
    case LatencyClass::kMxuWeightLoad:
      latency = hw.mxu_weight_load_cycles;
      core.mxu_free[mxu] = core.mxu_weights_ready[mxu] = now + latency;
      core.matrix_done = std::max(core.matrix_done, now + latency);
      publish_unit_busy(chip_id, isa::Unit::kMatrix, now, now + latency, pc);
      break;
    case LatencyClass::kMxuPush:
      latency = hw.mxu_fill_cycles;
      core.mxu_free[mxu] = now + hw.mxu_push_interval_cycles;
      core.mxu_acc_ready[mxu] = std::max(core.mxu_acc_ready[mxu], now + latency);
      core.matrix_done = std::max(core.matrix_done, now + latency);
      publish_unit_busy(chip_id, isa::Unit::kMatrix, now, now + hw.mxu_push_interval_cycles, pc);
      break;
    case LatencyClass::kMxuPop:
      latency = hw.mxu_drain_cycles;
      core.mxu_free[mxu] = now + latency;
      core.matrix_done = std::max(core.matrix_done, now + latency);
      publish_unit_busy(chip_id, isa::Unit::kMatrix, now, now + latency, pc);
      break;
    default: break;
  }
  if (d.row->unit == isa::Unit::kVector) {
    const uint64_t busy_until = now + hw.vector_issue_interval_cycles;
    core.vector_free = busy_until;
    core.vector_done = std::max(core.vector_done, now + latency);
    publish_unit_busy(chip_id, isa::Unit::kVector, now, busy_until, pc);
  } else if (d.row->unit != isa::Unit::kMatrix) {
    publish_unit_busy(chip_id, d.row->unit, now, now + 1, pc);
  }
  for_each_register(system_.register_use(&d), [&](RegisterFile file, uint8_t index, bool is_write) {
    if (!is_write) return;
    if (file == RegisterFile::kScalar) {
      if (index != 0) core.x_ready[index] = now + latency;
    } else {
      core.v_ready[index] = now + latency;
    }
  });
  if (system_.bus().instruction_retired.active()) {
    system_.bus().instruction_retired.publish(InstructionRetired{chip_id, now, now + latency, pc, &d});
  }
}

void TimingSimulator::publish_waits(uint32_t chip_id, const isa::DecodedInstruction& d, uint64_t wait_start,
                                    uint64_t now) {
  std::deque<uint64_t>& ids = cores_[chip_id].dma_ids_by_semaphore[d.sem];
  for (int64_t i = 0; i < d.imm && !ids.empty(); ++i) {
    const uint64_t id = ids.front();
    ids.pop_front();
    if (!system_.bus().dma.active()) continue;
    const DmaRequest& r = requests_[id];
    const uint64_t pc = system_.chip(chip_id).pc - 4;
    for (auto [phase, cycle] : {std::pair{DmaPhase::kWaitStart, wait_start}, std::pair{DmaPhase::kWaitEnd, now}}) {
      system_.bus().dma.publish(DmaEvent{chip_id, id, phase, cycle, r.bytes, r.src_chip, r.src_memory, r.dst_chip,
                                         r.dst_memory, 0, r.semaphore, pc, r.geometry()});
    }
  }
}

void TimingSimulator::report_deadlock(uint64_t now) const {
  std::string detail;
  for (uint32_t c = 0; c < cores_.size(); ++c) {
    if (cores_[c].done) continue;
    const ChipState& chip = system_.chip(c);
    const isa::DecodedInstruction* d = system_.fetch(chip.pc);
    detail += fmt::format("; chip {} at pc {:#x} {} ({})", c, chip.pc, d ? d->row->mnemonic : "?",
                          stall_reason_name(cores_[c].blocked_reason));
    if (d != nullptr && d->opcode == Opcode::kSemWait) {
      detail += fmt::format(" needs sem{} >= {}, has {}", d->sem, d->imm, chip.semaphore[d->sem]);
    }
  }
  throw Error(fmt::format("deadlock at cycle {}: every running chip is blocked and no DMA is in flight{}", now, detail));
}

void TimingSimulator::set_instruction_limit(uint32_t chip, uint64_t instructions) {
  cores_.at(chip).instruction_limit = instructions;
}

RunOutcome TimingSimulator::run(uint64_t max_cycles) {
  uint64_t now = 0;
  for (CoreTiming& core : cores_) {
    if (core.instruction_limit == 0) core.done = true;
  }
  while (true) {
    dma_.advance_to(now);
    for (uint32_t c = 0; c < cores_.size(); ++c) {
      if (!cores_[c].done && cores_[c].next_try <= now) attempt_issue(c, now);
    }
    uint64_t next = dma_.next_event_cycle();
    bool all_done = true;
    for (const CoreTiming& core : cores_) {
      if (core.done) continue;
      all_done = false;
      next = std::min(next, core.next_try);
    }
    if (all_done) break;
    if (next == UINT64_MAX) report_deadlock(now);
    next = std::max(next, now + 1);
    if (next > max_cycles) {
      throw Error(fmt::format("simulation stopped after {} cycles (limit); raise the limit or check for a hang", max_cycles));
    }
    now = next;
  }
  // Let DMAs still in flight land so their semaphores and events are complete.
  uint64_t end = now + 1;
  while (dma_.next_event_cycle() != UINT64_MAX) {
    end = std::max(end, dma_.next_event_cycle());
    dma_.advance_to(dma_.next_event_cycle());
  }
  RunOutcome outcome;
  outcome.chips = stats_;
  for (uint32_t c = 0; c < cores_.size(); ++c) {
    end = std::max(end, stats_[c].last_cycle);
  }
  outcome.cycles = end;
  // The last issue is inside the limit, but the run ends when its results
  // and DMAs are in: a 3449-cycle run passed --max-cycles 3448.
  if (end > max_cycles) {
    throw Error(fmt::format("simulation stopped after {} cycles (limit); raise the limit or check for a hang", max_cycles));
  }
  return outcome;
}

RunOutcome run_functional(System& system, uint64_t max_instructions) {
  // Multi-chip runs interleave one instruction per turn, the same order as
  // the timing model's lockstep cycles; a lone chip runs in long batches.
  const uint64_t quantum = system.chip_count() == 1 ? 4096 : 1;
  Executor executor(system);
  RunOutcome outcome;
  outcome.chips.resize(system.chip_count());
  uint64_t total = 0;
  while (true) {
    bool progressed = false, all_finished = true;
    for (uint32_t c = 0; c < system.chip_count(); ++c) {
      ChipState& chip = system.chip(c);
      if (chip.status == ChipStatus::kExited || chip.status == ChipStatus::kBreak) continue;
      all_finished = false;
      uint64_t retired = 0;
      const StepResult result = executor.run(chip, quantum, retired);
      if (result == StepResult::kExited || result == StepResult::kBreak) ++retired;
      outcome.chips[c].instructions += retired;
      total += retired;
      progressed = progressed || retired > 0;
    }
    if (all_finished) break;
    if (!progressed) {
      std::string detail;
      for (uint32_t c = 0; c < system.chip_count(); ++c) {
        const ChipState& chip = system.chip(c);
        if (chip.status != ChipStatus::kBlocked) continue;
        const isa::DecodedInstruction* d = system.fetch(chip.pc);
        if (d != nullptr && d->opcode == Opcode::kSemWait) {
          detail += fmt::format("; chip {} at pc {:#x} waits for sem{} >= {}, has {}", c, chip.pc, d->sem, d->imm,
                                chip.semaphore[d->sem]);
        }
      }
      throw Error("deadlock: every running chip is blocked on a semaphore" + detail);
    }
    if (total > max_instructions) {
      // Chips run in quanta, so the count can pass the limit by a few.
      throw Error(fmt::format("stopped after {} instructions, past the limit of {}; raise the limit or check for a "
                              "hang",
                              total, max_instructions));
    }
  }
  return outcome;
}

}  // namespace snr::sim
