// What the performance model sees of one accelerator: matrix units (MCUs)
// grouped in bundles, a memory hierarchy from registers to main memory, and
// the network tiers between devices. AGE generates one of these from
// technology, template and budgets; presets build one from public figures;
// users can write one in YAML (docs/formats/pathfind-inputs.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace YAML {
class Node;
}

namespace snr::pathfind {

enum class DType { kFp16, kBf16, kFp32 };
std::string_view dtype_name(DType dtype);
DType parse_dtype(std::string_view text);  // "fp16", "bf16", "fp32"
inline double dtype_bytes(DType dtype) { return dtype == DType::kFp32 ? 4.0 : 2.0; }

// §4.2.1 / §6.3: which operand stays inside the MCU while the others stream.
enum class Dataflow { kWeightStationary, kActivationStationary, kOutputStationary, kBest };
std::string_view dataflow_name(Dataflow dataflow);  // "ws", "as", "os", "best"
Dataflow parse_dataflow(std::string_view text);

// §4.2.2: which components one instance of a memory level serves.
enum class Scope { kMcu, kBundle, kGlobal };
std::string_view scope_name(Scope scope);
Scope parse_scope(std::string_view text);

struct MemoryLevel {
  std::string name;
  Scope scope = Scope::kGlobal;
  double capacity_bytes = 0;         // per instance
  double bandwidth_bytes_per_s = 0;  // per instance, peak
  double efficiency = 1.0;           // achievable fraction of the peak bandwidth
  // Whether partial sums of the output may leave the level below and come
  // back here (loop orders without k innermost). GPU shared memory: no, the
  // accumulators stay in the MCU registers; caches and main memory: yes.
  bool partial_sums = true;
};

// Bytes a device sends over a tier for one operation on a buffer of B
// bytes among n devices: B × scalar × (1 + offset / n).
struct TrafficFactor {
  double scalar = 1;
  double offset = 0;
  [[nodiscard]] double of(uint64_t n) const { return scalar * (1 + offset / static_cast<double>(n)); }
  bool operator==(const TrafficFactor&) const = default;
};

// The factors of each operation. The defaults are ring algorithms':
// all-reduce 2 × (n−1)/n, reduce-scatter and all-gather (n−1)/n, a
// point-to-point transfer its bytes. Calculon's system files give their own
// per tier (`ops`: 1.5 × (n−1)/n for its NVLink reduce-scatter, 1 × B for
// every collective over InfiniBand).
struct TierTraffic {
  TrafficFactor all_reduce{2, -1};
  TrafficFactor reduce_scatter{1, -1};
  TrafficFactor all_gather{1, -1};
  TrafficFactor p2p{1, 0};
  bool operator==(const TierTraffic&) const = default;

  // Each factor under its name in the device YAML and Calculon's `ops`.
  using Named = std::array<std::pair<std::string_view, TrafficFactor*>, 4>;
  [[nodiscard]] Named named() {
    return {{{"all_reduce", &all_reduce}, {"reduce_scatter", &reduce_scatter}, {"all_gather", &all_gather},
             {"p2p", &p2p}}};
  }
  [[nodiscard]] std::array<std::pair<std::string_view, TrafficFactor>, 4> named() const {
    return {{{"all_reduce", all_reduce}, {"reduce_scatter", reduce_scatter}, {"all_gather", all_gather}, {"p2p", p2p}}};
  }
};

// One tier of the device network (scale-up domain, scale-out fabric). An
// operation takes operation_latency_s + steps × latency_s + its traffic
// over bandwidth × efficiency, where a ring collective over n devices takes
// n−1 steps per pass and a point-to-point transfer one.
struct NetworkTier {
  std::string name;
  uint64_t size = 1;                 // devices reachable within this tier
  double bandwidth_bytes_per_s = 0;  // per device, per direction
  double latency_s = 0;              // per message: per ring step of a collective
  double efficiency = 1.0;           // achievable fraction of the bandwidth
  // Once per collective or transfer (Calculon's `latency`, whose network
  // time is latency + bytes / (bandwidth × efficiency); NCCL's base latency).
  double operation_latency_s = 0;
  TierTraffic traffic;
};

struct DeviceSpec {
  std::string name;
  // MCU: a rows x cols array of multiply-accumulators (one MAC each per cycle).
  uint32_t mcu_rows = 0;
  uint32_t mcu_cols = 0;
  uint32_t mcus_per_bundle = 1;
  uint32_t bundles = 1;
  double frequency_hz = 0;
  // Matrix rate of 32-bit inputs relative to 16-bit (0: not supported).
  double fp32_rate_ratio = 0;
  bool supports_bf16 = true;
  // Rate of elementwise (non-matrix) arithmetic, 16-bit, whole device.
  double vector_flops_per_s = 0;
  Dataflow dataflow = Dataflow::kBest;
  // §4.2.1 maximum utilization of the MCUs (fill/drain, scheduling).
  double max_utilization = 1.0;
  // Fixed cost per kernel (launch, synchronisation) added to every kernel.
  double kernel_overhead_s = 0;
  // Innermost (registers, scope mcu) first; the last level is main memory.
  std::vector<MemoryLevel> levels;
  std::vector<NetworkTier> network;  // innermost tier first

  [[nodiscard]] uint32_t mcu_count() const { return mcus_per_bundle * bundles; }
  // Peak matrix flop/s of one MCU / the device for `dtype` inputs; throws
  // when the device has no matrix path for it.
  [[nodiscard]] double mcu_flops_per_s(DType dtype) const;
  [[nodiscard]] double peak_flops_per_s(DType dtype) const { return mcu_flops_per_s(dtype) * mcu_count(); }
  [[nodiscard]] const MemoryLevel& main_memory() const { return levels.back(); }
  // Number of instances of a level of this scope.
  [[nodiscard]] double instances(Scope scope) const;
  // Checks shapes the model relies on; throws naming the field.
  void validate() const;
};

// The NPU's matrix units read VMEM at this multiple of the DMA bandwidth
// that src/hw's `vmem.bandwidth` names; the NPU presets and the NPU config
// written from a generated device convert with it, in opposite directions.
inline constexpr double kNpuVmemReadToDmaRatio = 4.0;

// Presets from public figures (docs/pathfind.md cites each number):
// v100, a100-80gb, h100-sxm, tpu-v4-like, tpu-v5e-like.
DeviceSpec device_preset(std::string_view name);
std::vector<std::string_view> device_preset_names();

// YAML device description (strict; see docs/formats/pathfind-inputs.md).
DeviceSpec parse_device_yaml(std::string_view text, std::string_view source);
// The same from a document already parsed (snr sweep edits one per point).
DeviceSpec parse_device_yaml(const YAML::Node& document, std::string_view source);
// A preset name or a path to a YAML file.
DeviceSpec load_device(const std::string& preset_or_path);

}  // namespace snr::pathfind
