// A small technology library, template and budget whose generated
// micro-architecture is computed by hand in generate_test.cc.
#pragma once

#include <string>

namespace snr::pathfind::age::testing {

inline const std::string kTinyTech = R"(technology:
  name: tiny
  compute:
    - {name: mac, area_per_mac: 0.01mm2, energy_per_flop: 1pJ, nominal_voltage: 1.0V, threshold_voltage: 0.2V,
       min_voltage: 0.5V, max_voltage: 1.2V, nominal_frequency: 1GHz}
  on_chip_memory:
    - {name: rf, bank_capacity: 1KiB, area_per_bit: 1um2, periphery_overhead: 0.25, controller_area_per_bank: 0.00476mm2,
       controller_power_per_bank: 0.1mW, crossbar_area_per_port: 0.005mm2, dynamic_energy_per_bit: 0.1pJ,
       static_power_per_bit: 1nW}
    - {name: sram, bank_capacity: 2KiB, area_per_bit: 1um2, crossbar_area_per_port: 0.001mm2,
       dynamic_energy_per_bit: 0.1pJ, static_power_per_bit: 0W, bank_bandwidth: 1GB/s}
  off_chip_memory:
    - {name: dram, device_capacity: 1GiB, device_area: 20mm2, controller_area: 2mm2, links_per_device: 64,
       links_per_mm: 16, dynamic_energy_per_bit: 2pJ, static_power_per_bit: 0W, nominal_voltage: 1.0V,
       threshold_voltage: 0.3V, min_voltage: 0.8V, max_voltage: 1.0V, nominal_frequency: 2GHz}
  network:
    - {name: lane, area_per_link: 0.5mm2, links_per_mm: 2, energy_per_bit: 1pJ, latency: 1us, nominal_voltage: 0.8V,
       threshold_voltage: 0.3V, min_voltage: 0.6V, max_voltage: 0.8V, nominal_frequency: 10GHz}
)";

inline const std::string kTinyTemplate = R"(template:
  name: tiny-chip
  mcu: {compute: mac, rows: 4, cols: 4, per_bundle: 2}
  vector_rate_fraction: 0.5
  memory:
    - {name: reg, technology: rf, scope: mcu}
    - {name: smem, technology: sram, scope: bundle}
  main_memory: {name: dram, technology: dram}
  network:
    intra_package: {technology: lane, devices: 4, topology: torus, shape: 2x2}
)";

// `core_power` is the core's power fraction: the three V-f cases.
inline std::string tiny_budget(const std::string& core_power) {
  return R"(name: tiny-budget
area_breakdown:
  node_area_budget: 200mm2
  proc_chip_area_budget: 100mm2
  core: 0.1
  reg: 0.1
  smem: 0.02
  dram: 0.06
  network: {intra_package: 0.05}
power_breakdown:
  TDP: 100W
  core: )" + core_power + R"(
  reg: 0.01
  smem: 0.05
  dram: 0.1
  network: {intra_package: 0.01}
perimeter_breakdown:
  dram: 0.2
  network: {intra_package: 0.1}
)";
}

}  // namespace snr::pathfind::age::testing
