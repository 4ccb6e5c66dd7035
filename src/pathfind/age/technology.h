// The technology components library of seed 004 §4.1 (Table 1): compute
// units, on-chip memory banks, off-chip memory devices and network links,
// each with the physical figures the micro-architecture generator spends
// area, power and perimeter on. Strict YAML reader and a built-in library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pathfind/age/voltage_frequency.h"

namespace snr::pathfind::age {

// One multiply-accumulate of a matrix unit (two flops per cycle); an MCU
// of rows x cols MACs costs rows*cols times these figures.
struct ComputeTech {
  std::string name;
  std::string node;                  // process node label, e.g. "N7"
  double area_per_mac_mm2 = 0;       // incl. its share of the MCU's operand staging
  double energy_per_flop_j = 0;      // at nominal voltage
  VoltageRange voltage;              // nominal_hz: the MAC's clock at nominal voltage
};

// One on-chip memory bank (SRAM, register file, eDRAM, MRAM...).
struct OnChipMemoryTech {
  std::string name;
  std::string technology;
  double bank_capacity_bytes = 0;
  double area_per_bit_mm2 = 0;
  double periphery_overhead = 0;             // bank area = bits * area_per_bit * (1 + this)
  double controller_area_per_bank_mm2 = 0;
  double controller_power_per_bank_w = 0;    // static, counted with equation 2
  double crossbar_area_per_port_mm2 = 0;     // per bank, per component the level serves
  double dynamic_energy_per_bit_j = 0;
  double static_power_per_bit_w = 0;
  double latency_s = 0;
  double bank_bandwidth_bytes_per_s = 0;     // port limit of one bank; 0: power is the only limit
};

// One off-chip memory device (an HBM stack, a DRAM package).
struct OffChipMemoryTech {
  std::string name;
  std::string technology;
  double device_capacity_bytes = 0;
  double device_area_mm2 = 0;                // footprint in the package, outside the compute die
  double controller_area_mm2 = 0;            // memory controller and I/O on the compute die, per device
  double links_per_device = 0;               // data pins of one device
  double links_per_mm = 0;                   // pins that escape one mm of die edge
  double dynamic_energy_per_bit_j = 0;       // at nominal voltage
  double static_power_per_bit_w = 0;         // refresh and standby, per bit stored
  double latency_s = 0;
  VoltageRange voltage;                      // nominal_hz: bits per second per pin at nominal voltage
};

// One serial lane of a die-to-die or package-to-package link, one direction.
struct LinkTech {
  std::string name;
  std::string technology;
  double area_per_link_mm2 = 0;              // transceiver on the compute die
  double links_per_mm = 0;                   // lanes that escape one mm of die edge
  double energy_per_bit_j = 0;               // at nominal voltage
  double latency_s = 0;                      // per ring step (a hop over the link)
  double operation_latency_s = 0;            // once per collective or transfer (launch, synchronization)
  VoltageRange voltage;                      // nominal_hz: bits per second per lane at nominal voltage
};

struct TechnologyLibrary {
  std::string name;
  std::vector<ComputeTech> compute;
  std::vector<OnChipMemoryTech> on_chip_memory;
  std::vector<OffChipMemoryTech> off_chip_memory;
  std::vector<LinkTech> network;

  // Look-ups by component name; throw naming the known ones.
  [[nodiscard]] const ComputeTech& find_compute(std::string_view name) const;
  [[nodiscard]] const OnChipMemoryTech& find_on_chip(std::string_view name) const;
  [[nodiscard]] const OffChipMemoryTech& find_off_chip(std::string_view name) const;
  [[nodiscard]] const LinkTech& find_link(std::string_view name) const;
  // Ranges of every figure and unique names; throws naming the component and field.
  void validate() const;
};

TechnologyLibrary parse_technology_yaml(std::string_view text, std::string_view source);
// Built-in libraries (docs/pathfind-age.md derives every figure): "n7".
std::vector<std::string_view> builtin_technology_names();
TechnologyLibrary builtin_technology(std::string_view name);
// A built-in name or a YAML file.
TechnologyLibrary load_technology(const std::string& name_or_path);

}  // namespace snr::pathfind::age
