#include "metrics/model_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "compiler/artifacts.h"
#include "metrics/collector.h"
#include "metrics/model_run.h"
#include "sim/timing.h"

namespace snr::metrics {
double RunProfile::matrix_utilization() const { return metrics.mean_utilization(BusyUnit::kMatrix); }

double RunProfile::op_matrix_utilization(size_t op) const {
  const OpProfile& p = ops.at(op);
  if (p.cycles <= 0 || mxu_count == 0) return 0;
  return p.matrix_busy_cycles / (p.cycles * mxu_count);
}

LivenessWindow layer_window(const compiler::ModelImage& image) {
  bool has_layer1 = false, has_layer2 = false;
  for (const compiler::OpInfo& op : image.ops) {
    has_layer1 = has_layer1 || op.name.starts_with("layer1.");
    has_layer2 = has_layer2 || op.name.starts_with("layer2.");
  }
  LivenessWindow w;
  w.begin_op = has_layer1 ? "layer1.attn.rmsnorm" : "layer0.attn.rmsnorm";
  w.end_op = has_layer2 ? "layer2.attn.rmsnorm" : "store_output";
  return w;
}

RunProfile profile_model(const compiler::ModelImage& image, uint64_t max_cycles,
                         const std::optional<LivenessWindow>& vmem_window) {
  sim::System system(system_config(image));
  install(image, system);
  const uint32_t chips = system.chip_count();
  RunProfile profile;
  profile.chips = chips;
  profile.clock_hz = system.config().clock.hertz;
  profile.mxu_count = static_cast<uint32_t>(system.config().mxu_count);
  profile.ops.resize(image.ops.size());
  for (size_t i = 0; i < image.ops.size(); ++i) {
    const compiler::OpInfo& op = image.ops[i];
    profile.ops[i] = {op.name, op.kind, 0, (op.pc_end - op.pc_begin) / 4, op.flops, op.hbm_bytes, op.network_bytes, 0};
  }
  std::vector<std::vector<uint64_t>> op_cycles(chips, std::vector<uint64_t>(image.ops.size()));
  std::vector<std::vector<uint64_t>> op_matrix(chips, std::vector<uint64_t>(image.ops.size()));
  std::vector<uint64_t> last_issue(chips, 0);
  // Chip 0's DMAs, and for the address-dependency tracking: which DMA
  // last wrote each scalar register through a load from its destination.
  std::map<uint64_t, size_t> record_by_id;
  std::array<int64_t, 32> register_from_dma{};
  register_from_dma.fill(-1);
  bool pending_dma = false;
  DmaRecord pending;
  // VMEM liveness window on chip 0, delimited by op indices.
  std::optional<compiler::VmemLivenessTracker> liveness;
  int window_begin = -1, window_end = -1;
  if (vmem_window) {
    for (size_t i = 0; i < image.ops.size(); ++i) {
      if (image.ops[i].name == vmem_window->begin_op) window_begin = static_cast<int>(i);
      if (image.ops[i].name == vmem_window->end_op) window_end = static_cast<int>(i);
    }
    if (window_begin < 0) throw Error(fmt::format("liveness window: no op {}", vmem_window->begin_op));
    if (!vmem_window->end_op.empty() && window_end < 0) {
      throw Error(fmt::format("liveness window: no op {}", vmem_window->end_op));
    }
    const hw::HwConfig& hw = system.config();
    const uint64_t page_bytes = hw.vmem_page_bytes.count;
    liveness.emplace(hw.vmem_bytes() / page_bytes);
    system.bus().memory.subscribe([&liveness, page_bytes](const sim::MemoryAccess& e) {
      if (e.chip != 0 || e.memory != sim::MemoryKind::kVmem || e.row_bytes == 0 || !liveness->recording()) return;
      for (uint64_t r = 0; r < e.rows; ++r) {
        const uint64_t start = e.offset + r * e.stride;
        for (uint64_t page = start / page_bytes; page <= (start + e.row_bytes - 1) / page_bytes; ++page) {
          liveness->access(e.cycle, page, e.is_write);
        }
      }
    });
  }

  sim::EventBus& bus = system.bus();
  MetricsCollector collector(bus, chips, profile.mxu_count);
  bus.instruction_issued.subscribe([&](const sim::InstructionIssued& e) {
    const int op = image.op_at(e.pc);
    if (op >= 0) op_cycles[e.chip][static_cast<size_t>(op)] += e.cycle - last_issue[e.chip];
    last_issue[e.chip] = e.cycle;
    if (e.chip != 0) return;
    if (liveness) {
      if (op == window_begin) liveness->start(e.cycle);
      if (op == window_end && window_end >= 0) liveness->stop(e.cycle);
    }
    const isa::DecodedInstruction& d = *e.instruction;
    const sim::ChipState& chip = system.chip(0);
    if (d.opcode == isa::Opcode::kDmaIssue || d.opcode == isa::Opcode::kDmaIssue2d) {
      pending = DmaRecord{};
      pending.pc = e.pc;
      pending.op = op;
      pending.src = chip.x[d.rs1];
      pending.dst = chip.x[d.rs2];
      pending.bytes = d.opcode == isa::Opcode::kDmaIssue ? chip.x[d.rs3]
                                                         : (chip.x[d.rs3] >> 32) * (chip.x[d.rs3] & 0xffffffffu);
      pending.address_from = register_from_dma[d.rs1];
      pending_dma = true;
      return;
    }
    if (d.row != nullptr && d.row->effect == isa::Effect::kLoad && d.rd != 0) {
      const uint64_t address = chip.x[d.rs1] + static_cast<uint64_t>(d.imm);
      register_from_dma[d.rd] = -1;
      for (size_t i = profile.dmas.size(); i-- > 0;) {
        const DmaRecord& r = profile.dmas[i];
        if (address >= r.dst && address < r.dst + r.bytes) {
          register_from_dma[d.rd] = static_cast<int64_t>(i);
          break;
        }
      }
      return;
    }
    // Any other write to a register ends its link to a DMA.
    const sim::RegisterUse& use = system.register_use(e.instruction);
    for (int r = 1; r < 32; ++r) {
      if (use.x_writes & (1u << r)) register_from_dma[static_cast<size_t>(r)] = -1;
    }
  });
  bus.unit_busy.subscribe([&](const sim::UnitBusy& e) {
    if (e.unit != isa::Unit::kMatrix) return;
    const int op = image.op_at(e.pc);
    if (op >= 0) op_matrix[e.chip][static_cast<size_t>(op)] += e.end_cycle - e.start_cycle;
  });
  bus.dma.subscribe([&](const sim::DmaEvent& e) {
    if (e.chip != 0) return;
    if (e.phase == sim::DmaPhase::kIssued) {
      DmaRecord r = pending_dma && pending.pc == e.pc ? pending : DmaRecord{};
      pending_dma = false;
      r.dma_id = e.dma_id;
      r.pc = e.pc;
      r.issue = e.cycle;
      r.src_memory = e.src_memory;
      r.dst_memory = e.dst_memory;
      if (r.bytes == 0) r.bytes = e.bytes;
      record_by_id[e.dma_id] = profile.dmas.size();
      profile.dmas.push_back(r);
      return;
    }
    auto it = record_by_id.find(e.dma_id);
    if (it == record_by_id.end()) return;
    DmaRecord& r = profile.dmas[it->second];
    switch (e.phase) {
      case sim::DmaPhase::kBaseLatencyDone: r.base_done = e.cycle; break;
      case sim::DmaPhase::kTransferStart: r.transfer_start = e.cycle; break;
      case sim::DmaPhase::kTransferEnd: r.transfer_end = e.cycle; break;
      case sim::DmaPhase::kWaitStart: r.wait_start = e.cycle; break;
      case sim::DmaPhase::kWaitEnd: r.wait_end = e.cycle; break;
      case sim::DmaPhase::kIssued: break;
    }
  });
  const sim::RunOutcome outcome = sim::TimingSimulator(system).run(max_cycles);
  for (uint32_t c = 0; c < chips; ++c) {
    if (system.chip(c).exit_code != 0) {
      throw Error(fmt::format("chip {} exited with code {}", c, system.chip(c).exit_code));
    }
  }
  profile.cycles = outcome.cycles;
  profile.metrics = collector.finish(outcome.cycles);
  if (liveness) profile.vmem_liveness = liveness->finish(vmem_window->samples);
  for (const ChipMetrics& chip : profile.metrics.chips) profile.instructions_per_chip.push_back(chip.instructions);
  for (const WaitedDma& charge : profile.metrics.waited_dmas) {
    auto it = record_by_id.find(charge.dma_id);
    if (it == record_by_id.end()) continue;  // another chip's DMA
    profile.dmas[it->second].base_stall_cycles = charge.base_stall_cycles;
    profile.dmas[it->second].transfer_stall_cycles = charge.transfer_stall_cycles;
  }
  for (size_t i = 0; i < image.ops.size(); ++i) {
    for (uint32_t c = 0; c < chips; ++c) {
      profile.ops[i].cycles += static_cast<double>(op_cycles[c][i]) / chips;
      profile.ops[i].matrix_busy_cycles += static_cast<double>(op_matrix[c][i]) / chips;
    }
  }
  return profile;
}

std::string format_profile(const RunProfile& p) {
  std::string out = fmt::format("{:<34} {:<16} {:>12} {:>7} {:>11} {:>10} {:>8}\n", "op", "kind", "time (us)", "%",
                                "GFLOP/s", "HBM GB/s", "MXU %");
  double total_cycles = 0;
  for (const OpProfile& op : p.ops) total_cycles += op.cycles;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const OpProfile& op = p.ops[i];
    const double seconds = op.cycles / p.clock_hz;
    const double gflops = seconds > 0 ? static_cast<double>(op.flops) / seconds / 1e9 : 0;
    const double gbps = seconds > 0 ? static_cast<double>(op.hbm_bytes) / seconds / 1e9 : 0;
    out += fmt::format("{:<34} {:<16} {:>12.3f} {:>6.1f}% {:>11.1f} {:>10.1f} {:>7.1f}%\n", op.name, op.kind,
                       seconds * 1e6, total_cycles > 0 ? 100.0 * op.cycles / total_cycles : 0.0, gflops, gbps,
                       100.0 * p.op_matrix_utilization(i));
  }
  const double seconds = static_cast<double>(p.cycles) / p.clock_hz;
  out += fmt::format("step: {} cycles = {:.3f} us on {} chips; matrix-unit utilization {:.1f}%; instructions/chip {}\n",
                     p.cycles, seconds * 1e6, p.chips, 100.0 * p.matrix_utilization(),
                     p.instructions_per_chip.empty() ? 0 : p.instructions_per_chip[0]);
  return out;
}

std::string format_profile_json(const RunProfile& p) {
  nlohmann::json j;
  j["cycles"] = p.cycles;
  j["clock_hz"] = p.clock_hz;
  j["chips"] = p.chips;
  j["matrix_utilization"] = p.matrix_utilization();
  j["instructions_per_chip"] = p.instructions_per_chip;
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const OpProfile& op = p.ops[i];
    ops.push_back({{"name", op.name},
                   {"kind", op.kind},
                   {"cycles", op.cycles},
                   {"instructions", op.instructions},
                   {"flops", op.flops},
                   {"hbm_bytes", op.hbm_bytes},
                   {"network_bytes", op.network_bytes},
                   {"matrix_utilization", p.op_matrix_utilization(i)}});
  }
  j["ops"] = std::move(ops);
  return j.dump(1) + "\n";
}

std::string run_compiled_model(const std::string& directory, const std::vector<std::string>& hardware_overrides,
                               bool json, uint64_t max_cycles) {
  compiler::ModelImage image = compiler::read_compiled_model(directory);
  hw::apply_overrides(image.hw, hardware_overrides);
  const RunProfile profile = profile_model(image, max_cycles);
  if (json) return format_profile_json(profile);
  std::string out = fmt::format("{}: {} chips, {} ops, compiled from {}\n", directory, image.chips(),
                                image.ops.size(), image.name);
  if (image.layer_instructions > 0) {
    out += fmt::format("one layer's window: {} instructions per chip\n", image.layer_instructions);
  }
  return out + format_profile(profile);
}

}  // namespace snr::metrics
