#include "metrics/run_report.h"

#include <fmt/format.h>

#include <array>

#include <nlohmann/json.hpp>

namespace snr::metrics {
namespace {

std::string_view status_name(sim::ChipStatus status) {
  switch (status) {
    case sim::ChipStatus::kRunning: return "running";
    case sim::ChipStatus::kBlocked: return "blocked";
    case sim::ChipStatus::kExited: return "exited";
    case sim::ChipStatus::kBreak: return "ebreak";
  }
  return "?";
}

// The text line's order, scalar first as it always was.
constexpr std::array<BusyUnit, kBusyUnitCount> kReportOrder = {BusyUnit::kScalar, BusyUnit::kVector, BusyUnit::kMatrix,
                                                               BusyUnit::kDma};

}  // namespace

std::string format_chip_metrics(const RunMetrics& metrics, uint32_t chip) {
  const ChipMetrics& s = metrics.chips.at(chip);
  std::string out = "  stall cycles:";
  for (size_t r = 1; r < s.stall_cycles.size(); ++r) {
    out += fmt::format(" {} {}", sim::stall_reason_name(static_cast<sim::StallReason>(r)), s.stall_cycles[r]);
  }
  out += fmt::format(" (total {})\n", s.total_stall_cycles());
  out += "  utilization:";
  for (BusyUnit unit : kReportOrder) {
    out += fmt::format(" {} {:.1f}% ", busy_unit_name(unit), 100 * metrics.utilization(chip, unit));
  }
  out.back() = '\n';
  out += fmt::format("  dma: {} transfers, {} bytes; WAIT stall on them: base latency {}, transfer {}\n",
                     s.dma_transfers, s.dma_bytes, s.dma_base_stall_cycles, s.dma_transfer_stall_cycles);
  return out;
}

std::string format_run_text(const RunDescription& what, const sim::System& system, const RunMetrics& metrics) {
  const hw::HwConfig& hw = system.config();
  const bool timing = what.mode == RunMode::kTiming;
  std::string out = fmt::format("program   {}\nsystem    {} chip(s), {}, preset {}\nmode      {}\n", what.program_name,
                                system.chip_count(), system.topology().describe(), hw.preset_name,
                                timing ? "timing (cycle-level)" : "functional");
  if (timing) {
    const double microseconds = static_cast<double>(metrics.total_cycles) / hw.clock.hertz * 1e6;
    out += fmt::format("cycles    {} ({:.3f} us at {})\n", metrics.total_cycles, microseconds, format_frequency(hw.clock));
  }
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    const ChipMetrics& s = metrics.chips.at(c);
    const sim::ChipState& chip = system.chip(c);
    out += fmt::format("\nchip {}: {} instructions, {} {}", c, s.instructions, status_name(chip.status),
                       chip.status == sim::ChipStatus::kExited ? fmt::format("(code {})", chip.exit_code) : "");
    if (!timing) {
      out += "\n";
    } else {
      out += fmt::format(", IPC {:.3f}\n", metrics.ipc(c));
      out += format_chip_metrics(metrics, c);
    }
    if (!chip.console.empty()) {
      out += fmt::format("  console:\n");
      std::string_view text = chip.console;
      while (!text.empty()) {
        const size_t end = text.find('\n');
        out += fmt::format("    | {}\n", text.substr(0, end));
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
      }
    }
  }
  return out;
}

std::string format_run_json(const RunDescription& what, const sim::System& system, const RunMetrics& metrics) {
  nlohmann::json root;
  root["program"] = what.program_name;
  root["mode"] = what.mode == RunMode::kTiming ? "timing" : "functional";
  root["preset"] = system.config().preset_name;
  root["topology"] = system.topology().describe();
  root["cycles"] = metrics.total_cycles;
  nlohmann::json chips = nlohmann::json::array();
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    const ChipMetrics& s = metrics.chips.at(c);
    const sim::ChipState& chip = system.chip(c);
    nlohmann::json j;
    j["chip"] = c;
    j["status"] = status_name(chip.status);
    j["exit_code"] = chip.exit_code;
    j["instructions"] = s.instructions;
    j["console"] = chip.console;
    if (what.mode == RunMode::kTiming) {
      j["ipc"] = metrics.ipc(c);
      nlohmann::json stalls;
      for (size_t r = 1; r < s.stall_cycles.size(); ++r) {
        stalls[std::string(sim::stall_reason_name(static_cast<sim::StallReason>(r)))] = s.stall_cycles[r];
      }
      j["stall_cycles"] = stalls;
      nlohmann::json utilization;
      for (BusyUnit unit : kBusyUnits) utilization[std::string(busy_unit_name(unit))] = metrics.utilization(c, unit);
      j["utilization"] = std::move(utilization);
      j["dma"] = {{"transfers", s.dma_transfers},
                  {"bytes", s.dma_bytes},
                  {"base_stall_cycles", s.dma_base_stall_cycles},
                  {"transfer_stall_cycles", s.dma_transfer_stall_cycles}};
    }
    chips.push_back(std::move(j));
  }
  root["chips"] = std::move(chips);
  // Console bytes need not be UTF-8; replace invalid sequences rather than fail.
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace snr::metrics
