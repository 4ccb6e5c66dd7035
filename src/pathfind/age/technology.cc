#include "pathfind/age/technology.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "common/error.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/inputs/quantity.h"

namespace snr::pathfind::age {
namespace {

template <typename Component>
const Component& find_named(const std::vector<Component>& list, std::string_view name, std::string_view kind) {
  for (const Component& c : list) {
    if (c.name == name) return c;
  }
  std::string known;
  for (const Component& c : list) known += (known.empty() ? "" : ", ") + c.name;
  throw Error(fmt::format("no {} component '{}' in the technology library (known: {})", kind, name,
                          known.empty() ? "none" : known));
}

void require(bool ok, std::string_view component, std::string_view field, std::string_view why) {
  if (!ok) throw Error(fmt::format("technology component '{}': {}: {}", component, field, why));
}
bool positive(double v) { return v > 0 && std::isfinite(v); }
bool non_negative(double v) { return v >= 0 && std::isfinite(v); }

VoltageRange read_voltage(const StrictMap& m) {
  VoltageRange r;
  r.nominal_v = m.quantity("nominal_voltage", parse_voltage_v, 0.05, 5.0);
  r.threshold_v = m.quantity("threshold_voltage", parse_voltage_v, 0.0, 5.0);
  r.min_v = m.quantity("min_voltage", parse_voltage_v, 0.05, 5.0);
  r.max_v = m.quantity("max_voltage", parse_voltage_v, 0.05, 5.0);
  r.nominal_hz = m.quantity("nominal_frequency", parse_frequency_hz, 1e3, 1e13);
  return r;
}

}  // namespace

const ComputeTech& TechnologyLibrary::find_compute(std::string_view n) const {
  return find_named(compute, n, "compute");
}
const OnChipMemoryTech& TechnologyLibrary::find_on_chip(std::string_view n) const {
  return find_named(on_chip_memory, n, "on-chip memory");
}
const OffChipMemoryTech& TechnologyLibrary::find_off_chip(std::string_view n) const {
  return find_named(off_chip_memory, n, "off-chip memory");
}
const LinkTech& TechnologyLibrary::find_link(std::string_view n) const { return find_named(network, n, "network"); }

void TechnologyLibrary::validate() const {
  std::set<std::string> names;
  auto unique = [&](const std::string& n) {
    require(!n.empty(), "<unnamed>", "name", "must not be empty");
    require(names.insert(n).second, n, "name", "appears twice in the library");
  };
  for (const ComputeTech& c : compute) {
    unique(c.name);
    require(positive(c.area_per_mac_mm2), c.name, "area_per_mac", "must be positive");
    require(positive(c.energy_per_flop_j), c.name, "energy_per_flop", "must be positive");
    c.voltage.validate(fmt::format("technology component '{}'", c.name));
  }
  for (const OnChipMemoryTech& m : on_chip_memory) {
    unique(m.name);
    require(positive(m.bank_capacity_bytes), m.name, "bank_capacity", "must be positive");
    require(positive(m.area_per_bit_mm2), m.name, "area_per_bit", "must be positive");
    require(non_negative(m.periphery_overhead), m.name, "periphery_overhead", "must be non-negative");
    require(non_negative(m.controller_area_per_bank_mm2), m.name, "controller_area_per_bank", "must be non-negative");
    require(non_negative(m.controller_power_per_bank_w), m.name, "controller_power_per_bank", "must be non-negative");
    require(non_negative(m.crossbar_area_per_port_mm2), m.name, "crossbar_area_per_port", "must be non-negative");
    require(positive(m.dynamic_energy_per_bit_j), m.name, "dynamic_energy_per_bit", "must be positive");
    require(non_negative(m.static_power_per_bit_w), m.name, "static_power_per_bit", "must be non-negative");
    require(non_negative(m.bank_bandwidth_bytes_per_s), m.name, "bank_bandwidth", "must be non-negative");
  }
  for (const OffChipMemoryTech& m : off_chip_memory) {
    unique(m.name);
    require(positive(m.device_capacity_bytes), m.name, "device_capacity", "must be positive");
    require(positive(m.device_area_mm2), m.name, "device_area", "must be positive");
    require(positive(m.controller_area_mm2), m.name, "controller_area", "must be positive");
    require(positive(m.links_per_device), m.name, "links_per_device", "must be positive");
    require(positive(m.links_per_mm), m.name, "links_per_mm", "must be positive");
    require(positive(m.dynamic_energy_per_bit_j), m.name, "dynamic_energy_per_bit", "must be positive");
    require(non_negative(m.static_power_per_bit_w), m.name, "static_power_per_bit", "must be non-negative");
    m.voltage.validate(fmt::format("technology component '{}'", m.name));
  }
  for (const LinkTech& l : network) {
    unique(l.name);
    require(positive(l.area_per_link_mm2), l.name, "area_per_link", "must be positive");
    require(positive(l.links_per_mm), l.name, "links_per_mm", "must be positive");
    require(positive(l.energy_per_bit_j), l.name, "energy_per_bit", "must be positive");
    l.voltage.validate(fmt::format("technology component '{}'", l.name));
  }
}

TechnologyLibrary parse_technology_yaml(std::string_view text, std::string_view source) {
  YAML::Node root = load_yaml_text(text, source);
  StrictMap top(root, std::string(source), "");
  StrictMap t = top.map("technology");
  TechnologyLibrary lib;
  lib.name = t.string("name");
  if (t.has("compute")) {
    for (const StrictMap& m : t.list_of_maps("compute")) {
      ComputeTech c;
      c.name = m.string("name");
      c.node = m.string_or("node", "");
      c.area_per_mac_mm2 = m.quantity("area_per_mac", parse_area_mm2, 1e-9, 1e3);
      c.energy_per_flop_j = m.quantity("energy_per_flop", parse_energy_j, 1e-16, 1e-6);
      c.voltage = read_voltage(m);
      m.finish();
      lib.compute.push_back(std::move(c));
    }
  }
  if (t.has("on_chip_memory")) {
    for (const StrictMap& m : t.list_of_maps("on_chip_memory")) {
      OnChipMemoryTech c;
      c.name = m.string("name");
      c.technology = m.string_or("technology", "");
      c.bank_capacity_bytes = m.quantity("bank_capacity", parse_bytes_count, 1, 1e12);
      c.area_per_bit_mm2 = m.quantity("area_per_bit", parse_area_mm2, 1e-12, 1e-3);
      c.periphery_overhead = m.number_or("periphery_overhead", 0.0, 0.0, 100.0);
      c.controller_area_per_bank_mm2 =
          m.has("controller_area_per_bank") ? m.quantity("controller_area_per_bank", parse_area_mm2, 0, 1e4) : 0.0;
      c.controller_power_per_bank_w =
          m.has("controller_power_per_bank") ? m.quantity("controller_power_per_bank", parse_power_w, 0, 1e3) : 0.0;
      c.crossbar_area_per_port_mm2 =
          m.has("crossbar_area_per_port") ? m.quantity("crossbar_area_per_port", parse_area_mm2, 0, 1e3) : 0.0;
      c.dynamic_energy_per_bit_j = m.quantity("dynamic_energy_per_bit", parse_energy_j, 1e-18, 1e-6);
      c.static_power_per_bit_w = m.quantity("static_power_per_bit", parse_power_w, 0, 1e-3);
      c.latency_s = m.has("latency") ? m.quantity("latency", parse_duration_s, 0, 1e-3) : 0.0;
      c.bank_bandwidth_bytes_per_s =
          m.has("bank_bandwidth") ? m.quantity("bank_bandwidth", parse_bandwidth_bytes_per_s, 1, 1e16) : 0.0;
      m.finish();
      lib.on_chip_memory.push_back(std::move(c));
    }
  }
  if (t.has("off_chip_memory")) {
    for (const StrictMap& m : t.list_of_maps("off_chip_memory")) {
      OffChipMemoryTech c;
      c.name = m.string("name");
      c.technology = m.string_or("technology", "");
      c.device_capacity_bytes = m.quantity("device_capacity", parse_bytes_count, 1, 1e15);
      c.device_area_mm2 = m.quantity("device_area", parse_area_mm2, 1e-3, 1e5);
      c.controller_area_mm2 = m.quantity("controller_area", parse_area_mm2, 1e-6, 1e4);
      c.links_per_device = static_cast<double>(m.count("links_per_device", 1, 1 << 20));
      c.links_per_mm = m.number("links_per_mm", 1e-3, 1e6);
      c.dynamic_energy_per_bit_j = m.quantity("dynamic_energy_per_bit", parse_energy_j, 1e-18, 1e-6);
      c.static_power_per_bit_w = m.quantity("static_power_per_bit", parse_power_w, 0, 1e-3);
      c.latency_s = m.has("latency") ? m.quantity("latency", parse_duration_s, 0, 1e-3) : 0.0;
      c.voltage = read_voltage(m);
      m.finish();
      lib.off_chip_memory.push_back(std::move(c));
    }
  }
  if (t.has("network")) {
    for (const StrictMap& m : t.list_of_maps("network")) {
      LinkTech c;
      c.name = m.string("name");
      c.technology = m.string_or("technology", "");
      c.area_per_link_mm2 = m.quantity("area_per_link", parse_area_mm2, 1e-9, 1e4);
      c.links_per_mm = m.number("links_per_mm", 1e-3, 1e6);
      c.energy_per_bit_j = m.quantity("energy_per_bit", parse_energy_j, 1e-18, 1e-6);
      c.latency_s = m.has("latency") ? m.quantity("latency", parse_duration_s, 0, 1.0) : 0.0;
      c.operation_latency_s =
          m.has("operation_latency") ? m.quantity("operation_latency", parse_duration_s, 0, 1.0) : 0.0;
      c.voltage = read_voltage(m);
      m.finish();
      lib.network.push_back(std::move(c));
    }
  }
  t.finish();
  top.finish();
  with_error_context(std::string(source), [&] { lib.validate(); });
  return lib;
}

TechnologyLibrary load_technology(const std::string& name_or_path) {
  return load_builtin_or_file(name_or_path, builtin_technology_names(), "technology library", builtin_technology,
                              [](std::string_view text, const std::string& path) { return parse_technology_yaml(text, path); });
}

}  // namespace snr::pathfind::age
