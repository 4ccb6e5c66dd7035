// The performance tracker: an event-bus subscriber that turns the timing
// simulator's events into run data (instructions with stall reasons, unit
// busy intervals, DMA lifecycles, run-length VMEM page use, semaphore
// events and register / memory / DMA dependency edges). It never drives the
// simulation; it only listens.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/rundb/run_data.h"
#include "sim/events.h"
#include "tracker/writer_map.h"

namespace snr::tracker {

struct TrackerHooks {
  // Name of the op (compiled-model symbol) containing pc, "" when none.
  std::function<std::string(uint64_t pc)> op_of_pc;
  // Name of a DMA link id.
  std::function<std::string(uint32_t link_id)> link_name;
  // VMEM page size of the replayed hardware (vmem.page_bytes).
  uint64_t vmem_page_bytes = 512;
};

class PerformanceTracker {
 public:
  PerformanceTracker(sim::EventBus& bus, uint32_t chip_count, TrackerHooks hooks);

  // The chip finished its window: later events of its own instructions are
  // not part of the run (DMAs it issued still land).
  void end_chip(uint32_t chip) { chip_ended_[chip] = true; }
  [[nodiscard]] uint64_t instructions() const { return data_.instructions.size(); }
  [[nodiscard]] uint64_t chip_instructions(uint32_t chip) const { return chip_index_[chip]; }

  // Completes per-chip summaries and total cycles and hands the data over.
  rundb::RunData finish();

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  static constexpr size_t kUnits = 8;

  // Per chip: who wrote each VMEM page last and its open run, by page.
  struct ChipMemory {
    std::vector<uint64_t> vmem_writer;    // step, kNone = not written in the window
    std::vector<uint64_t> vmem_open_run;  // index into vmem_runs, kNone = none
    WriterMap smem, hbm;
  };

  void on_issued(const sim::InstructionIssued& event);
  void on_retired(const sim::InstructionRetired& event);
  void on_unit_busy(const sim::UnitBusy& event);
  void on_dma(const sim::DmaEvent& event);
  void on_memory(const sim::MemoryAccess& event);
  void on_semaphore(const sim::SemaphoreEvent& event);
  uint32_t op_index(uint64_t pc);
  // The WAIT `chip` is executing: the instruction in flight, or, when it has
  // not issued yet, the one before it.
  [[nodiscard]] uint64_t wait_step(uint32_t chip) const {
    return executing_step_[chip] != kNone ? executing_step_[chip] : last_step_[chip];
  }
  void merge_adjacent_vmem_pages();
  void add_dependency(uint64_t producer, uint64_t consumer, std::string_view kind, uint32_t chip, uint64_t index);
  // A memory edge: one per (producer, consumer, kind, chip), its range the
  // hull of everything the consumer read from that producer.
  void add_memory_dependency(uint64_t producer, uint64_t consumer, std::string_view kind, uint32_t chip,
                             uint64_t first, uint64_t last);
  // Dependencies of `consumer` reading the rows of one memory.
  void read_memory(uint32_t chip, sim::MemoryKind kind, uint64_t offset, uint64_t row_bytes, uint64_t rows,
                   uint64_t stride, uint64_t consumer);
  void write_memory(const sim::MemoryAccess& event, uint64_t step);
  void vmem_pages(const sim::MemoryAccess& event, uint64_t step);
  ChipMemory& chip_memory(uint32_t chip) { return memory_[chip]; }

  TrackerHooks hooks_;
  rundb::RunData data_;
  std::vector<bool> chip_ended_;
  std::vector<uint64_t> chip_index_;
  std::vector<uint64_t> executing_step_;  // step between its issue and retire events, else kNone
  std::vector<uint64_t> last_step_;
  std::vector<std::array<uint64_t, 32>> x_writer_;
  std::vector<std::vector<uint64_t>> v_writer_;
  std::vector<std::array<uint64_t, kUnits>> open_busy_;  // (chip, unit) -> unit_busy index
  std::vector<ChipMemory> memory_;
  // pc -> 1 + index into op_names (0 = not looked up yet), by (pc - op_base_) / 4.
  std::vector<uint32_t> op_of_pc_;
  uint64_t op_base_ = 0;
  std::unordered_map<std::string, uint32_t> op_index_;  // name -> index into op_names
  size_t consumer_edges_begin_ = 0;  // first dependency of the newest consumer step
};

}  // namespace snr::tracker
