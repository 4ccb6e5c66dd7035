// The architecture template of seed 004 §4.2: how components from the
// technology library are organised — MCU shape and dataflow, MCUs per
// bundle, memory levels with their scope, main memory, and the two network
// tiers with their topology — without committing to any count, size or
// bandwidth; those come from the budgets (AGE).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathfind/inputs/device.h"

namespace snr::pathfind::age {

struct TemplateMcu {
  std::string compute;  // ComputeTech name
  uint32_t rows = 0;
  uint32_t cols = 0;
  uint32_t per_bundle = 1;
  Dataflow dataflow = Dataflow::kBest;
  double max_utilization = 1.0;
};

struct TemplateMemoryLevel {
  std::string name;        // also the key of this level in the budgets
  std::string technology;  // OnChipMemoryTech name
  Scope scope = Scope::kGlobal;
  bool partial_sums = true;
  double efficiency = 1.0;
};

struct TemplateMainMemory {
  std::string name;        // budget key (area: controllers on the die; power; perimeter)
  std::string technology;  // OffChipMemoryTech name
  double efficiency = 1.0;
};

enum class Topology { kMesh, kTorus, kCrossbar, kSwitch };
std::string_view topology_name(Topology topology);
Topology parse_topology(std::string_view text);

struct TemplateNetworkTier {
  std::string technology;              // LinkTech name
  uint64_t devices = 1;                // devices reachable in the tier
  Topology topology = Topology::kSwitch;
  std::vector<uint64_t> shape;         // mesh/torus dimensions; product == devices
  double efficiency = 1.0;
};

struct ArchitectureTemplate {
  std::string name;
  TemplateMcu mcu;
  double fp32_rate_ratio = 0;
  bool supports_bf16 = true;
  // Elementwise arithmetic rate as a fraction of the 16-bit matrix peak.
  double vector_rate_fraction = 0;
  double kernel_overhead_s = 0;
  std::vector<TemplateMemoryLevel> levels;  // on-chip, innermost first
  TemplateMainMemory main_memory;
  std::optional<TemplateNetworkTier> intra_package;
  std::optional<TemplateNetworkTier> inter_package;

  // Shapes the generator relies on; throws naming the field.
  void validate() const;
  // Names the budgets distribute resources over: "core", each level, main memory.
  [[nodiscard]] std::vector<std::string> component_names() const;
};

ArchitectureTemplate parse_template_yaml(std::string_view text, std::string_view source);
std::vector<std::string_view> builtin_template_names();
ArchitectureTemplate builtin_template(std::string_view name);
ArchitectureTemplate load_template(const std::string& name_or_path);

}  // namespace snr::pathfind::age
