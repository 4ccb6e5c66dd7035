// Hardware configuration of the open NPU: one flat set of dotted keys
// ("hbm.bandwidth", "vmem.page_bytes") described by a single schema table.
// The schema drives the YAML reader, validation, `--set key=value`
// overrides, presets and the generated key list in docs/hardware.md, so a
// parameter is declared exactly once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/units.h"

namespace snr::hw {

enum class TopologyKind { kRing, kTorus2d, kFullyConnected };

std::string_view topology_kind_name(TopologyKind kind);

struct HwConfig {
  std::string preset_name;  // which preset the values started from

  // Clock and chips.
  Frequency clock;
  uint64_t chip_count = 0;
  TopologyKind topology = TopologyKind::kRing;
  uint64_t torus_width = 0;  // columns of a 2-D torus; 0 = as square as possible

  // Matrix units.
  uint64_t mxu_count = 0;
  uint64_t mxu_weight_load_cycles = 0;  // 128x128 tile from VMEM into the systolic array
  uint64_t mxu_fill_cycles = 0;         // first LHS row in to first result row out
  uint64_t mxu_push_interval_cycles = 0;  // issue interval between pushes
  uint64_t mxu_drain_cycles = 0;        // accumulator to vector register

  // Vector unit.
  uint64_t vector_alu_latency_cycles = 0;
  uint64_t vector_transcendental_latency_cycles = 0;
  uint64_t vector_issue_interval_cycles = 0;
  uint64_t vector_load_latency_cycles = 0;

  // Scalar core.
  uint64_t scalar_alu_latency_cycles = 0;
  uint64_t scalar_mul_latency_cycles = 0;
  uint64_t scalar_div_latency_cycles = 0;
  uint64_t scalar_load_latency_cycles = 0;
  uint64_t branch_taken_penalty_cycles = 0;

  // Memories.
  Bytes smem_bytes;
  Bandwidth smem_bandwidth;
  Bytes vmem_page_bytes;
  uint64_t vmem_pages_per_block = 0;
  uint64_t vmem_blocks = 0;
  Bandwidth vmem_bandwidth;
  Bytes hbm_bytes;
  Bandwidth hbm_bandwidth;

  // DMA engine and inter-chip links.
  Duration dma_base_latency;
  uint64_t dma_max_outstanding = 0;
  uint64_t ici_links_per_chip = 0;
  Bandwidth ici_link_bandwidth;
  Duration ici_hop_latency;

  [[nodiscard]] uint64_t vmem_bytes() const {
    return vmem_page_bytes.count * vmem_pages_per_block * vmem_blocks;
  }
  // Converts a duration to whole cycles at `clock`, rounding up so a
  // non-zero latency never becomes free.
  [[nodiscard]] uint64_t cycles_for(Duration duration) const;
  // Bytes moved per cycle at `bandwidth`, in 1/65536 byte units (fixed point
  // keeps DMA timing integer and identical on every machine).
  [[nodiscard]] uint64_t bytes_per_cycle_q16(Bandwidth bandwidth) const;

  // Sets one key from text with the same parsing and validation as YAML.
  // Throws snr::Error naming the key on an unknown key or a bad value.
  void set(std::string_view key, std::string_view value);
  // Canonical text of one key's current value.
  [[nodiscard]] std::string get(std::string_view key) const;
  // Cross-key checks (page size divides 512 B rows, torus shape, ...), and
  // every bandwidth and latency converted at `clock`: a latency that whole
  // cycles would lengthen by more than 1% (a sub-cycle one, say) is an
  // error naming the key and the whole-cycle values nearest to it.
  void validate() const;
  // "key: value" lines in schema order, deterministic.
  [[nodiscard]] std::string to_yaml() const;
};

enum class ValueKind { kCount, kBytes, kDuration, kBandwidth, kFrequency, kTopology };

struct KeyInfo {
  std::string_view key;
  ValueKind kind;
  std::string_view default_value;  // text, as a user would write it
  std::string_view doc;
};

// Every key, in documentation order.
const std::vector<KeyInfo>& schema();
// The clocks the schema accepts (1MHz .. 100GHz), for a clock stored outside
// a config (a run.db's meta.clock_hz).
struct ClockRange {
  Frequency min;
  Frequency max;
};
ClockRange clock_range();
std::string_view value_kind_name(ValueKind kind);

// Presets by name; throws naming the known presets when `name` is unknown.
HwConfig preset(std::string_view name);
std::vector<std::string_view> preset_names();

// Parses YAML text. A top-level `preset:` key picks the starting preset
// (default tpu-v4-like); nested maps become dotted keys. `source_name`
// appears in errors as "source_name:line:".
HwConfig parse_config_yaml(std::string_view yaml_text, std::string_view source_name);
HwConfig load_config_file(const std::string& path);
// "tpu-v4-like" or a path to a YAML file.
HwConfig load_preset_or_file(const std::string& preset_or_path);
// The same, saying whether a YAML file (not a preset) gave `chips` itself:
// verbs that choose the chip count (a compiled model's tensor-parallel
// chips, the built-in demo's two) check or keep the file's count instead
// of dropping it unsaid.
struct LoadedHardware {
  HwConfig config;
  bool gives_chips = false;
};
LoadedHardware load_hardware(const std::string& preset_or_path);
// The same from YAML text (parse_config_yaml's errors).
LoadedHardware parse_hardware_yaml(std::string_view yaml_text, std::string_view source_name);

// Applies "key=value" overrides (the CLI's --set) in order, then validates.
// A key given twice is an error (the values contradict each other).
void apply_overrides(HwConfig& config, const std::vector<std::string>& assignments);
// The overrides plus "chips=N" for a verb's --chips option (empty: none);
// a --set chips=... beside it is an error naming both.
std::vector<std::string> with_chips_option(std::vector<std::string> overrides, const std::string& chips);

// Markdown table of every key (for docs/hardware.md).
std::string schema_markdown();

}  // namespace snr::hw
