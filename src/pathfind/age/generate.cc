#include "pathfind/age/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"

namespace snr::pathfind::age {
namespace {

[[noreturn]] void fail(const ResourceBudget& budget, std::string_view field, const std::string& why) {
  throw Error(fmt::format("budget '{}': {}: {}", budget.name, field, why));
}

// Every budget key must name something the template has; a typo would
// otherwise silently leave a component without resources.
void check_budget_names(const ArchitectureTemplate& arch, const ResourceBudget& budget) {
  std::vector<std::string> known = arch.component_names();
  if (arch.intra_package) known.emplace_back("intra_package");
  if (arch.inter_package) known.emplace_back("inter_package");
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  for (const auto& [section, breakdown] :
       {std::pair{"area_breakdown", &budget.area}, std::pair{"power_breakdown", &budget.power},
        std::pair{"perimeter_breakdown", &budget.perimeter}}) {
    for (size_t i = 0; i < breakdown->size(); ++i) {
      const std::string& name = (*breakdown)[i].first;
      std::string field = fmt::format("{}.{}", section, name);
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        fail(budget, field, fmt::format("template '{}' has no such component (components: {})", arch.name, list));
      }
      for (size_t j = 0; j < i; ++j) {
        if ((*breakdown)[j].first == name) fail(budget, field, "given twice");
      }
    }
  }
}

struct Share {
  double area_mm2, power_w, perimeter_mm;
};
Share share_of(const ResourceBudget& b, std::string_view component) {
  return {ResourceBudget::fraction(b.area, component) * b.chip_area_mm2,
          ResourceBudget::fraction(b.power, component) * b.tdp_w,
          ResourceBudget::fraction(b.perimeter, component) * b.chip_perimeter_mm()};
}

double floor_count(double x) { return x > 0 && std::isfinite(x) ? std::floor(x * (1 + 1e-12)) : 0.0; }

std::string mm2(double v) { return fmt::format("{:.4g} mm2", v); }
std::string watts(double v) { return fmt::format("{:.4g} W", v); }

struct CoreResult {
  uint32_t mcus = 0;
  uint32_t bundles = 0;
  double frequency_hz = 0;
};

CoreResult generate_core(const TechnologyLibrary& tech, const ArchitectureTemplate& arch, const ResourceBudget& budget,
                         GeneratedArchitecture& out) {
  const ComputeTech& ct = tech.find_compute(arch.mcu.compute);
  const double macs = double(arch.mcu.rows) * arch.mcu.cols;
  const double per_bundle = arch.mcu.per_bundle;
  const double mcu_area = macs * ct.area_per_mac_mm2;
  const double mcu_nominal_w = macs * 2.0 * ct.voltage.nominal_hz * ct.energy_per_flop_j;
  Share s = share_of(budget, "core");
  double mcus = floor_count(floor_count(s.area_mm2 / mcu_area) / per_bundle) * per_bundle;
  if (mcus < 1) {
    fail(budget, "area_breakdown.core",
         fmt::format("{} fits no bundle of {} MCUs ({} each)", mm2(s.area_mm2), arch.mcu.per_bundle, mm2(mcu_area)));
  }
  OperatingPoint op = operating_point(ct.voltage, mcu_nominal_w, mcus, s.power_w);
  ComponentReport r;
  r.name = "core";
  r.kind = "core";
  if (op.clamp == VoltageClamp::kMinVoltage) {
    // §4.4.1: at the minimum voltage the only way to meet the budget is fewer MCUs.
    double mcu_w = mcu_nominal_w * power_ratio_at(ct.voltage, ct.voltage.min_v);
    double area_mcus = mcus;
    mcus = floor_count(floor_count(s.power_w / mcu_w) / per_bundle) * per_bundle;
    if (mcus < 1) {
      fail(budget, "power_breakdown.core",
           fmt::format("{} cannot run one bundle of {} MCUs even at the minimum voltage {} V (needs {})",
                       watts(s.power_w), arch.mcu.per_bundle, ct.voltage.min_v, watts(mcu_w * per_bundle)));
    }
    op = operating_point(ct.voltage, mcu_nominal_w, mcus, s.power_w);
    r.bound = "min_voltage";
    r.why = fmt::format("power-bound: {} MCUs fit the area, but even at the minimum voltage {} V only {} fit {}",
                        area_mcus, ct.voltage.min_v, mcus, watts(s.power_w));
  } else if (op.clamp == VoltageClamp::kMaxVoltage) {
    r.bound = "area";
    r.why = fmt::format("area-bound: {} MCUs fill {}; at the maximum voltage {} V they draw {} of {}", mcus,
                        mm2(s.area_mm2), ct.voltage.max_v, watts(op.power_w), watts(s.power_w));
  } else {
    r.bound = "power";
    r.why = fmt::format("power-bound: {} MCUs fill {}; {} sets the voltage to {:.4g} V (nominal {} V)", mcus,
                        mm2(s.area_mm2), watts(s.power_w), op.voltage_v, ct.voltage.nominal_v);
  }
  r.area_budget_mm2 = s.area_mm2;
  r.area_used_mm2 = mcus * mcu_area;
  r.power_budget_w = s.power_w;
  r.power_used_w = op.power_w;
  r.units = mcus;
  r.voltage_v = op.voltage_v;
  r.frequency_hz = op.frequency_hz;
  // Equation 1: N x nominal flop rate x f_op / f_nominal.
  out.peak_flops_per_s = mcus * (macs * 2.0 * ct.voltage.nominal_hz) * (op.frequency_hz / ct.voltage.nominal_hz);
  out.components.push_back(r);
  return {static_cast<uint32_t>(mcus), static_cast<uint32_t>(mcus / per_bundle), op.frequency_hz};
}

void generate_level(const TechnologyLibrary& tech, const TemplateMemoryLevel& level, const CoreResult& core,
                    uint32_t per_bundle, const ResourceBudget& budget, GeneratedArchitecture& out) {
  const OnChipMemoryTech& mt = tech.find_on_chip(level.technology);
  double instances = level.scope == Scope::kMcu ? core.mcus : level.scope == Scope::kBundle ? core.bundles : 1.0;
  // Components one instance serves through its crossbar (§4.4.2).
  double ports = level.scope == Scope::kMcu ? 1.0 : level.scope == Scope::kBundle ? per_bundle : core.bundles;
  Share s = share_of(budget, level.name);
  double bank_bits = mt.bank_capacity_bytes * 8;
  double bank_area = bank_bits * mt.area_per_bit_mm2 * (1 + mt.periphery_overhead);
  double per_bank_area = bank_area + mt.controller_area_per_bank_mm2 + ports * mt.crossbar_area_per_port_mm2;
  double banks_per_instance = floor_count(s.area_mm2 / (instances * per_bank_area));
  std::string scope(scope_name(level.scope));
  if (banks_per_instance < 1) {
    fail(budget, "area_breakdown." + level.name,
         fmt::format("{} fits no bank per {} instance ({} instances; one bank with its controller and crossbar to {} "
                     "ports is {})",
                     mm2(s.area_mm2), scope, instances, ports, mm2(per_bank_area)));
  }
  double banks = banks_per_instance * instances;
  // Equation 2, plus the controllers' static power.
  double static_w = mt.static_power_per_bit_w * banks * bank_bits + mt.controller_power_per_bank_w * banks;
  if (!(s.power_w > static_w)) {
    fail(budget, "power_breakdown." + level.name,
         fmt::format("{} does not cover the static power of {} banks ({}, equation 2); give the level more power or "
                     "less area",
                     watts(s.power_w), banks, watts(static_w)));
  }
  // Equation 3: the power left after static buys accesses.
  double power_bytes_per_s = (s.power_w - static_w) / mt.dynamic_energy_per_bit_j / 8;
  double port_bytes_per_s =
      mt.bank_bandwidth_bytes_per_s > 0 ? banks * mt.bank_bandwidth_bytes_per_s : std::numeric_limits<double>::infinity();
  double bandwidth = std::min(power_bytes_per_s, port_bytes_per_s);
  ComponentReport r;
  r.name = level.name;
  r.kind = "memory";
  r.area_budget_mm2 = s.area_mm2;
  r.area_used_mm2 = banks * per_bank_area;
  r.power_budget_w = s.power_w;
  r.power_used_w = static_w + bandwidth * 8 * mt.dynamic_energy_per_bit_j;
  r.units = banks;
  r.capacity_bytes = banks * mt.bank_capacity_bytes;
  r.bandwidth_bytes_per_s = bandwidth;
  r.bound = port_bytes_per_s < power_bytes_per_s ? "bank_ports" : "power";
  r.why = fmt::format("{} banks of {} B per {} instance fill {} (capacity is area-bound); bandwidth is {}",
                      banks_per_instance, mt.bank_capacity_bytes, scope, mm2(s.area_mm2),
                      r.bound == "power" ? fmt::format("power-bound: {} left after {} static", watts(s.power_w - static_w),
                                                       watts(static_w))
                                         : "bound by the banks' ports");
  out.components.push_back(r);
  out.device.levels.push_back({level.name, level.scope, r.capacity_bytes / instances, bandwidth / instances,
                               level.efficiency, level.partial_sums});
}

void generate_main_memory(const TechnologyLibrary& tech, const TemplateMainMemory& mm, const ResourceBudget& budget,
                          GeneratedArchitecture& out) {
  const OffChipMemoryTech& mt = tech.find_off_chip(mm.technology);
  Share s = share_of(budget, mm.name);
  // Equation 4: package area outside the chip, controller area on it, and
  // the die edge the pins escape through.
  double by_package = floor_count((budget.node_area_mm2 - budget.chip_area_mm2) / mt.device_area_mm2);
  double by_controllers = floor_count(s.area_mm2 / mt.controller_area_mm2);
  double by_perimeter = floor_count(s.perimeter_mm * mt.links_per_mm / mt.links_per_device);
  double devices = std::min({by_package, by_controllers, by_perimeter});
  std::string eq4_bound = devices == by_package ? "package_area" : devices == by_controllers ? "controller_area" : "perimeter";
  std::string eq4_field = devices == by_package        ? "area_breakdown.node_area_budget"
                          : devices == by_controllers ? "area_breakdown." + mm.name
                                                      : "perimeter_breakdown." + mm.name;
  if (devices < 1) {
    fail(budget, eq4_field,
         fmt::format("fits no {} device (equation 4: {} by package area, {} by controller area, {} by perimeter)",
                     mt.name, by_package, by_controllers, by_perimeter));
  }
  double link_nominal_w = mt.dynamic_energy_per_bit_j * mt.voltage.nominal_hz;
  auto static_w = [&](double d) { return mt.static_power_per_bit_w * d * mt.device_capacity_bytes * 8; };
  OperatingPoint op = operating_point(mt.voltage, link_nominal_w, devices * mt.links_per_device,
                                      s.power_w - static_w(devices));
  ComponentReport r;
  r.name = mm.name;
  r.kind = "main_memory";
  if (op.clamp == VoltageClamp::kMinVoltage) {
    double pin_w = link_nominal_w * power_ratio_at(mt.voltage, mt.voltage.min_v);
    double fit = devices;
    while (fit >= 1 && static_w(fit) + fit * mt.links_per_device * pin_w > s.power_w) fit -= 1;
    if (fit < 1) {
      fail(budget, "power_breakdown." + mm.name,
           fmt::format("{} cannot drive one {} device even at the minimum voltage {} V (needs {})", watts(s.power_w),
                       mt.name, mt.voltage.min_v, watts(static_w(1) + mt.links_per_device * pin_w)));
    }
    r.why = fmt::format("power-bound: equation 4 allows {} devices ({}), but at the minimum voltage {} V the power "
                        "drives only {}",
                        devices, eq4_bound, mt.voltage.min_v, fit);
    devices = fit;
    op = operating_point(mt.voltage, link_nominal_w, devices * mt.links_per_device, s.power_w - static_w(devices));
    r.bound = "min_voltage";
  } else if (op.clamp == VoltageClamp::kMaxVoltage) {
    r.bound = eq4_bound;
    r.why = fmt::format("{}-bound: equation 4 gives {} devices (package area {}, controller area {}, perimeter {}); "
                        "pins run at the maximum voltage {} V",
                        eq4_bound, devices, by_package, by_controllers, by_perimeter, mt.voltage.max_v);
  } else {
    r.bound = "power";
    r.why = fmt::format("power-bound: {} devices by equation 4 ({}); {} sets the pin voltage to {:.4g} V", devices,
                        eq4_bound, watts(s.power_w), op.voltage_v);
  }
  double links = devices * mt.links_per_device;
  r.area_budget_mm2 = s.area_mm2;
  r.area_used_mm2 = devices * mt.controller_area_mm2;
  r.power_budget_w = s.power_w;
  r.power_used_w = static_w(devices) + op.power_w;
  r.perimeter_budget_mm = s.perimeter_mm;
  r.perimeter_used_mm = links / mt.links_per_mm;
  r.units = devices;
  r.voltage_v = op.voltage_v;
  r.frequency_hz = op.frequency_hz;
  r.capacity_bytes = devices * mt.device_capacity_bytes;
  r.bandwidth_bytes_per_s = links * op.frequency_hz / 8;
  out.components.push_back(r);
  out.device.levels.push_back(
      {mm.name, Scope::kGlobal, r.capacity_bytes, r.bandwidth_bytes_per_s, mm.efficiency, true});
}

void generate_tier(const TechnologyLibrary& tech, const std::string& tier_name, const TemplateNetworkTier& tier,
                   const ResourceBudget& budget, GeneratedArchitecture& out) {
  const LinkTech& lt = tech.find_link(tier.technology);
  Share s = share_of(budget, tier_name);
  double by_area = floor_count(s.area_mm2 / lt.area_per_link_mm2);
  double by_perimeter = floor_count(s.perimeter_mm * lt.links_per_mm);
  double lanes = std::min(by_area, by_perimeter);
  std::string lane_bound = lanes == by_area ? "area" : "perimeter";
  if (lanes < 2) {
    fail(budget, fmt::format("{}_breakdown.{}", lane_bound, tier_name),
         fmt::format("fits {} {} lanes ({} by area, {} by perimeter); a link needs one lane each way", lanes, lt.name,
                     by_area, by_perimeter));
  }
  double lane_nominal_w = lt.energy_per_bit_j * lt.voltage.nominal_hz;
  OperatingPoint op = operating_point(lt.voltage, lane_nominal_w, lanes, s.power_w);
  ComponentReport r;
  r.name = tier_name;
  r.kind = "network";
  if (op.clamp == VoltageClamp::kMinVoltage) {
    double lane_w = lane_nominal_w * power_ratio_at(lt.voltage, lt.voltage.min_v);
    double fit = 2 * floor_count(s.power_w / lane_w / 2);
    if (fit < 2) {
      fail(budget, "power_breakdown." + tier_name,
           fmt::format("{} cannot drive one lane each way even at the minimum voltage {} V (needs {})",
                       watts(s.power_w), lt.voltage.min_v, watts(2 * lane_w)));
    }
    r.why = fmt::format("power-bound: {} lanes fit ({}-bound), but at the minimum voltage {} V the power drives {}",
                        lanes, lane_bound, lt.voltage.min_v, fit);
    lanes = fit;
    op = operating_point(lt.voltage, lane_nominal_w, lanes, s.power_w);
    r.bound = "min_voltage";
  } else if (op.clamp == VoltageClamp::kMaxVoltage) {
    r.bound = lane_bound;
    r.why = fmt::format("{}-bound: {} lanes ({} by area, {} by perimeter) at the maximum voltage {} V", lane_bound,
                        lanes, by_area, by_perimeter, lt.voltage.max_v);
  } else {
    r.bound = "power";
    r.why = fmt::format("power-bound: {} lanes ({}-bound); {} sets the lane voltage to {:.4g} V", lanes, lane_bound,
                        watts(s.power_w), op.voltage_v);
  }
  r.area_budget_mm2 = s.area_mm2;
  r.area_used_mm2 = lanes * lt.area_per_link_mm2;
  r.power_budget_w = s.power_w;
  r.power_used_w = op.power_w;
  r.perimeter_budget_mm = s.perimeter_mm;
  r.perimeter_used_mm = lanes / lt.links_per_mm;
  r.units = lanes;
  r.voltage_v = op.voltage_v;
  r.frequency_hz = op.frequency_hz;
  // Lanes are one-way; half carry each direction.
  r.bandwidth_bytes_per_s = std::floor(lanes / 2) * op.frequency_hz / 8;
  out.components.push_back(r);
  NetworkTier generated;
  generated.name = tier_name;
  generated.size = tier.devices;
  generated.bandwidth_bytes_per_s = r.bandwidth_bytes_per_s;
  generated.latency_s = lt.latency_s;  // a link's: one per ring step
  generated.operation_latency_s = lt.operation_latency_s;
  generated.efficiency = tier.efficiency;
  out.device.network.push_back(std::move(generated));
}

}  // namespace

GeneratedArchitecture generate_architecture(const TechnologyLibrary& tech, const ArchitectureTemplate& arch,
                                            const ResourceBudget& budget) {
  arch.validate();
  budget.validate();
  check_budget_names(arch, budget);
  GeneratedArchitecture out;
  CoreResult core = generate_core(tech, arch, budget, out);
  DeviceSpec& d = out.device;
  d.name = fmt::format("{}+{}+{}", tech.name, arch.name, budget.name);
  d.mcu_rows = arch.mcu.rows;
  d.mcu_cols = arch.mcu.cols;
  d.mcus_per_bundle = arch.mcu.per_bundle;
  d.bundles = core.bundles;
  d.frequency_hz = core.frequency_hz;
  d.fp32_rate_ratio = arch.fp32_rate_ratio;
  d.supports_bf16 = arch.supports_bf16;
  d.vector_flops_per_s = arch.vector_rate_fraction * out.peak_flops_per_s;
  d.dataflow = arch.mcu.dataflow;
  d.max_utilization = arch.mcu.max_utilization;
  d.kernel_overhead_s = arch.kernel_overhead_s;
  for (const TemplateMemoryLevel& level : arch.levels) {
    generate_level(tech, level, core, arch.mcu.per_bundle, budget, out);
  }
  generate_main_memory(tech, arch.main_memory, budget, out);
  if (arch.intra_package) generate_tier(tech, "intra_package", *arch.intra_package, budget, out);
  if (arch.inter_package) generate_tier(tech, "inter_package", *arch.inter_package, budget, out);
  d.validate();
  return out;
}

}  // namespace snr::pathfind::age
