#include "pathfind/llm/calculon.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"

namespace snr::pathfind {
namespace {

using Json = nlohmann::json;

// One JSON object read strictly: every key must be asked for.
class Obj {
 public:
  Obj(const Json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) throw Error(fmt::format("{}: expected an object", where_));
  }
  const Json& at(std::string_view key) {
    asked_.emplace_back(key);
    auto it = j_.find(std::string(key));
    if (it == j_.end()) throw Error(fmt::format("{}.{}: missing required key", where_, key));
    return *it;
  }
  [[nodiscard]] bool has(std::string_view key) {
    asked_.emplace_back(key);
    return j_.contains(std::string(key));
  }
  uint64_t count(std::string_view key, uint64_t min, uint64_t max) {
    const Json& v = at(key);
    if (!v.is_number_unsigned() || v.get<uint64_t>() < min || v.get<uint64_t>() > max) {
      throw Error(fmt::format("{}.{}: expected an integer in [{}, {}], got {}", where_, key, min, max, v.dump()));
    }
    return v.get<uint64_t>();
  }
  double number(std::string_view key, double min, double max) {
    const Json& v = at(key);
    if (!v.is_number() || !(v.get<double>() >= min && v.get<double>() <= max)) {
      throw Error(fmt::format("{}.{}: expected a number in [{}, {}], got {}", where_, key, min, max, v.dump()));
    }
    return v.get<double>();
  }
  bool boolean(std::string_view key) {
    const Json& v = at(key);
    if (!v.is_boolean()) throw Error(fmt::format("{}.{}: expected true or false, got {}", where_, key, v.dump()));
    return v.get<bool>();
  }
  std::string string(std::string_view key) {
    const Json& v = at(key);
    if (!v.is_string()) throw Error(fmt::format("{}.{}: expected a string, got {}", where_, key, v.dump()));
    return v.get<std::string>();
  }
  Obj object(std::string_view key) { return Obj(at(key), fmt::format("{}.{}", where_, key)); }
  void finish() const {
    for (const auto& [key, value] : j_.items()) {
      bool known = false;
      for (const std::string& a : asked_) known = known || a == key;
      if (!known) throw Error(fmt::format("{}.{}: unknown key", where_, key));
    }
  }
  [[nodiscard]] std::string field(std::string_view key) const { return fmt::format("{}.{}", where_, key); }

 private:
  const Json& j_;
  std::string where_;
  std::vector<std::string> asked_;
};

// The efficiency curve is a list of [threshold, fraction] pairs; checked, not used.
void check_curve(const Json& curve, const std::string& where) {
  if (!curve.is_array() || curve.empty()) throw Error(fmt::format("{}: expected a list of [size, efficiency]", where));
  for (const Json& point : curve) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number() ||
        point[1].get<double>() <= 0 || point[1].get<double>() > 1) {
      throw Error(fmt::format("{}: each point must be [size, efficiency in (0, 1]], got {}", where, point.dump()));
    }
  }
}

// Calculon's `ops` of a network: {op: [scalar, offset]}; its time for an op
// of B bytes over n devices is latency + B × scalar × (1 + offset / n) /
// (bandwidth × efficiency). Collectives need an offset, p2p has null.
TierTraffic parse_calculon_ops(Obj ops) {
  TierTraffic traffic;
  for (auto [op, factor] : traffic.named()) {
    const Json& v = ops.at(op);
    const bool p2p = op == "p2p";
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !(v[0].get<double>() > 0 && v[0].get<double>() <= 1e6) ||
        (p2p ? !v[1].is_null() : !(v[1].is_number() && v[1].get<double>() >= -2 && v[1].get<double>() <= 1e6))) {
      throw Error(fmt::format("{}: expected [scalar in (0, 1e6], {}], got {}", ops.field(op),
                              p2p ? "null" : "offset in [-2, 1e6]", v.dump()));
    }
    factor->scalar = v[0].get<double>();
    factor->offset = p2p ? 0.0 : v[1].get<double>();
  }
  ops.finish();
  return traffic;
}

// Largest memory accepted: 1e12 GiB (about 1.1e21 bytes) stays exact enough
// in a double and far above any real part, so "unbounded" files fit.
constexpr double kMaxCalculonGiB = 1e12;

// A Calculon processor lists one {tflops, gflops_efficiency} entry per
// datatype it runs; every entry is checked, float16's peak is the one used.
double processor_float16_tflops(Obj processor) {
  double float16_tflops = 0;
  for (std::string_view type : {"float8", "float16", "bfloat16", "float32"}) {
    if (type != "float16" && !processor.has(type)) continue;
    Obj entry = processor.object(type);
    const double tflops = entry.number("tflops", 1e-3, 1e6);
    check_curve(entry.at("gflops_efficiency"), entry.field("gflops_efficiency"));
    entry.finish();
    if (type == "float16") float16_tflops = tflops;
  }
  processor.finish();
  return float16_tflops;
}

}  // namespace

TransformerModel parse_calculon_model(std::string_view json, std::string_view source) {
  Json j = parse_json_input(json, source);
  Obj o(j, std::string(source));
  TransformerModel m;
  m.name = std::string(source);
  m.hidden = o.count("hidden", 1, 1 << 24);
  m.feedforward = o.count("feedforward", 1, 1 << 24);
  m.seq_size = o.count("seq_size", 1, 1 << 24);
  m.attn_heads = o.count("attn_heads", 1, 1 << 24);
  m.attn_size = o.count("attn_size", 1, 1 << 24);
  m.num_blocks = o.count("num_blocks", 1, 1 << 24);
  o.finish();
  m.validate();
  return m;
}

CalculonBase calculon_base_device(std::string_view system_json, std::string_view source, const std::string& hw) {
  // Only the matrix rate is read here; parse_calculon_system checks the rest.
  Json j = parse_json_input(system_json, source);
  Obj o(j, std::string(source));
  const double system_flops = processor_float16_tflops(o.object("matrix")) * 1e12;
  auto off_by = [&](const DeviceSpec& d) { return std::abs(system_flops / d.peak_flops_per_s(DType::kFp16) - 1); };
  CalculonBase base;
  std::string chosen = hw;
  if (hw.empty()) {
    chosen = "a100-80gb";
    double best = kCalculonPresetMatch;
    for (const std::string_view name : {"v100", "a100-80gb", "h100-sxm"}) {
      const double off = off_by(device_preset(name));
      if (off <= best) {
        best = off;
        chosen = std::string(name);
      }
    }
  }
  base.device = load_device(chosen);
  const double peak_tflops = base.device.peak_flops_per_s(DType::kFp16) / 1e12;
  if (off_by(base.device) > kCalculonPresetMatch) {
    base.note = fmt::format(
        "{}'s 16-bit matrix rate is {:.4g} TFLOP/s and {}'s peak {:.4g}: the chip's insides run {:.3g}x as fast "
        "(its clock scaled) to reach the file's rate{}",
        source, system_flops / 1e12, chosen, peak_tflops, system_flops / 1e12 / peak_tflops,
        hw.empty() ? fmt::format(" (no preset's peak is within {:.0f}% of it; --hw names the chip)",
                                 100 * kCalculonPresetMatch)
                   : "");
  } else if (hw.empty() && chosen != "a100-80gb") {
    base.note = fmt::format("the chip's insides are {}'s, whose 16-bit peak ({:.4g} TFLOP/s) is within {:.0f}% of "
                            "{}'s matrix rate ({:.4g}); --hw names another chip",
                            chosen, peak_tflops, 100 * kCalculonPresetMatch, source, system_flops / 1e12);
  }
  return base;
}

DeviceSpec parse_calculon_system(std::string_view json, std::string_view source, const DeviceSpec& base) {
  Json j = parse_json_input(json, source);
  Obj o(j, std::string(source));
  DeviceSpec d = base;
  d.name = fmt::format("{} on {}", std::string(source), base.name);
  {
    const double tflops = processor_float16_tflops(o.object("matrix"));
    d.frequency_hz *= tflops * 1e12 / base.peak_flops_per_s(DType::kFp16);
  }
  d.vector_flops_per_s = processor_float16_tflops(o.object("vector")) * 1e12;
  for (std::string_view mem_key : {"mem1", "mem2"}) {
    Obj mem = o.object(mem_key);
    // Calculon's systems with unbounded memory (a100_80e) write 80e9 GiB.
    double gib = mem.number("GiB", 1e-6, kMaxCalculonGiB);
    double gbps = mem.number("GBps", 1e-6, 1e9);
    check_curve(mem.at("MB_efficiency"), mem.field("MB_efficiency"));
    mem.finish();
    if (mem_key == "mem1") {
      d.levels.back().capacity_bytes = gib * 1024 * 1024 * 1024;
      d.levels.back().bandwidth_bytes_per_s = gbps * 1e9;
    }
  }
  std::string mode = o.string("processing_mode");
  if (mode != "no_overlap") {
    throw Error(fmt::format("{}: '{}' is not modelled (only no_overlap)", o.field("processing_mode"), mode));
  }
  const Json& networks = o.at("networks");
  if (!networks.is_array() || networks.empty()) {
    throw Error(fmt::format("{}: expected a list of one or more network tiers", o.field("networks")));
  }
  d.network.clear();
  for (size_t i = 0; i < networks.size(); ++i) {
    Obj n(networks[i], fmt::format("{}[{}]", o.field("networks"), i));
    NetworkTier tier;
    tier.name = fmt::format("network{}", i);
    tier.bandwidth_bytes_per_s = n.number("bandwidth", 1e-6, 1e9) * 1e9;
    tier.efficiency = n.number("efficiency", 1e-3, 1);
    tier.size = n.count("size", 1, 1ull << 32);
    // Calculon charges its latency once per operation, not per ring step.
    tier.operation_latency_s = n.number("latency", 0, 1);
    tier.traffic = parse_calculon_ops(n.object("ops"));
    (void)n.boolean("must_be_filled");
    (void)n.number("processor_usage", 0, 1);
    n.finish();
    d.network.push_back(tier);
  }
  o.finish();
  d.validate();
  return d;
}

CalculonExecution parse_calculon_execution(std::string_view json, std::string_view source) {
  Json j = parse_json_input(json, source);
  Obj o(j, std::string(source));
  CalculonExecution e;
  Parallelism& p = e.parallelism;
  TrainingJob& job = e.job;
  p.devices = o.count("num_procs", 1, 1ull << 32);
  p.tp = o.count("tensor_par", 1, 1ull << 32);
  p.pp = o.count("pipeline_par", 1, 1ull << 32);
  p.dp = o.count("data_par", 1, 1ull << 32);
  p.tp_tier = o.count("tensor_par_net", 0, 16);
  p.pp_tier = o.count("pipeline_par_net", 0, 16);
  p.dp_tier = o.count("data_par_net", 0, 16);
  job.global_batch = o.count("batch_size", 1, 1ull << 32);
  job.microbatch = o.count("microbatch_size", 1, 1ull << 32);
  std::string dtype = o.string("datatype");
  if (dtype == "float16") job.dtype = DType::kFp16;
  else if (dtype == "bfloat16") job.dtype = DType::kBf16;
  else if (dtype == "float32") job.dtype = DType::kFp32;
  else throw Error(fmt::format("{}: '{}' is not float16, bfloat16 or float32", o.field("datatype"), dtype));
  p.fused_activation = o.boolean("fused_activation");
  std::string attention = o.string("attention_type");
  if (attention != "multihead") throw Error(fmt::format("{}: only multihead attention is modelled", o.field("attention_type")));
  std::string recompute = o.string("activation_recompute");
  if (recompute == "full") p.recompute = Recompute::kFull;
  else if (recompute == "attn_only") p.recompute = Recompute::kSelective;
  else if (recompute == "none") p.recompute = Recompute::kNone;
  else throw Error(fmt::format("{}: '{}' is not full, attn_only or none", o.field("activation_recompute"), recompute));
  p.interleave = o.count("pipeline_interleaving", 1, 1 << 20);
  p.optimizer_sharding = o.boolean("optimizer_sharding");
  std::string comm = o.string("tensor_par_comm_type");
  if (comm == "rs_ag") p.sequence_parallel = true;
  else if (comm != "ar") throw Error(fmt::format("{}: '{}' is not ar or rs_ag", o.field("tensor_par_comm_type"), comm));
  std::string overlap = o.string("tensor_par_overlap");
  if (overlap != "none") throw Error(fmt::format("{}: overlapped TP comms are not modelled", o.field("tensor_par_overlap")));
  p.redo_all_gather = o.boolean("seq_par_ag_redo");
  if (o.boolean("data_par_overlap")) throw Error(fmt::format("{}: overlapped DP comms are not modelled", o.field("data_par_overlap")));
  for (std::string_view key : {"weight_offload", "activations_offload", "optimizer_offload"}) {
    if (o.boolean(key)) throw Error(fmt::format("{}: offloading is not modelled", o.field(key)));
  }
  job.training = o.boolean("training");
  o.finish();
  p.names = {std::string(source), "num_procs", "tensor_par", "pipeline_par", "data_par", "pipeline_interleaving",
             "tensor_par_comm_type", "seq_par_ag_redo", "tensor_par_net", "pipeline_par_net", "data_par_net"};
  return e;
}

TransformerModel load_calculon_model(const std::string& path) {
  TransformerModel m = parse_calculon_model(read_file(path), path);
  std::string file = path.substr(path.find_last_of('/') + 1);
  m.name = file.substr(0, file.rfind(".json"));
  return m;
}

DeviceSpec load_calculon_system(const std::string& path, const DeviceSpec& base) {
  return parse_calculon_system(read_file(path), path, base);
}

CalculonExecution load_calculon_execution(const std::string& path) {
  return parse_calculon_execution(read_file(path), path);
}

}  // namespace snr::pathfind
