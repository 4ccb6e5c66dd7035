#include "pathfind/inputs/device.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "common/units.h"
#include "hw/config.h"
#include "pathfind/inputs/quantity.h"

namespace snr::pathfind {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return "fp16";
    case DType::kBf16: return "bf16";
    case DType::kFp32: return "fp32";
  }
  return "?";
}

DType parse_dtype(std::string_view text) {
  if (text == "fp16") return DType::kFp16;
  if (text == "bf16") return DType::kBf16;
  if (text == "fp32") return DType::kFp32;
  throw Error(fmt::format("'{}' is not a data type (fp16, bf16, fp32)", text));
}

std::string_view dataflow_name(Dataflow dataflow) {
  switch (dataflow) {
    case Dataflow::kWeightStationary: return "ws";
    case Dataflow::kActivationStationary: return "as";
    case Dataflow::kOutputStationary: return "os";
    case Dataflow::kBest: return "best";
  }
  return "?";
}

Dataflow parse_dataflow(std::string_view text) {
  if (text == "ws") return Dataflow::kWeightStationary;
  if (text == "as") return Dataflow::kActivationStationary;
  if (text == "os") return Dataflow::kOutputStationary;
  if (text == "best") return Dataflow::kBest;
  throw Error(fmt::format("'{}' is not a dataflow (ws, as, os, best)", text));
}

std::string_view scope_name(Scope scope) {
  switch (scope) {
    case Scope::kMcu: return "mcu";
    case Scope::kBundle: return "bundle";
    case Scope::kGlobal: return "global";
  }
  return "?";
}

Scope parse_scope(std::string_view text) {
  if (text == "mcu") return Scope::kMcu;
  if (text == "bundle") return Scope::kBundle;
  if (text == "global") return Scope::kGlobal;
  throw Error(fmt::format("'{}' is not a memory scope (mcu, bundle, global)", text));
}

double DeviceSpec::mcu_flops_per_s(DType dtype) const {
  double base = 2.0 * mcu_rows * mcu_cols * frequency_hz;
  if (dtype == DType::kFp32) {
    if (fp32_rate_ratio <= 0) throw Error(fmt::format("device '{}' has no fp32 matrix path", name));
    return base * fp32_rate_ratio;
  }
  if (dtype == DType::kBf16 && !supports_bf16) throw Error(fmt::format("device '{}' has no bf16 matrix path", name));
  return base;
}

double DeviceSpec::instances(Scope scope) const {
  switch (scope) {
    case Scope::kMcu: return mcu_count();
    case Scope::kBundle: return bundles;
    case Scope::kGlobal: return 1;
  }
  return 1;
}

void DeviceSpec::validate() const {
  auto fail = [&](std::string_view field, std::string_view why) {
    throw Error(fmt::format("device '{}': {}: {}", name, field, why));
  };
  if (mcu_rows == 0 || mcu_cols == 0) fail("mcu.rows/cols", "must be positive");
  if (mcus_per_bundle == 0 || bundles == 0) fail("mcu.per_bundle/bundles", "must be positive");
  if (!(frequency_hz > 0)) fail("frequency", "must be positive");
  if (!(max_utilization > 0 && max_utilization <= 1)) fail("mcu.max_utilization", "must be in (0, 1]");
  if (!(vector_flops_per_s > 0)) fail("vector_rate", "must be positive");
  if (levels.size() < 2) fail("memory", "needs at least registers (scope mcu) and main memory");
  if (levels.front().scope != Scope::kMcu) fail("memory[0].scope", "the innermost level must have scope mcu");
  if (levels.back().scope != Scope::kGlobal) fail("memory[last].scope", "main memory must have scope global");
  for (size_t i = 0; i < levels.size(); ++i) {
    const MemoryLevel& l = levels[i];
    std::string field = fmt::format("memory[{}] ({})", i, l.name);
    if (!(l.capacity_bytes > 0)) fail(field, "capacity must be positive");
    if (!(l.bandwidth_bytes_per_s > 0)) fail(field, "bandwidth must be positive");
    if (!(l.efficiency > 0 && l.efficiency <= 1)) fail(field, "efficiency must be in (0, 1]");
    if (i > 0 && static_cast<int>(l.scope) < static_cast<int>(levels[i - 1].scope)) {
      fail(field, "scopes must widen outwards (mcu, bundle, global)");
    }
    // Results name a level by its name alone (a kernel's bound, the cause
    // "memory:<name>"): two levels of one name would read as one.
    for (size_t j = 0; j < i; ++j) {
      if (levels[j].name == l.name) fail(field, fmt::format("the name is memory[{}]'s too", j));
    }
  }
  for (size_t i = 0; i < network.size(); ++i) {
    const NetworkTier& t = network[i];
    std::string field = fmt::format("network[{}] ({})", i, t.name);
    if (t.size == 0) fail(field, "size must be positive");
    for (size_t j = 0; j < i; ++j) {
      if (network[j].name == t.name) fail(field, fmt::format("the name is network[{}]'s too", j));
    }
    if (!(t.bandwidth_bytes_per_s > 0)) fail(field, "bandwidth must be positive");
    if (!(t.efficiency > 0 && t.efficiency <= 1)) fail(field, "efficiency must be in (0, 1]");
    if (!(t.latency_s >= 0 && t.latency_s <= 1)) fail(field, "latency must be in [0, 1] s");
    if (!(t.operation_latency_s >= 0 && t.operation_latency_s <= 1)) {
      fail(field, "operation_latency must be in [0, 1] s");
    }
    for (const auto& [op, factor] : t.traffic.named()) {
      // Two devices is the smallest group; the traffic must not be negative there.
      if (!(factor.scalar > 0 && std::isfinite(factor.scalar) && std::isfinite(factor.offset) && factor.of(2) >= 0)) {
        fail(field, fmt::format("traffic.{}: scalar {} and offset {} give negative or undefined bytes", op,
                                factor.scalar, factor.offset));
      }
    }
  }
}

namespace {

// Constants fitted on the LLMCompass A100 sweep with N = K = 64..32768 at
// M = 8192 (docs/pathfind.md, "GEMM validation"); the other NVIDIA presets
// reuse them untested.
constexpr double kGpuMaxUtilization = 0.898;
// Network latency once per collective or transfer, and the efficiencies
// beside them, as Calculon's A100 system gives them (systems/a100_80g.json:
// 10 µs over NVLink, 20 µs over InfiniBand); the GPU presets share them.
constexpr double kNvlinkOperationLatencyS = 10e-6;
constexpr double kInfinibandOperationLatencyS = 20e-6;
constexpr double kGpuKernelOverheadS = 30.9e-6;

NetworkTier gpu_tier(std::string name, uint64_t size, double bandwidth_bytes_per_s, double efficiency,
                     double operation_latency_s) {
  NetworkTier tier;
  tier.name = std::move(name);
  tier.size = size;
  tier.bandwidth_bytes_per_s = bandwidth_bytes_per_s;
  tier.efficiency = efficiency;
  tier.operation_latency_s = operation_latency_s;
  return tier;
}

DeviceSpec gpu(std::string name, uint32_t mcu_rows, uint32_t mcu_cols, uint32_t bundles, double freq_hz) {
  DeviceSpec d;
  d.name = std::move(name);
  d.mcu_rows = mcu_rows;
  d.mcu_cols = mcu_cols;
  d.mcus_per_bundle = 4;  // four tensor cores per SM
  d.bundles = bundles;
  d.frequency_hz = freq_hz;
  d.dataflow = Dataflow::kBest;
  d.max_utilization = kGpuMaxUtilization;
  d.kernel_overhead_s = kGpuKernelOverheadS;
  return d;
}

DeviceSpec a100_80gb() {
  DeviceSpec d = gpu("a100-80gb", 16, 16, 108, 1410e6);  // 256 fp16 FMA/clk per tensor core
  d.fp32_rate_ratio = 19.5 / 312.0;
  d.vector_flops_per_s = 78e12;
  d.levels = {
      {"reg", Scope::kMcu, 64.0 * 1024, 512.0 * 1410e6, 1.0, false},       // 256 KiB register file per SM
      {"smem", Scope::kBundle, 164.0 * 1024, 128.0 * 1410e6, 1.0, false},  // 128 B/clk per SM
      {"l2", Scope::kGlobal, 40.0 * 1024 * 1024, 5120.0 * 1410e6, 1.0},
      {"hbm", Scope::kGlobal, 80.0 * 1024 * 1024 * 1024, 2039e9, 0.9},
  };
  d.network = {gpu_tier("nvlink3", 8, 300e9, 0.65, kNvlinkOperationLatencyS),
               gpu_tier("ib-hdr", 65536, 25e9, 0.9, kInfinibandOperationLatencyS)};
  return d;
}

DeviceSpec v100() {
  DeviceSpec d = gpu("v100", 8, 8, 80, 1530e6);  // 64 fp16 FMA/clk per tensor core, 8 per SM
  d.mcus_per_bundle = 8;
  d.supports_bf16 = false;
  d.fp32_rate_ratio = 15.7 / 125.0;
  d.vector_flops_per_s = 31.4e12;
  d.levels = {
      {"reg", Scope::kMcu, 32.0 * 1024, 256.0 * 1530e6, 1.0, false},
      {"smem", Scope::kBundle, 96.0 * 1024, 128.0 * 1530e6, 1.0, false},
      {"l2", Scope::kGlobal, 6.0 * 1024 * 1024, 2155e9, 1.0},
      {"hbm", Scope::kGlobal, 32.0 * 1024 * 1024 * 1024, 900e9, 0.9},
  };
  d.network = {gpu_tier("nvlink2", 8, 150e9, 0.65, kNvlinkOperationLatencyS),
               gpu_tier("ib-edr", 65536, 12.5e9, 0.9, kInfinibandOperationLatencyS)};
  return d;
}

DeviceSpec h100_sxm() {
  DeviceSpec d = gpu("h100-sxm", 16, 32, 132, 1830e6);  // 512 dense fp16 FMA/clk per tensor core
  // Fitted on measured fp16 GEMMs, N = K sweep at M = 8192 only
  // (bench/pathfind/measure/h100-sxm; gemm_validation_h100_test.cc).
  d.max_utilization = 0.782;
  d.kernel_overhead_s = 19.9e-6;
  d.fp32_rate_ratio = 67.0 / 989.4;
  d.vector_flops_per_s = 133.8e12;
  d.levels = {
      {"reg", Scope::kMcu, 64.0 * 1024, 1024.0 * 1830e6, 1.0, false},
      {"smem", Scope::kBundle, 228.0 * 1024, 128.0 * 1830e6, 1.0, false},
      {"l2", Scope::kGlobal, 50.0 * 1024 * 1024, 5120.0 * 1830e6, 1.0},
      {"hbm", Scope::kGlobal, 80.0 * 1024 * 1024 * 1024, 3350e9, 0.9},
  };
  d.network = {gpu_tier("nvlink4", 8, 450e9, 0.65, kNvlinkOperationLatencyS),
               gpu_tier("ib-ndr", 65536, 50e9, 0.9, kInfinibandOperationLatencyS)};
  return d;
}

// The NPU presets start from src/hw's description so both layers agree on
// clock, matrix units, VMEM and HBM.
DeviceSpec npu(std::string_view hw_preset) {
  hw::HwConfig hw = hw::preset(hw_preset);
  DeviceSpec d;
  d.name = std::string(hw_preset);
  d.mcu_rows = 128;
  d.mcu_cols = 128;
  d.mcus_per_bundle = static_cast<uint32_t>(hw.mxu_count);
  d.bundles = 1;
  d.frequency_hz = hw.clock.hertz;
  d.fp32_rate_ratio = 0;  // the MXUs take bf16 only
  d.supports_bf16 = true;
  // One 8x128 vector op per cycle on 16-bit data, two flops per lane (FMA).
  d.vector_flops_per_s = 8.0 * 128 * 2 * hw.clock.hertz;
  d.dataflow = Dataflow::kWeightStationary;
  d.max_utilization = 0.9;
  d.kernel_overhead_s = 5e-6;
  double vreg_bytes_per_cycle = 8.0 * 128 * 4;  // one f32 vreg per cycle per MXU port
  d.levels = {
      {"vreg", Scope::kMcu, 32.0 * 4096, vreg_bytes_per_cycle * hw.clock.hertz, 1.0, false},
      {"vmem", Scope::kBundle, static_cast<double>(hw.vmem_bytes()), hw.vmem_bandwidth.bytes_per_second * kNpuVmemReadToDmaRatio, 1.0},
      {"hbm", Scope::kGlobal, static_cast<double>(hw.hbm_bytes.count), hw.hbm_bandwidth.bytes_per_second, 0.9},
  };
  NetworkTier ici;
  ici.name = "ici";
  ici.size = 4096;
  ici.bandwidth_bytes_per_s = static_cast<double>(hw.ici_links_per_chip) * hw.ici_link_bandwidth.bytes_per_second;
  ici.latency_s = static_cast<double>(hw.ici_hop_latency.picoseconds) * 1e-12;  // per hop: per ring step
  ici.efficiency = 0.8;
  d.network = {ici};
  return d;
}

}  // namespace

std::vector<std::string_view> device_preset_names() {
  return {"v100", "a100-80gb", "h100-sxm", "tpu-v4-like", "tpu-v5e-like"};
}

DeviceSpec device_preset(std::string_view name) {
  DeviceSpec d;
  if (name == "v100") d = v100();
  else if (name == "a100-80gb") d = a100_80gb();
  else if (name == "h100-sxm") d = h100_sxm();
  else if (name == "tpu-v4-like" || name == "tpu-v5e-like") d = npu(name);
  else {
    std::string known;
    for (auto n : device_preset_names()) known += (known.empty() ? "" : ", ") + std::string(n);
    throw Error(fmt::format("unknown device preset '{}' (known: {})", name, known));
  }
  d.validate();
  return d;
}


DeviceSpec parse_device_yaml(std::string_view text, std::string_view source) {
  return parse_device_yaml(load_yaml_text(text, source), source);
}

DeviceSpec parse_device_yaml(const YAML::Node& root, std::string_view source) {
  StrictMap top(root, std::string(source), "");
  StrictMap m = top.map("device");
  DeviceSpec d;
  d.name = m.string("name");
  StrictMap mcu = m.map("mcu");
  d.mcu_rows = static_cast<uint32_t>(mcu.count("rows", 1, 4096));
  d.mcu_cols = static_cast<uint32_t>(mcu.count("cols", 1, 4096));
  d.mcus_per_bundle = static_cast<uint32_t>(mcu.count("per_bundle", 1, 1 << 16));
  std::string df = mcu.string_or("dataflow", "best");
  d.dataflow = with_error_context(mcu.where("dataflow"), [&] { return parse_dataflow(df); });
  d.max_utilization = mcu.number_or("max_utilization", 1.0, 1e-3, 1.0);
  mcu.finish();
  d.bundles = static_cast<uint32_t>(m.count("bundles", 1, 1 << 20));
  d.frequency_hz = m.quantity("frequency", parse_frequency_hz, 1e6, 1e11);
  d.fp32_rate_ratio = m.number_or("fp32_rate_ratio", 0.0, 0.0, 1.0);
  d.supports_bf16 = m.boolean_or("bf16", true);
  d.vector_flops_per_s = m.quantity("vector_rate", parse_flops_per_s, 1e6, 1e20);
  d.kernel_overhead_s = m.has("kernel_overhead") ? m.quantity("kernel_overhead", parse_duration_s, 0, 1) : 0.0;
  for (const StrictMap& l : m.list_of_maps("memory")) {
    MemoryLevel level;
    level.name = l.string("name");
    std::string scope = l.string("scope");
    level.scope = with_error_context(l.where("scope"), [&] { return parse_scope(scope); });
    level.capacity_bytes = l.quantity("capacity", parse_bytes_count, 1, 1e18);
    level.bandwidth_bytes_per_s = l.quantity("bandwidth", parse_bandwidth_bytes_per_s, 1, 1e18);
    level.efficiency = l.number_or("efficiency", 1.0, 1e-3, 1.0);
    level.partial_sums = l.boolean_or("partial_sums", level.scope == Scope::kGlobal);
    l.finish();
    d.levels.push_back(std::move(level));
  }
  if (m.has("network")) {
    for (const StrictMap& n : m.list_of_maps("network")) {
      NetworkTier tier;
      tier.name = n.string("name");
      tier.size = n.count("size", 1, 1ull << 32);
      tier.bandwidth_bytes_per_s = n.quantity("bandwidth", parse_bandwidth_bytes_per_s, 1, 1e18);
      tier.latency_s = n.has("latency") ? n.quantity("latency", parse_duration_s, 0, 1) : 0.0;
      tier.operation_latency_s =
          n.has("operation_latency") ? n.quantity("operation_latency", parse_duration_s, 0, 1) : 0.0;
      tier.efficiency = n.number_or("efficiency", 1.0, 1e-3, 1.0);
      if (n.has("traffic")) {
        const StrictMap traffic = n.map("traffic");
        for (auto [op, factor] : tier.traffic.named()) {
          if (!traffic.has(op)) continue;
          const StrictMap f = traffic.map(op);
          factor->scalar = f.number("scalar", 1e-6, 1e6);
          factor->offset = f.number_or("offset", 0.0, -2.0, 1e6);
          f.finish();
        }
        traffic.finish();
      }
      n.finish();
      d.network.push_back(std::move(tier));
    }
  }
  m.finish();
  top.finish();
  with_error_context(std::string(source), [&] { d.validate(); });
  return d;
}

DeviceSpec load_device(const std::string& preset_or_path) {
  for (auto name : device_preset_names()) {
    if (name == preset_or_path) return device_preset(name);
  }
  if (!std::filesystem::exists(preset_or_path)) {
    std::string known;
    for (auto n : device_preset_names()) known += (known.empty() ? "" : ", ") + std::string(n);
    throw Error(fmt::format("'{}' is neither a device preset ({}) nor a file", preset_or_path, known));
  }
  return parse_device_yaml(read_file(preset_or_path), preset_or_path);
}

}  // namespace snr::pathfind
