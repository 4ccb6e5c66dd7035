// Lookups over one RunData that every analysis needs: instruction by step,
// each chip's instruction stream in order, the DMA an ISSUE step started,
// dependency edges by consumer step, and what kind of instruction each step
// is (lightweight scalar, scalar load, DMA ISSUE, WAIT, other). Built once in
// O(instructions + edges); flat arrays only.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "formats/rundb/run_data.h"

namespace snr::analyze {

enum class InstructionClass : uint8_t {
  kLightweight,  // scalar ALU / immediate / multiply: register-only address arithmetic
  kScalarLoad,   // scalar load: lightweight, continued through its memory edge
  kScalarStore,
  kDmaIssue,
  kWait,         // sem.wait
  kSemaphore,    // other semaphore instructions
  kOther,        // vector, matrix, branches, fences, system
};

InstructionClass classify_mnemonic(std::string_view mnemonic);

class RunIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit RunIndex(const rundb::RunData& data);

  [[nodiscard]] const rundb::RunData& data() const { return data_; }
  // Index into data().instructions of `step`, kNone when no instruction has it.
  [[nodiscard]] uint32_t instruction_of_step(uint64_t step) const {
    return step < inst_of_step_.size() ? inst_of_step_[step] : kNone;
  }
  [[nodiscard]] const rundb::InstructionRecord& instruction(uint32_t index) const { return data_.instructions[index]; }
  [[nodiscard]] InstructionClass class_of(uint32_t index) const { return class_[index]; }
  // Instruction indexes of one chip in issue order; position_in_chip(i)
  // is i's place in that list.
  [[nodiscard]] std::span<const uint32_t> chip_stream(uint32_t chip) const {
    return chip < chip_streams_.size() ? std::span<const uint32_t>(chip_streams_[chip]) : std::span<const uint32_t>();
  }
  [[nodiscard]] uint32_t position_in_chip(uint32_t index) const { return position_[index]; }
  [[nodiscard]] uint32_t chip_count() const { return static_cast<uint32_t>(chip_streams_.size()); }
  // Index into data().dmas of the DMA the ISSUE at `step` started, kNone otherwise.
  [[nodiscard]] uint32_t dma_of_step(uint64_t step) const {
    const uint32_t i = instruction_of_step(step);
    return i == kNone ? kNone : dma_of_inst_[i];
  }
  // Index into data().dmas of dma_id, kNone when absent.
  [[nodiscard]] uint32_t dma_index(uint64_t dma_id) const {
    return dma_id < dma_by_id_.size() ? dma_by_id_[dma_id] : kNone;
  }
  // Indexes into data().dependencies of the edges whose consumer is
  // instruction `index`.
  [[nodiscard]] std::span<const uint32_t> edges_into(uint32_t index) const {
    return {edges_by_consumer_.data() + edge_begin_[index], edges_by_consumer_.data() + edge_begin_[index + 1]};
  }
  // Indexes into data().dependencies of the edges whose producer is
  // instruction `index`.
  [[nodiscard]] std::span<const uint32_t> edges_from(uint32_t index) const {
    return {edges_by_producer_.data() + out_begin_[index], edges_by_producer_.data() + out_begin_[index + 1]};
  }
  // Whether the run data carries scalar-memory edges (kinds smem / hbm),
  // without which a scalar load's producer is unknown.
  [[nodiscard]] bool has_scalar_memory_edges() const { return has_scalar_memory_edges_; }
  // Registers an instruction was seen to read / write through the register
  // edges: bit r for x<r>, bit 32 + r for v<r>. Writes nobody read inside
  // the window are invisible.
  [[nodiscard]] uint64_t registers_read(uint32_t index) const { return reads_[index]; }
  [[nodiscard]] uint64_t registers_written(uint32_t index) const { return writes_[index]; }

 private:
  const rundb::RunData& data_;
  std::vector<uint32_t> inst_of_step_;
  std::vector<InstructionClass> class_;
  std::vector<std::vector<uint32_t>> chip_streams_;
  std::vector<uint32_t> position_;
  std::vector<uint32_t> dma_of_inst_;
  std::vector<uint32_t> dma_by_id_;
  std::vector<uint32_t> edge_begin_;
  std::vector<uint32_t> edges_by_consumer_;
  std::vector<uint32_t> out_begin_;
  std::vector<uint32_t> edges_by_producer_;
  std::vector<uint64_t> reads_;
  std::vector<uint64_t> writes_;
  bool has_scalar_memory_edges_ = false;
};

}  // namespace snr::analyze
