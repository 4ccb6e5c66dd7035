#include "sim/run_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace snr::sim {
namespace {

double ratio(uint64_t part, uint64_t whole) { return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole); }

std::string_view status_name(ChipStatus status) {
  switch (status) {
    case ChipStatus::kRunning: return "running";
    case ChipStatus::kBlocked: return "blocked";
    case ChipStatus::kExited: return "exited";
    case ChipStatus::kBreak: return "ebreak";
  }
  return "?";
}

struct Utilization {
  double scalar, vector, matrix, dma;
};

Utilization utilization(const System& system, const RunOutcome& outcome, const ChipRunStats& chip) {
  const uint64_t cycles = outcome.cycles;
  return {ratio(chip.scalar_busy_cycles, cycles), ratio(chip.vector_busy_cycles, cycles),
          ratio(chip.matrix_busy_cycles, cycles * system.config().mxu_count), ratio(chip.dma_busy_cycles, cycles)};
}

}  // namespace

std::string format_run_text(const RunDescription& what, const System& system, const RunOutcome& outcome) {
  const hw::HwConfig& hw = system.config();
  const bool timing = what.mode == RunMode::kTiming;
  std::string out = fmt::format("program   {}\nsystem    {} chip(s), {}, preset {}\nmode      {}\n", what.program_name,
                                system.chip_count(), system.topology().describe(), hw.preset_name,
                                timing ? "timing (cycle-level)" : "functional");
  if (timing) {
    const double microseconds = static_cast<double>(outcome.cycles) / hw.clock.hertz * 1e6;
    out += fmt::format("cycles    {} ({:.3f} us at {})\n", outcome.cycles, microseconds, format_frequency(hw.clock));
  }
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    const ChipRunStats& s = outcome.chips[c];
    const ChipState& chip = system.chip(c);
    out += fmt::format("\nchip {}: {} instructions, {} {}", c, s.instructions, status_name(chip.status),
                       chip.status == ChipStatus::kExited ? fmt::format("(code {})", chip.exit_code) : "");
    if (!timing) {
      out += "\n";
    } else {
      out += fmt::format(", IPC {:.3f}\n", ratio(s.instructions, outcome.cycles));
      out += "  stall cycles:";
      uint64_t total = 0;
      for (size_t r = 1; r < s.stall_cycles.size(); ++r) {
        out += fmt::format(" {} {}", stall_reason_name(static_cast<StallReason>(r)), s.stall_cycles[r]);
        total += s.stall_cycles[r];
      }
      out += fmt::format(" (total {})\n", total);
      const Utilization u = utilization(system, outcome, s);
      out += fmt::format("  utilization: scalar {:.1f}%  vector {:.1f}%  matrix {:.1f}%  dma {:.1f}%\n",
                         100 * u.scalar, 100 * u.vector, 100 * u.matrix, 100 * u.dma);
      out += fmt::format("  dma: {} transfers, {} bytes\n", s.dma_count, s.dma_bytes);
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

std::string format_run_json(const RunDescription& what, const System& system, const RunOutcome& outcome) {
  nlohmann::json root;
  root["program"] = what.program_name;
  root["mode"] = what.mode == RunMode::kTiming ? "timing" : "functional";
  root["preset"] = system.config().preset_name;
  root["topology"] = system.topology().describe();
  root["cycles"] = outcome.cycles;
  nlohmann::json chips = nlohmann::json::array();
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    const ChipRunStats& s = outcome.chips[c];
    const ChipState& chip = system.chip(c);
    nlohmann::json j;
    j["chip"] = c;
    j["status"] = status_name(chip.status);
    j["exit_code"] = chip.exit_code;
    j["instructions"] = s.instructions;
    j["console"] = chip.console;
    if (what.mode == RunMode::kTiming) {
      j["ipc"] = ratio(s.instructions, outcome.cycles);
      nlohmann::json stalls;
      for (size_t r = 1; r < s.stall_cycles.size(); ++r) stalls[std::string(stall_reason_name(static_cast<StallReason>(r)))] = s.stall_cycles[r];
      j["stall_cycles"] = stalls;
      const Utilization u = utilization(system, outcome, s);
      j["utilization"] = {{"scalar", u.scalar}, {"vector", u.vector}, {"matrix", u.matrix}, {"dma", u.dma}};
      j["dma"] = {{"transfers", s.dma_count}, {"bytes", s.dma_bytes}};
    }
    chips.push_back(std::move(j));
  }
  root["chips"] = std::move(chips);
  // Console bytes need not be UTF-8; replace invalid sequences rather than fail.
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace snr::sim
