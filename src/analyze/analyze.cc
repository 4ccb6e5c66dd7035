// analyze(): builds the shared index, runs every analysis in dependency
// order (stalls -> dependencies -> VMEM -> suggestions) and fills the
// per-op table and the summary.
#include "analyze/analyze.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "analyze/dependencies.h"
#include "analyze/dma_stalls.h"
#include "analyze/run_index.h"
#include "analyze/suggestions.h"
#include "analyze/utilization.h"
#include "analyze/vmem_usage.h"
#include "common/error.h"
#include "hw/config.h"
#include "metrics/run_metrics.h"

namespace snr::analyze {
namespace {

struct Hardware {
  double clock_hz = 1e9;
  uint64_t mxu_count = 1;
  uint64_t dma_max_outstanding = 0;  // 0: unlimited
  VmemGeometry vmem;
  std::string preset;
};

std::string meta_value(const rundb::RunData& data, std::string_view key) {
  for (const auto& [k, v] : data.meta) {
    if (k == key) return v;
  }
  return {};
}

// The replay's hardware; hand-built run data without a config gets one
// matrix unit, a 1 GHz clock and the default VMEM shape.
Hardware hardware_of(const rundb::RunData& data) {
  Hardware hw;
  if (!data.hw_config_yaml.empty()) {
    const hw::HwConfig config = hw::parse_config_yaml(data.hw_config_yaml, "run data hw_config");
    hw.clock_hz = config.clock.hertz;
    hw.mxu_count = std::max<uint64_t>(config.mxu_count, 1);
    hw.dma_max_outstanding = config.dma_max_outstanding;
    hw.vmem = {config.vmem_page_bytes.count, config.vmem_pages_per_block, config.vmem_blocks};
    hw.preset = config.preset_name;
  }
  const std::string clock = meta_value(data, "clock_hz");
  if (!clock.empty()) {
    try {
      hw.clock_hz = std::stod(clock);
    } catch (const std::exception&) {
      throw Error(fmt::format("run data: meta.clock_hz is '{}', expected a number", clock));
    }
  }
  const std::string preset = meta_value(data, "hw_preset");
  if (!preset.empty()) hw.preset = preset;
  if (hw.vmem.page_bytes == 0 || hw.vmem.pages() == 0) throw Error("run data: VMEM has no pages");
  return hw;
}

// FLOPs of one instruction from its mnemonic: a matrix push multiplies an
// 8x128 tile by 128x128 weights (2 FLOPs per MAC); f32 vector arithmetic
// works on 8x128 lanes, a fused multiply-add counts twice.
uint64_t flops_of(std::string_view mnemonic) {
  if (mnemonic == "mxu.mul") return 2ull * 8 * 128 * 128;
  if (mnemonic == "vfma.f32") return 2ull * 8 * 128;
  if (mnemonic.size() > 4 && mnemonic.ends_with(".f32") && !mnemonic.starts_with("vcvt") &&
      !mnemonic.starts_with("vcmp") && mnemonic.starts_with("v")) {
    return 8ull * 128;
  }
  return 0;
}

std::vector<OpRow> op_rows(const RunIndex& index, const std::vector<DmaStall>& dmas,
                           const std::vector<std::vector<BusyProfile>>& profiles, double clock_hz) {
  const auto& data = index.data();
  std::map<std::pair<uint32_t, uint32_t>, OpRow> rows;
  auto row_of = [&](uint32_t chip, uint32_t op) -> OpRow& {
    OpRow& r = rows[{chip, op}];
    if (r.instructions == 0 && r.op.empty()) {
      r.chip = chip;
      r.op = data.op_names.at(op);
      r.first_cycle = UINT64_MAX;
    }
    return r;
  };
  for (uint32_t i = 0; i < data.instructions.size(); ++i) {
    const auto& inst = data.instructions[i];
    OpRow& r = row_of(inst.chip, inst.op);
    ++r.instructions;
    r.first_cycle = std::min(r.first_cycle, inst.issue_cycle);
    r.last_cycle = std::max(r.last_cycle, inst.issue_cycle + 1);
    r.cycles += inst.stall_cycles + 1;
    r.stall_cycles += inst.stall_cycles;
    r.flops += flops_of(inst.mnemonic);
  }
  // The WAIT stall charged to DMAs (docs/analyzer.md), booked to the op of
  // the WAIT that consumed them, so the ops add up to the summary's total.
  for (const DmaStall& d : dmas) {
    const uint32_t wait_index = d.wait_step ? index.instruction_of_step(*d.wait_step) : RunIndex::kNone;
    if (wait_index == RunIndex::kNone) continue;
    const auto& wait = index.instruction(wait_index);
    row_of(wait.chip, wait.op).dma_stall_cycles += d.base_stall_cycles + d.transfer_stall_cycles;
  }
  for (const DmaStall& d : dmas) {
    if (d.src_space != "hbm" && d.dst_space != "hbm") continue;
    const uint32_t issue = index.instruction_of_step(d.issue_step);
    row_of(d.chip, index.instruction(issue).op).hbm_bytes += d.bytes;
  }
  std::vector<OpRow> out;
  for (auto& [key, r] : rows) {
    if (r.first_cycle == UINT64_MAX) r.first_cycle = r.last_cycle;
    const double seconds = static_cast<double>(r.cycles) / clock_hz;
    if (seconds > 0) {
      r.hbm_bandwidth_bytes_per_s = static_cast<double>(r.hbm_bytes) / seconds;
      r.achieved_flops_per_s = static_cast<double>(r.flops) / seconds;
    }
    if (r.chip < profiles.size()) {
      for (size_t u = 0; u < profiles[r.chip].size(); ++u) {
        r.unit_utilization[utilization_units()[u]] = profiles[r.chip][u].fraction(r.first_cycle, r.last_cycle);
      }
    }
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const OpRow& a, const OpRow& b) {
    return std::tie(a.chip, a.first_cycle) < std::tie(b.chip, b.first_cycle);
  });
  return out;
}

Summary summarize(const rundb::RunData& data, const Hardware& hw, const metrics::RunMetrics& run) {
  Summary s;
  s.source = meta_value(data, "source");
  s.hw_preset = hw.preset;
  s.clock_hz = hw.clock_hz;
  s.machine_chips = static_cast<uint32_t>(run.chips.size());
  for (uint32_t c = 0; c < run.chips.size(); ++c) {
    if (run.chips[c].recorded) s.recorded_chips.push_back(c);
  }
  s.chips = static_cast<uint32_t>(s.recorded_chips.size());
  s.total_cycles = data.total_cycles;
  for (const metrics::ChipMetrics& chip : run.chips) {
    s.instructions += chip.instructions;
    s.stall_cycles += chip.total_stall_cycles();
    for (size_t r = 0; r < chip.stall_cycles.size(); ++r) {
      if (chip.stall_cycles[r] == 0) continue;
      s.stall_cycles_by_reason[std::string(sim::stall_reason_name(static_cast<sim::StallReason>(r)))] +=
          chip.stall_cycles[r];
    }
    s.dma_base_stall_cycles += chip.dma_base_stall_cycles;
    s.dma_transfer_stall_cycles += chip.dma_transfer_stall_cycles;
  }
  s.dma_stall_cycles = s.dma_base_stall_cycles + s.dma_transfer_stall_cycles;
  for (metrics::BusyUnit unit : metrics::kBusyUnits) {
    s.unit_utilization[std::string(metrics::busy_unit_name(unit))] = run.mean_utilization(unit);
  }
  return s;
}

uint64_t spacing(uint64_t fixed, uint64_t total_cycles, uint64_t target_points) {
  if (fixed != 0) return fixed;
  target_points = std::max<uint64_t>(target_points, 1);
  return std::max<uint64_t>((total_cycles + target_points - 1) / target_points, 1);
}

}  // namespace

std::string_view suggestion_kind_name(Suggestion::Kind kind) {
  switch (kind) {
    case Suggestion::Kind::kIssueEarlier: return "issue_earlier";
    case Suggestion::Kind::kParallelChainHeads: return "parallel_chain_heads";
  }
  return "unknown";
}

Analysis analyze(const rundb::RunData& data, const AnalyzeOptions& options) {
  const Hardware hw = hardware_of(data);
  const RunIndex index(data);
  Analysis a;
  a.dmas = dma_stalls(index);
  const DependencyResult deps = analyze_dependencies(index, a.dmas);
  a.dma_dependencies = deps.edges;
  a.chains = deps.chains;
  a.stalls_by_op = group_stalls(a.dmas, [](const DmaStall& d) { return fmt::format("chip{}:{}", d.chip, d.op); });
  a.stalls_by_link = group_stalls(a.dmas, [](const DmaStall& d) { return d.link; });

  const metrics::RunMetrics run = metrics::metrics_of(data, hw.mxu_count, index.chip_count());
  std::vector<std::vector<BusyProfile>> profiles;
  for (const metrics::ChipMetrics& chip : run.chips) profiles.push_back(chip.busy);
  a.utilization = utilization_series(profiles, data.total_cycles,
                                     spacing(options.window_cycles, data.total_cycles, options.target_points));
  std::erase_if(a.utilization, [&run](const UtilizationSeries& s) { return !run.chips.at(s.chip).recorded; });
  a.ops = op_rows(index, a.dmas, profiles, hw.clock_hz);
  a.summary = summarize(data, hw, run);

  const VmemTimeline vmem(index, hw.vmem);
  const uint64_t sample = spacing(options.vmem_sample_cycles, data.total_cycles, options.target_points);
  const uint64_t max_rows = std::max<uint64_t>(options.max_heatmap_rows, 1);
  const uint64_t merge = (hw.vmem.blocks + max_rows - 1) / max_rows;
  for (uint32_t c = 0; c < index.chip_count(); ++c) {
    if (c < run.chips.size() && !run.chips[c].recorded) continue;
    a.vmem.push_back(vmem.usage(c, data.total_cycles, sample, hw.vmem.pages_per_block * std::max<uint64_t>(merge, 1)));
  }
  // Chip 0 may be outside a subset recording: suggest on a chip that ran.
  AnalyzeOptions suggestion_options = options;
  const uint32_t asked = suggestion_options.suggestion_chip;
  if (asked < run.chips.size() && !run.chips[asked].recorded && !a.summary.recorded_chips.empty()) {
    suggestion_options.suggestion_chip = a.summary.recorded_chips.front();
  }
  a.suggestions = suggest({index, a.dmas, deps, vmem, hw.dma_max_outstanding}, suggestion_options);
  return a;
}

}  // namespace snr::analyze
