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

namespace snr::tracker {

struct TrackerHooks {
  // Name of the op (compiled-model symbol) containing pc, "" when none.
  std::function<std::string(uint64_t pc)> op_of_pc;
  // Name of a DMA link id.
  std::function<std::string(uint32_t link_id)> link_name;
  // Value of scalar register x[index] of `chip` just before an instruction
  // issues, to record DMA address operands the events do not carry.
  std::function<uint64_t(uint32_t chip, uint8_t index)> read_x;
};

class PerformanceTracker {
 public:
  PerformanceTracker(sim::EventBus& bus, uint32_t chip_count, TrackerHooks hooks);

  // The chip finished its window: later events of its own instructions
  // (the window-end sentinel) are not part of the run.
  void end_chip(uint32_t chip) { chip_ended_[chip] = true; }
  [[nodiscard]] uint64_t instructions() const { return data_.instructions.size(); }
  [[nodiscard]] uint64_t chip_instructions(uint32_t chip) const { return chip_index_[chip]; }

  // Completes per-chip summaries and total cycles and hands the data over.
  rundb::RunData finish();

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  struct PendingDmaOperands {
    uint64_t src_address = 0;
    uint64_t dst_address = 0;
  };

  void on_issued(const sim::InstructionIssued& event);
  void on_retired(const sim::InstructionRetired& event);
  void on_unit_busy(const sim::UnitBusy& event);
  void on_dma(const sim::DmaEvent& event);
  void on_vmem(const sim::VmemPageAccess& event);
  void on_register(const sim::RegisterAccess& event);
  void on_semaphore(const sim::SemaphoreEvent& event);
  uint32_t op_index(uint64_t pc);
  void merge_adjacent_vmem_pages();
  void add_dependency(uint64_t producer, uint64_t consumer, std::string_view kind, uint32_t chip, uint64_t index);

  TrackerHooks hooks_;
  rundb::RunData data_;
  std::vector<bool> chip_ended_;
  std::vector<uint64_t> chip_index_;
  std::vector<uint64_t> executing_step_;  // step between its issue and retire events, else kNone
  std::vector<uint64_t> last_step_;
  std::vector<PendingDmaOperands> dma_operands_;
  std::vector<std::array<uint64_t, 32>> x_writer_;
  std::vector<std::vector<uint64_t>> v_writer_;
  std::unordered_map<uint64_t, size_t> open_busy_;         // (chip, unit) -> unit_busy index
  std::unordered_map<uint64_t, size_t> open_vmem_run_;     // (chip, page) -> vmem_runs index
  std::unordered_map<uint64_t, uint64_t> vmem_writer_;     // (chip, page) -> step
  std::unordered_map<uint64_t, uint32_t> op_of_pc_;       // pc -> index into op_names
  std::unordered_map<std::string, uint32_t> op_index_;    // name -> index into op_names
  uint64_t last_completed_dma_ = kNone;
};

}  // namespace snr::tracker
