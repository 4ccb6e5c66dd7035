// The built-in technology library, architecture template and budget, kept
// as the YAML a user would write so that they go through the same strict
// readers and can be printed, copied and edited (`snr pathfind generate
// --show-inputs`). docs/pathfind-age.md derives every figure.
#include <fmt/format.h>

#include <array>
#include <span>

#include "common/error.h"
#include "pathfind/age/arch_template.h"
#include "pathfind/age/budget.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/age/technology.h"
#include "pathfind/age/technology_node.h"

namespace snr::pathfind::age {
namespace {

// A 7 nm-class library. Public anchors: HD SRAM bit cell 0.027 um2,
// HBM2e 16 GiB stacks of 1024 pins at 3.2 Gb/s and about 3.9 pJ/bit,
// 50 Gb/s SerDes lanes. The MAC area and energy are the A100's core share
// divided over its 110,592 tensor-core MACs (estimates, not measurements).
constexpr std::string_view kN7 = R"(technology:
  name: n7
  compute:
    - name: n7-tensor-mac
      node: N7
      area_per_mac: 2.98e-3mm2
      energy_per_flop: 0.6413pJ
      nominal_voltage: 0.75V
      threshold_voltage: 0.3V
      min_voltage: 0.55V
      max_voltage: 0.9V
      nominal_frequency: 1.41GHz
    - name: n7-mxu-mac
      node: N7
      area_per_mac: 9.0e-4mm2
      energy_per_flop: 0.349pJ
      nominal_voltage: 0.75V
      threshold_voltage: 0.3V
      min_voltage: 0.55V
      max_voltage: 0.9V
      nominal_frequency: 1.05GHz
  on_chip_memory:
    - name: n7-regfile
      technology: SRAM 8T
      bank_capacity: 4KiB
      area_per_bit: 0.08um2
      periphery_overhead: 1.0
      crossbar_area_per_port: 0.001mm2
      dynamic_energy_per_bit: 0.015pJ
      static_power_per_bit: 1nW
      latency: 1ns
      bank_bandwidth: 45.12GB/s
    - name: n7-sram
      technology: SRAM 6T
      bank_capacity: 6KiB
      area_per_bit: 0.035um2
      periphery_overhead: 1.0
      controller_area_per_bank: 0.0005mm2
      crossbar_area_per_port: 0.0002mm2
      dynamic_energy_per_bit: 0.05pJ
      static_power_per_bit: 1nW
      latency: 20ns
      bank_bandwidth: 5.64GB/s
    - name: n7-sram-hd
      technology: SRAM 6T high density
      bank_capacity: 512KiB
      area_per_bit: 0.027um2
      periphery_overhead: 1.2
      controller_area_per_bank: 0.01mm2
      crossbar_area_per_port: 0.0004mm2
      dynamic_energy_per_bit: 0.25pJ
      static_power_per_bit: 1nW
      latency: 200ns
    - name: n7-vreg
      technology: SRAM 8T
      bank_capacity: 4KiB
      area_per_bit: 0.08um2
      periphery_overhead: 1.0
      crossbar_area_per_port: 0.001mm2
      dynamic_energy_per_bit: 0.015pJ
      static_power_per_bit: 1nW
      latency: 1ns
      bank_bandwidth: 134.4GB/s
    - name: n7-vmem
      technology: SRAM 6T high density
      bank_capacity: 256KiB
      area_per_bit: 0.027um2
      periphery_overhead: 1.0
      controller_area_per_bank: 0.005mm2
      crossbar_area_per_port: 0.001mm2
      dynamic_energy_per_bit: 0.1pJ
      static_power_per_bit: 1nW
      latency: 50ns
      bank_bandwidth: 125GB/s
  off_chip_memory:
    - name: hbm2-stack
      technology: HBM2
      device_capacity: 8GiB
      device_area: 92mm2
      controller_area: 10mm2
      links_per_device: 1024
      links_per_mm: 110
      dynamic_energy_per_bit: 3.9pJ
      static_power_per_bit: 5e-12W
      latency: 500ns
      nominal_voltage: 1.2V
      threshold_voltage: 0.4V
      min_voltage: 1.0V
      max_voltage: 1.2V
      nominal_frequency: 2.34375GHz
    - name: hbm2e-stack
      technology: HBM2e
      device_capacity: 16GiB
      device_area: 110mm2
      controller_area: 12mm2
      links_per_device: 1024
      links_per_mm: 110
      dynamic_energy_per_bit: 3.9pJ
      static_power_per_bit: 5e-12W
      latency: 500ns
      nominal_voltage: 1.2V
      threshold_voltage: 0.4V
      min_voltage: 1.0V
      max_voltage: 1.2V
      nominal_frequency: 3.2GHz
  network:
    # NVLink and InfiniBand: Calculon's A100 system charges 10 us and 20 us
    # once per collective (the a100-80gb preset's operation_latency), not per
    # ring step.
    - name: nvlink3-lane
      technology: 50 Gb/s NRZ SerDes
      area_per_link: 0.35mm2
      links_per_mm: 4
      energy_per_bit: 4pJ
      operation_latency: 10us
      nominal_voltage: 0.8V
      threshold_voltage: 0.3V
      min_voltage: 0.6V
      max_voltage: 0.8V
      nominal_frequency: 50GHz
    - name: ici-lane
      technology: 50 Gb/s SerDes, chip-to-chip
      area_per_link: 0.35mm2
      links_per_mm: 4
      energy_per_bit: 4pJ
      latency: 100ns
      nominal_voltage: 0.8V
      threshold_voltage: 0.3V
      min_voltage: 0.6V
      max_voltage: 0.8V
      nominal_frequency: 50GHz
    - name: hdr-lane
      technology: InfiniBand HDR lane
      area_per_link: 0.35mm2
      links_per_mm: 4
      energy_per_bit: 5pJ
      operation_latency: 20us
      nominal_voltage: 0.8V
      threshold_voltage: 0.3V
      min_voltage: 0.6V
      max_voltage: 0.8V
      nominal_frequency: 50GHz
)";

// An A100-like GPU organisation: 16x16 tensor cores, four per SM, a
// register file per tensor core, shared memory per SM, one L2, HBM, NVLink
// inside an 8-GPU board and InfiniBand between boards. max_utilization and
// kernel_overhead are the a100-80gb preset's fitted constants (a unit test
// keeps them equal).
constexpr std::string_view kGpu16x16 = R"(template:
  name: gpu-16x16
  mcu: {compute: n7-tensor-mac, rows: 16, cols: 16, per_bundle: 4, dataflow: best, max_utilization: 0.898}
  fp32_rate_ratio: 0.0625
  bf16: true
  vector_rate_fraction: 0.25
  kernel_overhead: 30.9us
  memory:
    - {name: reg,  technology: n7-regfile, scope: mcu,    partial_sums: false}
    - {name: smem, technology: n7-sram,    scope: bundle, partial_sums: false}
    - {name: l2,   technology: n7-sram-hd, scope: global}
  main_memory: {name: hbm, technology: hbm2e-stack, efficiency: 0.9}
  network:
    intra_package: {technology: nvlink3-lane, devices: 8, topology: switch, efficiency: 0.65}
    inter_package: {technology: hdr-lane, devices: 65536, topology: switch, efficiency: 0.9}
)";

// snr's own NPU (docs/npu.md): 128x128 weight-stationary matrix units
// sharing one VMEM, vector registers per unit, HBM, ICI links in a torus.
// Chosen so `npu-v4-like` lands on the tpu-v4-like hardware preset; the
// emitted NPU config (`snr pathfind emit`) compiles and runs with it.
constexpr std::string_view kNpu128 = R"(template:
  name: npu-128x128
  mcu: {compute: n7-mxu-mac, rows: 128, cols: 128, per_bundle: 1, dataflow: ws, max_utilization: 0.9}
  fp32_rate_ratio: 0
  bf16: true
  vector_rate_fraction: 0.0078125
  kernel_overhead: 5us
  memory:
    - {name: vreg, technology: n7-vreg, scope: mcu, partial_sums: false}
    - {name: vmem, technology: n7-vmem, scope: global}
  main_memory: {name: hbm, technology: hbm2-stack, efficiency: 0.9}
  network:
    intra_package: {technology: ici-lane, devices: 4096, topology: torus, efficiency: 0.8}
)";

// A 400 mm2, 192 W NPU chip with four HBM2 stacks, split so the generator
// gives the tpu-v4-like preset's 8 matrix units at 1.05 GHz, 16 MiB VMEM,
// 32 GiB HBM at 1.2 TB/s and six 50 GB/s ICI links.
constexpr std::string_view kNpuV4Like = R"(name: npu-v4-like
area_breakdown:
  node_area_budget: 800mm2
  proc_chip_area_budget: 400mm2
  core: 0.30
  vreg: 0.0041
  vmem: 0.0203
  hbm: 0.10
  network: {intra_package: 0.086}
power_breakdown:
  TDP: 192W
  core: 0.501
  vreg: 0.025
  vmem: 0.04
  hbm: 0.21
  network: {intra_package: 0.11}
perimeter_breakdown:
  hbm: 0.5
  network: {intra_package: 0.3}
)";

// The A100 SXM4 80 GB's public totals (826 mm2 die, 400 W) with a split
// chosen so the generator lands on its published counts.
constexpr std::string_view kA100Like = R"(name: a100-like
area_breakdown:
  node_area_budget: 1400mm2
  proc_chip_area_budget: 826mm2
  core: 0.40
  reg: 0.053
  smem: 0.020
  l2: 0.0295
  hbm: 0.075
  network: {intra_package: 0.041, inter_package: 0.0035}
power_breakdown:
  TDP: 400W
  core: 0.50
  reg: 0.10
  smem: 0.025
  l2: 0.037
  hbm: 0.17
  network: {intra_package: 0.05, inter_package: 0.006}
perimeter_breakdown:
  hbm: 0.41
  network: {intra_package: 0.22, inter_package: 0.02}
)";

struct Builtin {
  std::string_view name;
  std::string_view yaml;
};
constexpr Builtin kTechnologies[] = {{"n7", kN7}};
constexpr Builtin kTemplates[] = {{"gpu-16x16", kGpu16x16}, {"npu-128x128", kNpu128}};
constexpr Builtin kBudgets[] = {{"a100-like", kA100Like}, {"npu-v4-like", kNpuV4Like}};

template <size_t N>
std::string_view find_yaml(const Builtin (&table)[N], std::string_view name, std::string_view kind) {
  std::string known;
  for (const Builtin& b : table) {
    if (b.name == name) return b.yaml;
    known += (known.empty() ? "" : ", ") + std::string(b.name);
  }
  throw Error(fmt::format("no built-in {} '{}' (known: {})", kind, name, known));
}
template <size_t N>
std::vector<std::string_view> names_of(const Builtin (&table)[N]) {
  std::vector<std::string_view> out;
  for (const Builtin& b : table) out.push_back(b.name);
  return out;
}

// Libraries at the other logic nodes: n7 carried there (technology_node.h).
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kDerivedTechnologies = {
    {{"n12", "N12"}, {"n10", "N10"}, {"n5", "N5"}, {"n3", "N3"}, {"n2", "N2"}, {"n1", "N1"}}};

const std::string_view* derived_node(std::string_view name) {
  for (const auto& [library, node] : kDerivedTechnologies) {
    if (library == name) return &node;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string_view> builtin_technology_names() {
  std::vector<std::string_view> names = names_of(kTechnologies);
  for (const auto& derived : kDerivedTechnologies) names.push_back(derived.first);
  return names;
}
std::vector<std::string_view> builtin_template_names() { return names_of(kTemplates); }
std::vector<std::string_view> builtin_budget_names() { return names_of(kBudgets); }

std::string builtin_input_yaml(std::string_view name) {
  if (derived_node(name) != nullptr) {
    return fmt::format("# n7 carried to {} (area / 1.8, power / 1.3 per node step on the die's logic)\n{}",
                       *derived_node(name), format_technology_yaml(builtin_technology(name)));
  }
  for (std::span<const Builtin> table : {std::span<const Builtin>(kTechnologies), std::span<const Builtin>(kTemplates),
                                          std::span<const Builtin>(kBudgets)}) {
    for (const Builtin& b : table) {
      if (b.name == name) return std::string(b.yaml);
    }
  }
  throw Error(fmt::format("no built-in technology library, template or budget named '{}'", name));
}

TechnologyLibrary builtin_technology(std::string_view name) {
  if (const std::string_view* node = derived_node(name); node != nullptr) {
    return scale_to_node(builtin_technology("n7"), "N7", *node, std::string(name));
  }
  return parse_technology_yaml(find_yaml(kTechnologies, name, "technology library"), name);
}
ArchitectureTemplate builtin_template(std::string_view name) {
  return parse_template_yaml(find_yaml(kTemplates, name, "architecture template"), name);
}
ResourceBudget builtin_budget(std::string_view name) {
  return parse_budget_yaml(find_yaml(kBudgets, name, "budget"), name);
}

}  // namespace snr::pathfind::age
