// The micro-architecture generator (AGE) of seed 004 §4.4: spends each
// component's share of area, power and perimeter on the technology's units
// and returns the device the performance model runs on, with the reason
// each figure is what it is (which budget bound it).
//
//  core         MCUs that fit the area; voltage and frequency that spend the
//               power (clamped to [min, max] voltage; below min voltage, fewer
//               MCUs); throughput by equation 1.
//  memory level banks that fit the area incl. controllers and the crossbar
//               to the units in scope; static power by equation 2; the rest of
//               the power buys bandwidth by equation 3 (capped by bank ports).
//  main memory  devices by equation 4 (package area, controller area,
//               perimeter); pin frequency from the power left after standby.
//  network      lanes that fit the area and the perimeter; lane frequency
//               from the power; intra- and inter-package separately.
#pragma once

#include <string>
#include <vector>

#include "pathfind/age/arch_template.h"
#include "pathfind/age/budget.h"
#include "pathfind/age/technology.h"
#include "pathfind/inputs/device.h"

namespace snr::pathfind::age {

// What a component was given, what it used, and why it stopped where it did.
struct ComponentReport {
  std::string name;
  std::string kind;       // core, memory, main_memory, network
  double area_budget_mm2 = 0;
  double area_used_mm2 = 0;
  double power_budget_w = 0;
  double power_used_w = 0;
  double perimeter_budget_mm = 0;
  double perimeter_used_mm = 0;
  double units = 0;       // MCUs, banks, devices or lanes
  double voltage_v = 0;   // 0 where the component has no voltage scaling
  double frequency_hz = 0;
  double capacity_bytes = 0;          // whole device
  double bandwidth_bytes_per_s = 0;   // whole device (network: per direction)
  std::string bound;      // area, power, perimeter, min_voltage, max_voltage, bank_ports, package_area, controller_area
  std::string why;        // one sentence for people
};

struct GeneratedArchitecture {
  DeviceSpec device;
  std::vector<ComponentReport> components;
  double peak_flops_per_s = 0;  // equation 1, 16-bit inputs
};

// Throws snr::Error naming the budget field when a component gets nothing
// it can work with (no MCU, no bank per instance, no memory device, ...).
GeneratedArchitecture generate_architecture(const TechnologyLibrary& tech, const ArchitectureTemplate& arch,
                                            const ResourceBudget& budget);

}  // namespace snr::pathfind::age
