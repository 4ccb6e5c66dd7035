#include "pathfind/inputs/device_writer.h"

#include <fmt/format.h>

#include <cmath>

namespace snr::pathfind {
namespace {

// Shortest text that reads back to the same double.
std::string num(double v) { return fmt::format("{}", v); }
std::string picoseconds(double s) { return fmt::format("{}ps", std::llround(s * 1e12)); }

}  // namespace

std::string format_device_yaml(const DeviceSpec& d) {
  std::string out = "device:\n";
  out += fmt::format("  name: \"{}\"\n", d.name);
  out += "  mcu:\n";
  out += fmt::format("    rows: {}\n    cols: {}\n    per_bundle: {}\n", d.mcu_rows, d.mcu_cols, d.mcus_per_bundle);
  out += fmt::format("    dataflow: {}\n    max_utilization: {}\n", dataflow_name(d.dataflow), num(d.max_utilization));
  out += fmt::format("  bundles: {}\n", d.bundles);
  out += fmt::format("  frequency: {}Hz\n", num(d.frequency_hz));
  out += fmt::format("  fp32_rate_ratio: {}\n", num(d.fp32_rate_ratio));
  out += fmt::format("  bf16: {}\n", d.supports_bf16 ? "true" : "false");
  out += fmt::format("  vector_rate: {}FLOP/s\n", num(d.vector_flops_per_s));
  out += fmt::format("  kernel_overhead: {}\n", picoseconds(d.kernel_overhead_s));
  out += "  memory:\n";
  for (const MemoryLevel& l : d.levels) {
    out += fmt::format(
        "    - {{name: \"{}\", scope: {}, capacity: {}, bandwidth: {}B/s, efficiency: {}, partial_sums: {}}}\n", l.name,
        scope_name(l.scope), std::llround(l.capacity_bytes), num(l.bandwidth_bytes_per_s), num(l.efficiency),
        l.partial_sums ? "true" : "false");
  }
  if (!d.network.empty()) {
    out += "  network:\n";
    for (const NetworkTier& t : d.network) {
      out += fmt::format("    - {{name: \"{}\", size: {}, bandwidth: {}B/s, latency: {}, efficiency: {}", t.name,
                         t.size, num(t.bandwidth_bytes_per_s), picoseconds(t.latency_s), num(t.efficiency));
      if (t.operation_latency_s != 0) out += fmt::format(", operation_latency: {}", picoseconds(t.operation_latency_s));
      if (t.traffic != TierTraffic{}) {
        const auto factor = [](const TrafficFactor& f) {
          return fmt::format("{{scalar: {}, offset: {}}}", num(f.scalar), num(f.offset));
        };
        std::string factors;
        for (const auto& [op, f] : t.traffic.named()) {
          factors += fmt::format("{}{}: {}", factors.empty() ? "" : ", ", op, factor(f));
        }
        out += fmt::format(", traffic: {{{}}}", factors);
      }
      out += "}\n";
    }
  }
  return out;
}

}  // namespace snr::pathfind
