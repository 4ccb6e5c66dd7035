#include "metrics/run_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "common/error.h"

namespace snr::metrics {

uint64_t ChipMetrics::total_stall_cycles() const {
  uint64_t total = 0;
  for (uint64_t cycles : stall_cycles) total += cycles;
  return total;
}

double RunMetrics::utilization(uint32_t chip, BusyUnit unit) const {
  return chips.at(chip).profile(unit).fraction(0, total_cycles);
}

double RunMetrics::ipc(uint32_t chip) const {
  if (total_cycles == 0) return 0;
  return static_cast<double>(chips.at(chip).instructions) / static_cast<double>(total_cycles);
}

double RunMetrics::mean_utilization(BusyUnit unit) const {
  const uint32_t recorded = recorded_chip_count();
  if (recorded == 0) return 0;
  double sum = 0;
  for (uint32_t c = 0; c < chips.size(); ++c) {
    if (chips[c].recorded) sum += utilization(c, unit);
  }
  return sum / static_cast<double>(recorded);
}

uint32_t RunMetrics::recorded_chip_count() const {
  const auto recorded = std::count_if(chips.begin(), chips.end(), [](const ChipMetrics& c) { return c.recorded; });
  return static_cast<uint32_t>(recorded);
}

RunMetricsBuilder::RunMetricsBuilder(uint32_t chips, uint64_t mxu_count)
    : mxu_count_(mxu_count), chips_(chips), intervals_(chips) {}

void RunMetricsBuilder::instruction(uint32_t chip, uint64_t stall_cycles, sim::StallReason reason) {
  ChipMetrics& c = chips_.at(chip);
  ++c.instructions;
  c.stall_cycles.at(static_cast<size_t>(reason)) += stall_cycles;
}

void RunMetricsBuilder::unit_busy(uint32_t chip, BusyUnit unit, uint64_t start_cycle, uint64_t end_cycle) {
  intervals_.at(chip).add(unit, start_cycle, end_cycle);
}

void RunMetricsBuilder::dma_transfer(uint32_t issuing_chip, uint64_t bytes, uint64_t transfer_start_cycle,
                                     uint64_t transfer_end_cycle) {
  ChipMetrics& c = chips_.at(issuing_chip);
  ++c.dma_transfers;
  c.dma_bytes += bytes;
  intervals_[issuing_chip].add(BusyUnit::kDma, transfer_start_cycle, transfer_end_cycle);
}

void RunMetricsBuilder::waited_dma(uint32_t issuing_chip, WaitKey wait, const WaitedDma& dma) {
  if (issuing_chip >= chips_.size()) throw Error(fmt::format("DMA {} names chip {}", dma.dma_id, issuing_chip));
  waits_[wait].emplace_back(issuing_chip, dma);
}

RunMetrics RunMetricsBuilder::finish(uint64_t total_cycles) const {
  RunMetrics out;
  out.total_cycles = total_cycles;
  out.chips = chips_;
  for (uint32_t c = 0; c < out.chips.size(); ++c) out.chips[c].busy = intervals_[c].profiles(mxu_count_);
  std::vector<WaitedDma> consumed;
  for (const auto& [wait, members] : waits_) {
    consumed.clear();
    for (const auto& [chip, dma] : members) consumed.push_back(dma);
    split_wait_stall(consumed);
    for (size_t i = 0; i < members.size(); ++i) {
      ChipMetrics& issuer = out.chips[members[i].first];
      issuer.dma_base_stall_cycles += consumed[i].base_stall_cycles;
      issuer.dma_transfer_stall_cycles += consumed[i].transfer_stall_cycles;
      out.waited_dmas.push_back(consumed[i]);
    }
  }
  std::sort(out.waited_dmas.begin(), out.waited_dmas.end(),
            [](const WaitedDma& a, const WaitedDma& b) { return a.dma_id < b.dma_id; });
  return out;
}

RunMetrics functional_run_metrics(const sim::RunOutcome& outcome) {
  RunMetricsBuilder builder(static_cast<uint32_t>(outcome.chips.size()), 1);
  RunMetrics out = builder.finish(0);
  for (size_t c = 0; c < outcome.chips.size(); ++c) out.chips[c].instructions = outcome.chips[c].instructions;
  return out;
}

sim::StallReason stall_reason_of_name(std::string_view name) {
  for (size_t r = 0; r < kStallReasonCount; ++r) {
    const auto reason = static_cast<sim::StallReason>(r);
    if (sim::stall_reason_name(reason) == name) return reason;
  }
  throw Error(fmt::format("unknown stall reason '{}'", name));
}

std::vector<uint64_t> charged_wait_stall_cycles(const std::vector<rundb::DmaRecord>& dmas) {
  uint32_t chips = 0;
  for (const rundb::DmaRecord& dma : dmas) chips = std::max(chips, dma.chip + 1);
  RunMetricsBuilder builder(chips, 1);
  // Ids are positions in `dmas`, so the split comes back in that order.
  for (uint64_t i = 0; i < dmas.size(); ++i) {
    const rundb::DmaRecord& dma = dmas[i];
    if (!dma.waited) continue;
    builder.waited_dma(dma.chip, {dma.wait_chip, dma.wait_step},
                       {i, dma.base_done_cycle, dma.transfer_end_cycle, dma.wait_start_cycle, dma.wait_end_cycle});
  }
  std::vector<uint64_t> charged(dmas.size(), 0);
  for (const WaitedDma& dma : builder.finish(0).waited_dmas) {
    charged[dma.dma_id] = dma.base_stall_cycles + dma.transfer_stall_cycles;
  }
  return charged;
}

RunMetrics metrics_of(const rundb::RunData& data, uint64_t mxu_count, uint32_t chips) {
  for (const auto& chip : data.chips) chips = std::max(chips, chip.chip + 1);
  for (const auto& inst : data.instructions) chips = std::max(chips, inst.chip + 1);
  for (const auto& busy : data.unit_busy) chips = std::max(chips, busy.chip + 1);
  for (const auto& dma : data.dmas) chips = std::max(chips, dma.chip + 1);
  RunMetricsBuilder builder(chips, mxu_count);
  for (const auto& inst : data.instructions) {
    sim::StallReason reason = sim::StallReason::kNone;
    try {
      reason = stall_reason_of_name(inst.stall_reason);
    } catch (const Error& e) {
      throw e.with_context(fmt::format("run data: instruction step {}", inst.step));
    }
    builder.instruction(inst.chip, inst.stall_cycles, reason);
  }
  for (const auto& busy : data.unit_busy) {
    const std::optional<BusyUnit> unit = busy_unit_of_name(busy.unit);
    if (!unit) {
      throw Error(fmt::format("run data: unknown unit '{}' in unit_busy (chip {}, cycles {}..{})", busy.unit, busy.chip,
                              busy.start_cycle, busy.end_cycle));
    }
    builder.unit_busy(busy.chip, *unit, busy.start_cycle, busy.end_cycle);
  }
  for (const auto& dma : data.dmas) {
    builder.dma_transfer(dma.chip, dma.bytes, dma.transfer_start_cycle, dma.transfer_end_cycle);
    if (!dma.waited) continue;
    WaitedDma w;
    w.dma_id = dma.dma_id;
    w.base_done_cycle = dma.base_done_cycle;
    w.transfer_end_cycle = dma.transfer_end_cycle;
    w.wait_start_cycle = dma.wait_start_cycle;
    w.wait_end_cycle = dma.wait_end_cycle;
    builder.waited_dma(dma.chip, {dma.wait_chip, dma.wait_step}, w);
  }
  RunMetrics out = builder.finish(data.total_cycles);
  if (const auto recorded = rundb::recorded_chips(data, chips)) {
    for (ChipMetrics& chip : out.chips) chip.recorded = false;
    for (uint32_t chip : *recorded) out.chips[chip].recorded = true;
    for (const auto& inst : data.instructions) {
      if (!out.chips[inst.chip].recorded) {
        throw Error(fmt::format("run data: instruction step {} ran on chip {}, which meta.{} leaves out", inst.step,
                                inst.chip, rundb::kRecordedChipsKey));
      }
    }
  }
  return out;
}

}  // namespace snr::metrics
