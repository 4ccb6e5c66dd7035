#include "pathfind/age/technology_node.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "common/error.h"

namespace snr::pathfind::age {
namespace {

constexpr std::array<std::string_view, 7> kNodes = {"N12", "N10", "N7", "N5", "N3", "N2", "N1"};

ptrdiff_t node_index(std::string_view node) {
  const auto* found = std::find(kNodes.begin(), kNodes.end(), node);
  if (found == kNodes.end()) {
    throw Error(fmt::format("unknown logic node '{}' (known: {})", node, fmt::join(kNodes, ", ")));
  }
  return found - kNodes.begin();
}

// Shortest exact text of a value: reads back to the same double.
std::string exact(double value) { return fmt::format("{}", value); }

void voltage_lines(std::string& out, const VoltageRange& v, std::string_view frequency_key = "nominal_frequency") {
  out += fmt::format("      nominal_voltage: {}V\n      threshold_voltage: {}V\n", exact(v.nominal_v),
                     exact(v.threshold_v));
  out += fmt::format("      min_voltage: {}V\n      max_voltage: {}V\n", exact(v.min_v), exact(v.max_v));
  out += fmt::format("      {}: {}Hz\n", frequency_key, exact(v.nominal_hz));
}

}  // namespace

std::span<const std::string_view> logic_nodes() { return kNodes; }

int node_steps(std::string_view from, std::string_view to) {
  return static_cast<int>(node_index(to) - node_index(from));
}

TechnologyLibrary scale_to_node(const TechnologyLibrary& base, std::string_view from_node, std::string_view to_node,
                                std::string name, NodeScaling scaling) {
  const int steps = node_steps(from_node, to_node);
  const double area = std::pow(scaling.area_per_step, -steps);
  const double power = std::pow(scaling.power_per_step, -steps);
  TechnologyLibrary out = base;
  out.name = std::move(name);
  for (ComputeTech& c : out.compute) {
    if (c.node != from_node) {
      throw Error(fmt::format("technology '{}': compute '{}' is at node '{}', not {}", base.name, c.name, c.node,
                              from_node));
    }
    c.node = std::string(to_node);
    c.area_per_mac_mm2 *= area;
    c.energy_per_flop_j *= power;
  }
  for (OnChipMemoryTech& m : out.on_chip_memory) {
    m.area_per_bit_mm2 *= area;
    m.controller_area_per_bank_mm2 *= area;
    m.crossbar_area_per_port_mm2 *= area;
    m.controller_power_per_bank_w *= power;
    m.dynamic_energy_per_bit_j *= power;
    m.static_power_per_bit_w *= power;
  }
  out.validate();
  return out;
}

std::string format_technology_yaml(const TechnologyLibrary& library) {
  std::string out = fmt::format("technology:\n  name: {}\n", library.name);
  if (!library.compute.empty()) out += "  compute:\n";
  for (const ComputeTech& c : library.compute) {
    out += fmt::format("    - name: {}\n", c.name);
    if (!c.node.empty()) out += fmt::format("      node: {}\n", c.node);
    out += fmt::format("      area_per_mac: {}mm2\n      energy_per_flop: {}J\n", exact(c.area_per_mac_mm2),
                       exact(c.energy_per_flop_j));
    voltage_lines(out, c.voltage);
  }
  if (!library.on_chip_memory.empty()) out += "  on_chip_memory:\n";
  for (const OnChipMemoryTech& m : library.on_chip_memory) {
    out += fmt::format("    - name: {}\n", m.name);
    if (!m.technology.empty()) out += fmt::format("      technology: {}\n", m.technology);
    out += fmt::format("      bank_capacity: {}B\n      area_per_bit: {}mm2\n      periphery_overhead: {}\n",
                       exact(m.bank_capacity_bytes), exact(m.area_per_bit_mm2), exact(m.periphery_overhead));
    out += fmt::format("      controller_area_per_bank: {}mm2\n      controller_power_per_bank: {}W\n",
                       exact(m.controller_area_per_bank_mm2), exact(m.controller_power_per_bank_w));
    out += fmt::format("      crossbar_area_per_port: {}mm2\n      dynamic_energy_per_bit: {}J\n",
                       exact(m.crossbar_area_per_port_mm2), exact(m.dynamic_energy_per_bit_j));
    out += fmt::format("      static_power_per_bit: {}W\n      latency: {}s\n", exact(m.static_power_per_bit_w),
                       exact(m.latency_s));
    if (m.bank_bandwidth_bytes_per_s > 0) {
      out += fmt::format("      bank_bandwidth: {}B/s\n", exact(m.bank_bandwidth_bytes_per_s));
    }
  }
  if (!library.off_chip_memory.empty()) out += "  off_chip_memory:\n";
  for (const OffChipMemoryTech& m : library.off_chip_memory) {
    out += fmt::format("    - name: {}\n", m.name);
    if (!m.technology.empty()) out += fmt::format("      technology: {}\n", m.technology);
    out += fmt::format("      device_capacity: {}B\n      device_area: {}mm2\n      controller_area: {}mm2\n",
                       exact(m.device_capacity_bytes), exact(m.device_area_mm2), exact(m.controller_area_mm2));
    out += fmt::format("      links_per_device: {}\n      links_per_mm: {}\n", exact(m.links_per_device),
                       exact(m.links_per_mm));
    out += fmt::format("      dynamic_energy_per_bit: {}J\n      static_power_per_bit: {}W\n      latency: {}s\n",
                       exact(m.dynamic_energy_per_bit_j), exact(m.static_power_per_bit_w), exact(m.latency_s));
    voltage_lines(out, m.voltage);
  }
  if (!library.network.empty()) out += "  network:\n";
  for (const LinkTech& l : library.network) {
    out += fmt::format("    - name: {}\n", l.name);
    if (!l.technology.empty()) out += fmt::format("      technology: {}\n", l.technology);
    out += fmt::format("      area_per_link: {}mm2\n      links_per_mm: {}\n      energy_per_bit: {}J\n",
                       exact(l.area_per_link_mm2), exact(l.links_per_mm), exact(l.energy_per_bit_j));
    out += fmt::format("      latency: {}s\n", exact(l.latency_s));
    if (l.operation_latency_s != 0) out += fmt::format("      operation_latency: {}s\n", exact(l.operation_latency_s));
    voltage_lines(out, l.voltage);
  }
  return out;
}

}  // namespace snr::pathfind::age
