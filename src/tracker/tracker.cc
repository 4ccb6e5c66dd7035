#include "tracker/tracker.h"

#include <algorithm>
#include <tuple>
#include <fmt/format.h>

#include "common/error.h"

namespace snr::tracker {
namespace {

uint64_t pair_key(uint32_t chip, uint64_t value) { return (value << 8) ^ chip; }

std::string space_name(sim::MemoryKind kind) { return std::string(sim::memory_kind_name(kind)); }

std::string_view semaphore_op_name(sim::SemaphoreOp op) {
  switch (op) {
    case sim::SemaphoreOp::kSignal: return "signal";
    case sim::SemaphoreOp::kWaitStart: return "wait_start";
    case sim::SemaphoreOp::kWaitEnd: return "wait_end";
  }
  return "unknown";
}

}  // namespace

PerformanceTracker::PerformanceTracker(sim::EventBus& bus, uint32_t chip_count, TrackerHooks hooks)
    : hooks_(std::move(hooks)),
      chip_ended_(chip_count, false),
      chip_index_(chip_count, 0),
      executing_step_(chip_count, kNone),
      last_step_(chip_count, kNone),
      dma_operands_(chip_count),
      x_writer_(chip_count),
      v_writer_(chip_count, std::vector<uint64_t>(isa::kVectorRegisterCount, kNone)) {
  for (auto& writers : x_writer_) writers.fill(kNone);
  data_.op_names.emplace_back();
  op_index_.emplace(std::string(), 0);
  data_.chips.resize(chip_count);
  for (uint32_t c = 0; c < chip_count; ++c) data_.chips[c].chip = c;
  bus.instruction_issued.subscribe([this](const sim::InstructionIssued& e) { on_issued(e); });
  bus.instruction_retired.subscribe([this](const sim::InstructionRetired& e) { on_retired(e); });
  bus.unit_busy.subscribe([this](const sim::UnitBusy& e) { on_unit_busy(e); });
  bus.dma.subscribe([this](const sim::DmaEvent& e) { on_dma(e); });
  bus.vmem_page.subscribe([this](const sim::VmemPageAccess& e) { on_vmem(e); });
  bus.register_access.subscribe([this](const sim::RegisterAccess& e) { on_register(e); });
  bus.semaphore.subscribe([this](const sim::SemaphoreEvent& e) { on_semaphore(e); });
}

uint32_t PerformanceTracker::op_index(uint64_t pc) {
  auto [it, inserted] = op_of_pc_.try_emplace(pc, 0);
  if (inserted && hooks_.op_of_pc) {
    std::string name = hooks_.op_of_pc(pc);
    auto [named, is_new] = op_index_.try_emplace(name, static_cast<uint32_t>(data_.op_names.size()));
    if (is_new) data_.op_names.push_back(std::move(name));
    it->second = named->second;
  }
  return it->second;
}

void PerformanceTracker::add_dependency(uint64_t producer, uint64_t consumer, std::string_view kind, uint32_t chip,
                                        uint64_t index) {
  if (producer == kNone || consumer == kNone || producer == consumer) return;
  // Adjacent VMEM pages between the same two steps become one edge.
  if (!data_.dependencies.empty()) {
    rundb::DependencyRecord& last = data_.dependencies.back();
    if (last.producer_step == producer && last.consumer_step == consumer && last.kind == kind && last.chip == chip &&
        kind == "vmem" && last.last + 1 == index) {
      last.last = index;
      return;
    }
  }
  data_.dependencies.push_back(rundb::DependencyRecord{producer, consumer, kind, chip, index, index});
}

void PerformanceTracker::on_issued(const sim::InstructionIssued& e) {
  if (chip_ended_[e.chip]) return;
  rundb::InstructionRecord record;
  record.step = data_.instructions.size();
  record.chip = e.chip;
  record.chip_index = chip_index_[e.chip]++;
  record.pc = e.pc;
  record.op = op_index(e.pc);
  record.mnemonic = e.instruction->row->mnemonic;
  record.issue_cycle = e.cycle;
  record.complete_cycle = e.cycle + 1;
  record.stall_cycles = e.stall_cycles;
  record.stall_reason = sim::stall_reason_name(e.stall_reason);
  executing_step_[e.chip] = last_step_[e.chip] = record.step;
  if ((e.instruction->opcode == isa::Opcode::kDmaIssue || e.instruction->opcode == isa::Opcode::kDmaIssue2d) &&
      hooks_.read_x) {
    dma_operands_[e.chip] = {hooks_.read_x(e.chip, e.instruction->rs1), hooks_.read_x(e.chip, e.instruction->rs2)};
  }
  data_.instructions.push_back(std::move(record));
}

void PerformanceTracker::on_retired(const sim::InstructionRetired& e) {
  const uint64_t step = executing_step_[e.chip];
  if (chip_ended_[e.chip] || step == kNone) return;
  data_.instructions[step].complete_cycle = e.complete_cycle;
  executing_step_[e.chip] = kNone;
}

void PerformanceTracker::on_unit_busy(const sim::UnitBusy& e) {
  if (chip_ended_[e.chip]) return;
  const uint64_t key = pair_key(e.chip, static_cast<uint64_t>(e.unit));
  auto it = open_busy_.find(key);
  if (it != open_busy_.end()) {
    rundb::UnitBusyRecord& open = data_.unit_busy[it->second];
    if (open.end_cycle == e.start_cycle) {
      open.end_cycle = e.end_cycle;
      ++open.instructions;
      return;
    }
  }
  open_busy_[key] = data_.unit_busy.size();
  data_.unit_busy.push_back(rundb::UnitBusyRecord{e.chip, std::string(isa::unit_name(e.unit)), e.start_cycle,
                                                  e.end_cycle, last_step_[e.chip], 1});
}

void PerformanceTracker::on_dma(const sim::DmaEvent& e) {
  if (e.phase == sim::DmaPhase::kIssued) {
    if (e.dma_id != data_.dmas.size()) {
      throw Error(fmt::format("tracker: DMA ids out of order (got {}, expected {})", e.dma_id, data_.dmas.size()));
    }
    rundb::DmaRecord r;
    r.dma_id = e.dma_id;
    r.chip = e.chip;
    r.issue_step = executing_step_[e.chip];
    r.pc = e.pc;
    r.src_chip = e.src_chip;
    r.src_space = space_name(e.src_memory);
    r.src_address = dma_operands_[e.chip].src_address;
    r.dst_chip = e.dst_chip;
    r.dst_space = space_name(e.dst_memory);
    r.dst_address = dma_operands_[e.chip].dst_address;
    r.bytes = e.bytes;
    r.link = hooks_.link_name ? hooks_.link_name(e.link_id) : std::to_string(e.link_id);
    r.semaphore = e.semaphore;
    r.issue_cycle = r.base_done_cycle = r.transfer_start_cycle = r.transfer_end_cycle = e.cycle;
    data_.dmas.push_back(std::move(r));
    return;
  }
  if (e.dma_id >= data_.dmas.size()) {
    throw Error(fmt::format("tracker: {} event for unknown DMA {}", sim::dma_phase_name(e.phase), e.dma_id));
  }
  rundb::DmaRecord& r = data_.dmas[e.dma_id];
  switch (e.phase) {
    case sim::DmaPhase::kBaseLatencyDone: r.base_done_cycle = e.cycle; break;
    case sim::DmaPhase::kTransferStart: r.transfer_start_cycle = e.cycle; break;
    case sim::DmaPhase::kTransferEnd:
      r.transfer_end_cycle = e.cycle;
      last_completed_dma_ = e.dma_id;
      break;
    case sim::DmaPhase::kWaitStart:
      r.waited = true;
      r.wait_chip = e.chip;
      r.wait_step = executing_step_[e.chip] != kNone ? executing_step_[e.chip] : last_step_[e.chip];
      r.wait_start_cycle = e.cycle;
      break;
    case sim::DmaPhase::kWaitEnd:
      r.wait_end_cycle = e.cycle;
      add_dependency(r.issue_step, r.wait_step, "dma", r.chip, r.dma_id);
      break;
    case sim::DmaPhase::kIssued: break;
  }
}

void PerformanceTracker::on_vmem(const sim::VmemPageAccess& e) {
  // An access while the chip's instruction executes belongs to it; the rest
  // are DMA landings, published right after the DMA's transfer end.
  uint64_t step = kNone;
  if (executing_step_[e.chip] != kNone && data_.instructions[executing_step_[e.chip]].pc == e.pc) {
    step = executing_step_[e.chip];
  } else if (last_completed_dma_ != kNone) {
    step = data_.dmas[last_completed_dma_].issue_step;
  }
  if (step == kNone && chip_ended_[e.chip]) return;
  const uint64_t key = pair_key(e.chip, e.page);
  auto run = open_vmem_run_.find(key);
  if (run != open_vmem_run_.end() && data_.vmem_runs[run->second].is_write == e.is_write) {
    rundb::VmemRunRecord& open = data_.vmem_runs[run->second];
    open.last_cycle = std::max(open.last_cycle, e.cycle);
    ++open.accesses;
  } else {
    open_vmem_run_[key] = data_.vmem_runs.size();
    data_.vmem_runs.push_back(rundb::VmemRunRecord{e.chip, e.page, e.page, e.is_write, e.cycle, e.cycle, 1});
  }
  if (e.is_write) {
    vmem_writer_[key] = step;
  } else if (auto writer = vmem_writer_.find(key); writer != vmem_writer_.end()) {
    add_dependency(writer->second, step, "vmem", e.chip, e.page);
  }
}

void PerformanceTracker::on_register(const sim::RegisterAccess& e) {
  const uint64_t step = executing_step_[e.chip];
  if (chip_ended_[e.chip] || step == kNone) return;
  if (e.file == sim::RegisterFile::kScalar && e.index == 0) return;
  uint64_t& writer = e.file == sim::RegisterFile::kScalar ? x_writer_[e.chip][e.index] : v_writer_[e.chip][e.index];
  if (e.is_write) {
    writer = step;
  } else if (writer != kNone) {
    add_dependency(writer, step, e.file == sim::RegisterFile::kScalar ? "x" : "v", e.chip, e.index);
  }
}

void PerformanceTracker::on_semaphore(const sim::SemaphoreEvent& e) {
  data_.semaphores.push_back(rundb::SemaphoreRecord{data_.semaphores.size(), e.chip, e.semaphore,
                                                    std::string(semaphore_op_name(e.op)), e.cycle, e.amount,
                                                    e.value_after, e.from_chip});
}

void PerformanceTracker::merge_adjacent_vmem_pages() {
  std::vector<rundb::VmemRunRecord>& runs = data_.vmem_runs;
  auto same_run = [](const rundb::VmemRunRecord& a, const rundb::VmemRunRecord& b) {
    return a.chip == b.chip && a.is_write == b.is_write && a.first_cycle == b.first_cycle &&
           a.last_cycle == b.last_cycle && a.accesses == b.accesses;
  };
  std::sort(runs.begin(), runs.end(), [](const rundb::VmemRunRecord& a, const rundb::VmemRunRecord& b) {
    return std::tie(a.chip, a.first_cycle, a.is_write, a.last_cycle, a.accesses, a.page) <
           std::tie(b.chip, b.first_cycle, b.is_write, b.last_cycle, b.accesses, b.page);
  });
  size_t out = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (out > 0 && same_run(runs[out - 1], runs[i]) && runs[out - 1].last_page + 1 == runs[i].page) {
      runs[out - 1].last_page = runs[i].page;
    } else {
      runs[out++] = runs[i];
    }
  }
  runs.resize(out);
  open_vmem_run_.clear();  // indexes into the unmerged vector
}

rundb::RunData PerformanceTracker::finish() {
  uint64_t total = 0;
  for (rundb::ChipSummary& chip : data_.chips) chip.first_cycle = UINT64_MAX;
  for (const rundb::InstructionRecord& r : data_.instructions) {
    rundb::ChipSummary& chip = data_.chips[r.chip];
    ++chip.instructions;
    chip.first_cycle = std::min(chip.first_cycle, r.issue_cycle);
    chip.last_cycle = std::max(chip.last_cycle, r.issue_cycle + 1);
    chip.stall_cycles += r.stall_cycles;
    total = std::max({total, r.issue_cycle + 1, r.complete_cycle});
  }
  for (rundb::ChipSummary& chip : data_.chips) {
    if (chip.first_cycle == UINT64_MAX) chip.first_cycle = 0;
  }
  for (const rundb::DmaRecord& r : data_.dmas) total = std::max({total, r.transfer_end_cycle, r.wait_end_cycle});
  data_.total_cycles = total;
  merge_adjacent_vmem_pages();
  return std::move(data_);
}

}  // namespace snr::tracker
