// The GPU model's parameters (seed 003 §4.4, §5.1, §5.3) and where they come
// from: a preset by name or a YAML file with the same keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace snr::dsim::gpu {

// How finely the model issues memory traffic (docs/gpu-model.md, "Flow-level
// mode"): one Access per cache line (the reference), or one Access per run
// of a wavefront's consecutive lines of one range (a flow), far fewer events
// for a small error.
enum class Granularity : uint8_t { kRequest, kFlow };

// "request" or "flow".
const char* to_string(Granularity granularity);
// Throws snr::Error naming the known granularities for an unknown name.
Granularity parse_granularity(std::string_view name);

struct GpuConfig {
  std::string name = "generic-448";
  uint32_t compute_units = 128;          // §5.1: 32 routers x 4 CUs
  uint32_t workgroups_per_cu = 2;        // resident workgroups a CU accommodates (§4.4.1)
  uint32_t cache_line_bytes = 128;       // one Wavefront Request (§4.4.3)
  double clock_ghz = 1.5;                // CU clock: one request issued per CU per cycle
  uint32_t unroll = 4;                   // lines in flight per wavefront in a copy/reduce loop (§4.4.4)
  uint32_t max_outstanding_per_cu = 64;  // in-flight requests per CU, the register-file proxy (§5.3)
  uint32_t reduce_cycles_per_line = 1;   // ALU cycles to combine one line in a chained reduce
  uint32_t control_message_bytes = 16;   // read request / store acknowledgement header
  // Whether a store holds an outstanding-request slot until its
  // acknowledgement returns. Off: the slot (a register) frees when the line
  // leaves the CU, so puts are not paced by the round trip of their acks
  // (seed 003 §5.2: a put's blocked acknowledgements barely matter).
  bool stores_wait_for_ack = false;
  Granularity granularity = Granularity::kRequest;

  // Clock period rounded to whole picoseconds (the simulation's unit).
  [[nodiscard]] uint64_t cycle_ps() const;
};

// Preset names accepted by gpu_config_preset().
std::vector<std::string> gpu_presets();

// Throws snr::Error naming the presets for an unknown name.
GpuConfig gpu_config_preset(std::string_view name);

// Strict YAML reader: every key optional (defaults of `base`), unknown keys
// and out-of-range numbers are errors naming the key and line. Either the
// keys at the top level or under a `gpu:` mapping (a combined file may hold
// a `network:` mapping too, which this reader skips).
GpuConfig parse_gpu_config(std::string_view yaml_text, std::string_view source_name,
                           const GpuConfig& base = GpuConfig{});

// A preset name, or else a YAML file path.
GpuConfig load_gpu_config(const std::string& preset_or_path);

}  // namespace snr::dsim::gpu
