// Hand-built run data for the analyzer's unit tests: instructions, DMAs,
// dependency edges and VMEM runs with exactly the cycles a test states, so
// expected results can be computed by hand.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>
#include <string_view>

#include "formats/rundb/run_data.h"

namespace snr::analyze::testing {

class RunBuilder {
 public:
  RunBuilder() { data_.op_names = {""}; }

  // Appends an instruction of `chip` (the next step); mnemonic and reason
  // must be static text (literals). Returns its step.
  uint64_t inst(uint32_t chip, uint64_t pc, const std::string& op, std::string_view mnemonic, uint64_t issue_cycle,
                uint64_t stall_cycles = 0, std::string_view reason = "none") {
    rundb::InstructionRecord r;
    r.step = data_.instructions.size();
    r.chip = chip;
    r.chip_index = chip_index(chip)++;
    r.pc = pc;
    r.op = op_index(op);
    r.mnemonic = mnemonic;
    r.issue_cycle = issue_cycle;
    r.complete_cycle = issue_cycle + 1;
    r.stall_cycles = stall_cycles;
    r.stall_reason = stall_cycles > 0 && reason == "none" ? std::string_view("semaphore-wait") : reason;
    data_.instructions.push_back(r);
    return r.step;
  }

  // A DMA issued at step `issue_step`; cycles as in Figure 4.
  rundb::DmaRecord& dma(uint64_t issue_step, uint64_t bytes, uint64_t issue, uint64_t base_done, uint64_t transfer_start,
                        uint64_t transfer_end) {
    const auto& inst = data_.instructions.at(issue_step);
    rundb::DmaRecord d;
    d.dma_id = data_.dmas.size();
    d.chip = inst.chip;
    d.issue_step = issue_step;
    d.pc = inst.pc;
    d.src_chip = d.dst_chip = inst.chip;
    d.src_space = "hbm";
    d.dst_space = "vmem";
    d.src_address = 0x1'0000'0000;
    d.dst_address = 0x1000'0000;
    d.bytes = bytes;
    d.link = "chip" + std::to_string(inst.chip) + ".hbm->chip" + std::to_string(inst.chip) + ".vmem";
    d.issue_cycle = issue;
    d.base_done_cycle = base_done;
    d.transfer_start_cycle = transfer_start;
    d.transfer_end_cycle = transfer_end;
    data_.dmas.push_back(d);
    return data_.dmas.back();
  }

  // The WAIT at `wait_step` consumed `dma_id`; adds the dma edge too.
  void waited(uint64_t dma_id, uint64_t wait_step, uint64_t wait_start, uint64_t wait_end) {
    rundb::DmaRecord& d = data_.dmas.at(dma_id);
    d.waited = true;
    d.wait_chip = data_.instructions.at(wait_step).chip;
    d.wait_step = wait_step;
    d.wait_start_cycle = wait_start;
    d.wait_end_cycle = wait_end;
    edge(d.issue_step, wait_step, "dma", d.chip, dma_id, dma_id);
  }

  void edge(uint64_t producer, uint64_t consumer, std::string_view kind, uint32_t chip, uint64_t first,
            uint64_t last) {
    data_.dependencies.push_back({producer, consumer, kind, chip, first, last});
  }
  void reg(uint64_t producer, uint64_t consumer, uint64_t x) {
    edge(producer, consumer, "x", data_.instructions.at(consumer).chip, x, x);
  }

  void vmem(uint32_t chip, uint64_t first_page, uint64_t last_page, bool is_write, uint64_t first_cycle,
            uint64_t last_cycle) {
    data_.vmem_runs.push_back({chip, first_page, last_page, is_write, first_cycle, last_cycle, 1});
  }
  void busy(uint32_t chip, const std::string& unit, uint64_t start, uint64_t end) {
    data_.unit_busy.push_back({chip, unit, start, end, 0, 1});
  }

  // Small VMEM (8 pages of 512 B in blocks of 4) unless a test sets its own.
  void hw_yaml(std::string yaml) { data_.hw_config_yaml = std::move(yaml); }

  rundb::RunData build(uint64_t total_cycles = 0) {
    rundb::RunData out = data_;
    uint32_t chips = 0;
    for (const auto& r : out.instructions) chips = std::max(chips, r.chip + 1);
    out.chips.clear();
    for (uint32_t c = 0; c < chips; ++c) out.chips.push_back({c, 0, 0, 0, 0});
    uint64_t total = total_cycles;
    for (const auto& r : out.instructions) {
      auto& chip = out.chips[r.chip];
      ++chip.instructions;
      chip.last_cycle = std::max(chip.last_cycle, r.issue_cycle + 1);
      chip.stall_cycles += r.stall_cycles;
      total = std::max(total, r.issue_cycle + 1);
    }
    out.total_cycles = total;
    if (out.hw_config_yaml.empty()) {
      out.hw_config_yaml = "clock: 1GHz\nchips: " + std::to_string(std::max(chips, 1u)) +
                           "\nvmem.page_bytes: 512B\nvmem.pages_per_block: 4\nvmem.blocks: 2\nmxu.count: 1\n";
    }
    return out;
  }

 private:
  uint64_t& chip_index(uint32_t chip) {
    if (chip >= chip_index_.size()) chip_index_.resize(chip + 1, 0);
    return chip_index_[chip];
  }
  uint32_t op_index(const std::string& op) {
    for (uint32_t i = 0; i < data_.op_names.size(); ++i) {
      if (data_.op_names[i] == op) return i;
    }
    data_.op_names.push_back(op);
    return static_cast<uint32_t>(data_.op_names.size() - 1);
  }

  rundb::RunData data_;
  std::vector<uint64_t> chip_index_;
};

// The all-gather setup shape on chip 0, op "setup": `chains` chains of
// `levels` DMAs each, one chain after the other. A head's address comes
// from a `lui`; a later DMA's address is loaded (`ld`) from the SMEM its
// predecessor wrote, after the predecessor's WAIT. Every DMA: issue at t,
// base latency done at t+490, transfer t+490..t+500; its WAIT starts at t+1
// and stalls 499 cycles (489 base, 10 transfer). Each instruction takes
// one cycle otherwise. With `smem_edges` the ld's memory edge is recorded.
struct ChainLayout {
  std::vector<std::vector<uint64_t>> issue_steps;  // [chain][level]
  std::vector<std::vector<uint64_t>> wait_steps;
  std::vector<std::vector<uint64_t>> load_steps;   // [chain][level], level 0 = the lui
  std::vector<std::vector<uint64_t>> dma_ids;
};

// With `distinct_registers` chain c computes its address in x(7+c),
// otherwise every chain reuses x7.
inline ChainLayout build_chains(RunBuilder& b, uint32_t chains, uint32_t levels, bool smem_edges,
                                bool distinct_registers = false) {
  const uint64_t first_pc = 0x1000, first_cycle = 0;
  ChainLayout layout;
  uint64_t pc = first_pc;
  uint64_t t = first_cycle;
  for (uint32_t c = 0; c < chains; ++c) {
    layout.issue_steps.emplace_back();
    layout.wait_steps.emplace_back();
    layout.load_steps.emplace_back();
    layout.dma_ids.emplace_back();
    for (uint32_t l = 0; l < levels; ++l) {
      const uint64_t address = l == 0 ? b.inst(0, pc, "setup", "lui", t) : b.inst(0, pc, "setup", "ld", t);
      pc += 4;
      ++t;
      if (l > 0 && smem_edges) {
        const uint64_t previous = layout.issue_steps[c][l - 1];
        b.edge(previous, address, "smem", 0, 0x8000 + 64 * c, 0x8000 + 64 * c + 7);
      }
      const uint64_t issue = b.inst(0, pc, "setup", "dma.issue", t);
      pc += 4;
      b.reg(address, issue, distinct_registers ? 7 + c : 7);
      rundb::DmaRecord& d = b.dma(issue, 64, t, t + 490, t + 490, t + 500);
      d.dst_space = "smem";
      d.link = "chip0.hbm->chip0.smem";
      d.semaphore = 3;
      const uint64_t wait = b.inst(0, pc, "setup", "sem.wait", t + 500, 499);
      pc += 4;
      b.waited(d.dma_id, wait, t + 1, t + 500);
      layout.load_steps[c].push_back(address);
      layout.issue_steps[c].push_back(issue);
      layout.wait_steps[c].push_back(wait);
      layout.dma_ids[c].push_back(d.dma_id);
      t += 501;
    }
  }
  return layout;
}

}  // namespace snr::analyze::testing
