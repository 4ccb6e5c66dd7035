#include "tracker/tracker.h"

#include <algorithm>
#include <tuple>
#include <fmt/format.h>

#include "common/error.h"
#include "isa/address_map.h"

namespace snr::tracker {
namespace {

// Pcs further than this from the first one seen are not cached (never in
// practice: the replayed text is one contiguous image).
constexpr uint64_t kMaxCachedPcSlots = uint64_t{1} << 24;

std::string space_name(sim::MemoryKind kind) { return std::string(sim::memory_kind_name(kind)); }

std::string_view semaphore_op_name(sim::SemaphoreOp op) {
  switch (op) {
    case sim::SemaphoreOp::kSignal: return "signal";
    case sim::SemaphoreOp::kWaitStart: return "wait_start";
    case sim::SemaphoreOp::kWaitEnd: return "wait_end";
  }
  return "unknown";
}

std::string_view memory_edge_kind(sim::MemoryKind kind) {
  switch (kind) {
    case sim::MemoryKind::kSmem: return "smem";
    case sim::MemoryKind::kVmem: return "vmem";
    case sim::MemoryKind::kHbm: return "hbm";
  }
  return "memory";
}

template <typename T>
void grow_to(std::vector<T>& v, uint64_t size, T fill) {
  if (v.size() < size) v.resize(size, fill);
}

}  // namespace

PerformanceTracker::PerformanceTracker(sim::EventBus& bus, uint32_t chip_count, TrackerHooks hooks)
    : hooks_(std::move(hooks)),
      chip_ended_(chip_count, false),
      chip_index_(chip_count, 0),
      executing_step_(chip_count, kNone),
      last_step_(chip_count, kNone),
      x_writer_(chip_count),
      v_writer_(chip_count, std::vector<uint64_t>(isa::kVectorRegisterCount, kNone)),
      open_busy_(chip_count),
      memory_(chip_count) {
  if (hooks_.vmem_page_bytes == 0) throw Error("tracker: vmem page size 0");
  for (auto& writers : x_writer_) writers.fill(kNone);
  for (auto& open : open_busy_) open.fill(kNone);
  data_.op_names.emplace_back();
  op_index_.emplace(std::string(), 0);
  data_.chips.resize(chip_count);
  for (uint32_t c = 0; c < chip_count; ++c) data_.chips[c].chip = c;
  bus.instruction_issued.subscribe([this](const sim::InstructionIssued& e) { on_issued(e); });
  bus.instruction_retired.subscribe([this](const sim::InstructionRetired& e) { on_retired(e); });
  bus.unit_busy.subscribe([this](const sim::UnitBusy& e) { on_unit_busy(e); });
  bus.dma.subscribe([this](const sim::DmaEvent& e) { on_dma(e); });
  bus.memory.subscribe([this](const sim::MemoryAccess& e) { on_memory(e); });
  bus.semaphore.subscribe([this](const sim::SemaphoreEvent& e) { on_semaphore(e); });
}

uint32_t PerformanceTracker::op_index(uint64_t pc) {
  auto lookup = [this](uint64_t at) -> uint32_t {
    if (!hooks_.op_of_pc) return 0;
    std::string name = hooks_.op_of_pc(at);
    auto [named, is_new] = op_index_.try_emplace(name, static_cast<uint32_t>(data_.op_names.size()));
    if (is_new) data_.op_names.push_back(std::move(name));
    return named->second;
  };
  if (op_of_pc_.empty()) op_base_ = pc & ~uint64_t{3};
  if (pc < op_base_ || (pc - op_base_) / 4 >= kMaxCachedPcSlots) return lookup(pc);
  const uint64_t slot = (pc - op_base_) / 4;
  grow_to<uint32_t>(op_of_pc_, slot + 1, 0);
  if (op_of_pc_[slot] == 0) op_of_pc_[slot] = lookup(pc) + 1;
  return op_of_pc_[slot] - 1;
}

void PerformanceTracker::add_dependency(uint64_t producer, uint64_t consumer, std::string_view kind, uint32_t chip,
                                        uint64_t index) {
  if (producer == kNone || consumer == kNone || producer == consumer) return;
  data_.dependencies.push_back(rundb::DependencyRecord{producer, consumer, kind, chip, index, index});
}

void PerformanceTracker::add_memory_dependency(uint64_t producer, uint64_t consumer, std::string_view kind,
                                               uint32_t chip, uint64_t first, uint64_t last) {
  if (producer == kNone || consumer == kNone || producer == consumer) return;
  std::vector<rundb::DependencyRecord>& deps = data_.dependencies;
  // A step's edges are contiguous: every dependency it has is found while
  // it issues and executes.
  if (consumer_edges_begin_ >= deps.size() || deps[consumer_edges_begin_].consumer_step != consumer) {
    consumer_edges_begin_ = deps.size();
    while (consumer_edges_begin_ > 0 && deps[consumer_edges_begin_ - 1].consumer_step == consumer) {
      --consumer_edges_begin_;
    }
  }
  for (size_t i = consumer_edges_begin_; i < deps.size(); ++i) {
    rundb::DependencyRecord& edge = deps[i];
    if (edge.producer_step == producer && edge.kind == kind && edge.chip == chip) {
      edge.first = std::min(edge.first, first);
      edge.last = std::max(edge.last, last);
      return;
    }
  }
  deps.push_back(rundb::DependencyRecord{producer, consumer, kind, chip, first, last});
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
  const uint64_t step = record.step;
  executing_step_[e.chip] = last_step_[e.chip] = step;
  data_.instructions.push_back(record);
  // Reads before writes: an instruction reading and writing x5 depends on
  // the previous writer of x5.
  std::array<uint64_t, 32>& x = x_writer_[e.chip];
  std::vector<uint64_t>& v = v_writer_[e.chip];
  for (uint32_t m = e.registers.x_reads & ~1u; m != 0; m &= m - 1) {
    const auto index = static_cast<uint64_t>(std::countr_zero(m));
    add_dependency(x[index], step, "x", e.chip, index);
  }
  for (uint32_t m = e.registers.v_reads; m != 0; m &= m - 1) {
    const auto index = static_cast<uint64_t>(std::countr_zero(m));
    if (index < v.size()) add_dependency(v[index], step, "v", e.chip, index);
  }
  for (uint32_t m = e.registers.x_writes & ~1u; m != 0; m &= m - 1) x[std::countr_zero(m)] = step;
  for (uint32_t m = e.registers.v_writes; m != 0; m &= m - 1) {
    const auto index = static_cast<size_t>(std::countr_zero(m));
    if (index < v.size()) v[index] = step;
  }
}

void PerformanceTracker::on_retired(const sim::InstructionRetired& e) {
  const uint64_t step = executing_step_[e.chip];
  if (chip_ended_[e.chip] || step == kNone) return;
  data_.instructions[step].complete_cycle = e.complete_cycle;
  executing_step_[e.chip] = kNone;
}

void PerformanceTracker::on_unit_busy(const sim::UnitBusy& e) {
  if (chip_ended_[e.chip]) return;
  const auto unit = static_cast<size_t>(e.unit);
  if (unit >= kUnits) throw Error(fmt::format("tracker: unit {} out of range", unit));
  uint64_t& open = open_busy_[e.chip][unit];
  if (open != kNone) {
    rundb::UnitBusyRecord& record = data_.unit_busy[open];
    if (record.end_cycle == e.start_cycle) {
      record.end_cycle = e.end_cycle;
      ++record.instructions;
      return;
    }
  }
  open = data_.unit_busy.size();
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
    r.src_address = e.geometry.src_address;
    r.dst_chip = e.dst_chip;
    r.dst_space = space_name(e.dst_memory);
    r.dst_address = e.geometry.dst_address;
    r.bytes = e.bytes;
    r.link = hooks_.link_name ? hooks_.link_name(e.link_id) : std::to_string(e.link_id);
    r.semaphore = e.semaphore;
    r.issue_cycle = r.base_done_cycle = r.transfer_start_cycle = r.transfer_end_cycle = e.cycle;
    // The data moves at issue (the engine only schedules), so the source is
    // read now: its producers are the writers as of the ISSUE.
    const sim::DmaGeometry& g = e.geometry;
    read_memory(e.src_chip, e.src_memory, g.src_offset, g.row_bytes, g.rows, g.src_stride, r.issue_step);
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
    case sim::DmaPhase::kTransferEnd: r.transfer_end_cycle = e.cycle; break;
    case sim::DmaPhase::kWaitStart:
      if (sim::dma_wait_replaces(r.waited, r.wait_chip, e.chip, r.chip)) {
        r.waited = true;
        r.wait_chip = e.chip;
        r.wait_step = wait_step(e.chip);
        r.wait_start_cycle = e.cycle;
      }
      break;
    case sim::DmaPhase::kWaitEnd:
      // A chip consumes a DMA at most once, so the chip names the WAIT.
      // Every consuming WAIT depends on the DMA, also one the row does not
      // keep.
      if (r.wait_chip == e.chip) r.wait_end_cycle = e.cycle;
      add_dependency(r.issue_step, wait_step(e.chip), "dma", r.chip, r.dma_id);
      break;
    case sim::DmaPhase::kIssued: break;
  }
}

void PerformanceTracker::read_memory(uint32_t chip, sim::MemoryKind kind, uint64_t offset, uint64_t row_bytes,
                                     uint64_t rows, uint64_t stride, uint64_t consumer) {
  if (consumer == kNone || row_bytes == 0 || chip >= memory_.size()) return;
  ChipMemory& memory = chip_memory(chip);
  const std::string_view edge_kind = memory_edge_kind(kind);
  if (kind == sim::MemoryKind::kVmem) {
    const uint64_t page_bytes = hooks_.vmem_page_bytes;
    for (uint64_t row = 0; row < rows; ++row) {
      const uint64_t start = offset + row * stride;
      const uint64_t last_page = (start + row_bytes - 1) / page_bytes;
      for (uint64_t page = start / page_bytes; page <= last_page && page < memory.vmem_writer.size(); ++page) {
        add_memory_dependency(memory.vmem_writer[page], consumer, edge_kind, chip, page, page);
      }
    }
    return;
  }
  const WriterMap& writers = kind == sim::MemoryKind::kSmem ? memory.smem : memory.hbm;
  if (writers.empty()) return;
  // Edges name local addresses of the chip's map, as the snapshot does.
  const uint64_t base = kind == sim::MemoryKind::kSmem ? isa::kScalarBase : isa::kHbmBase;
  for (uint64_t row = 0; row < rows; ++row) {
    const uint64_t start = offset + row * stride;
    writers.for_each_writer(start, start + row_bytes, [&](uint64_t producer, uint64_t first, uint64_t last) {
      add_memory_dependency(producer, consumer, edge_kind, chip, base + first, base + last);
    });
  }
}

void PerformanceTracker::write_memory(const sim::MemoryAccess& e, uint64_t step) {
  if (step == kNone || e.memory == sim::MemoryKind::kVmem) return;  // VMEM: vmem_pages()
  WriterMap& writers = e.memory == sim::MemoryKind::kSmem ? chip_memory(e.chip).smem : chip_memory(e.chip).hbm;
  for (uint64_t row = 0; row < e.rows; ++row) {
    const uint64_t start = e.offset + row * e.stride;
    writers.write(start, start + e.row_bytes, step);
  }
}

void PerformanceTracker::vmem_pages(const sim::MemoryAccess& e, uint64_t step) {
  ChipMemory& memory = chip_memory(e.chip);
  const uint64_t page_bytes = hooks_.vmem_page_bytes;
  uint64_t previous = kNone;
  for (uint64_t row = 0; row < e.rows; ++row) {
    const uint64_t start = e.offset + row * e.stride;
    const uint64_t first_page = start / page_bytes;
    const uint64_t last_page = (start + e.row_bytes - 1) / page_bytes;
    grow_to(memory.vmem_open_run, last_page + 1, kNone);
    if (e.is_write) grow_to(memory.vmem_writer, last_page + 1, kNone);
    for (uint64_t page = first_page; page <= last_page; ++page) {
      if (page == previous) continue;  // one access per page and event
      previous = page;
      uint64_t& open = memory.vmem_open_run[page];
      if (open != kNone && data_.vmem_runs[open].is_write == e.is_write) {
        rundb::VmemRunRecord& run = data_.vmem_runs[open];
        run.last_cycle = std::max(run.last_cycle, e.cycle);
        ++run.accesses;
      } else {
        open = data_.vmem_runs.size();
        data_.vmem_runs.push_back(rundb::VmemRunRecord{e.chip, page, page, e.is_write, e.cycle, e.cycle, 1});
      }
      if (e.is_write && step != kNone) memory.vmem_writer[page] = step;
    }
  }
}

void PerformanceTracker::on_memory(const sim::MemoryAccess& e) {
  if (e.chip >= memory_.size() || e.row_bytes == 0 || e.rows == 0) return;
  uint64_t step = kNone;
  if (e.dma_id == sim::kNoDma) {
    // An instruction's own access, while it executes.
    if (chip_ended_[e.chip]) return;
    step = executing_step_[e.chip];
    if (!e.is_write) read_memory(e.chip, e.memory, e.offset, e.row_bytes, e.rows, e.stride, step);
  } else if (e.dma_id < data_.dmas.size()) {
    // A DMA landing is a write by its ISSUE step; its source read was
    // resolved at issue.
    step = data_.dmas[e.dma_id].issue_step;
  }
  if (e.memory == sim::MemoryKind::kVmem) {
    vmem_pages(e, step);
  } else if (e.is_write) {
    write_memory(e, step);
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
  for (ChipMemory& memory : memory_) memory.vmem_open_run.clear();  // indexes into the unmerged vector
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
