// Stragglers and heterogeneity for `snr sim --perturbation-configuration`:
// per-NPU compute slow-down factors and per-link, per-NPU-link and
// per-dimension bandwidth factors, read from a small strict JSON file
// (docs/formats/perturbation.md). The file is read without the network
// (keys, types, value ranges), then resolved against the network (NPU ids,
// dimensions and links exist); both steps throw snr::Error naming the file
// and the key ("links[2].dst").
//
// Compute factors scale the duration of every compute node of an NPU (the
// workload layer applies them once, before the run). Bandwidth factors are
// handed to the network backend through NetworkBackend::set_bandwidth_factors;
// each backend decides what a factor means for its own model of a link.
// Without a file nothing is applied and results are unchanged to the ns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dsim/config/network_config.h"
#include "dsim/core/event.h"

namespace snr::dsim {

// Factors are in [kMinPerturbationFactor, kMaxPerturbationFactor]: a
// compute factor of 2 doubles an NPU's compute times, a bandwidth factor of
// 0.5 halves a link's bandwidth. The bounds keep products of factors
// (a link covered by several entries) far from underflow and overflow.
inline constexpr double kMinPerturbationFactor = 1e-6;
inline constexpr double kMaxPerturbationFactor = 1e6;

struct ComputeSlowdown {
  uint64_t npu = 0;
  double factor = 1;
};
struct LinkBandwidthEntry {  // the direct link src -> dst (Ring neighbours, FullyConnected peers)
  uint64_t src = 0;
  uint64_t dst = 0;
  double factor = 1;
};
struct DimensionBandwidthEntry {  // every link of one dimension
  uint64_t dimension = 0;
  double factor = 1;
};
struct NpuLinksBandwidthEntry {  // every link into or out of one NPU (in one dimension, or all)
  uint64_t npu = 0;
  int64_t dimension = -1;  // -1: every dimension
  double factor = 1;
};

// The file as written: keys, types and ranges checked, nothing resolved.
struct PerturbationConfig {
  std::string source;  // for messages
  std::vector<ComputeSlowdown> compute;
  std::vector<LinkBandwidthEntry> links;
  std::vector<DimensionBandwidthEntry> dimensions;
  std::vector<NpuLinksBandwidthEntry> npu_links;
};

PerturbationConfig parse_perturbation_config(std::string_view json_text, std::string_view source);
PerturbationConfig load_perturbation_config(const std::filesystem::path& path);

// The bandwidth factor of every link of one network. A link's factor is the
// product of every entry that covers it: its dimension's, each of its two
// endpoint NPUs' (npu_links) and its own (links). Links to and from a
// switch have one NPU endpoint.
class LinkBandwidthFactors {
 public:
  [[nodiscard]] bool empty() const { return empty_; }
  // The link from `from` to `to`, neighbours in Ring or FullyConnected dimension `dim`.
  [[nodiscard]] double between(size_t dim, NpuId from, NpuId to) const;
  // An NPU's link into (up) or out of (down) Switch dimension `dim`'s switch.
  [[nodiscard]] double to_switch(size_t dim, NpuId npu) const;
  [[nodiscard]] double from_switch(size_t dim, NpuId npu) const;

 private:
  friend class PerturbationResolver;
  [[nodiscard]] double npu_factor(size_t dim, NpuId npu) const {
    return npu_[dim].empty() ? 1.0 : npu_[dim][npu];
  }
  [[nodiscard]] uint64_t link_key(size_t dim, NpuId from, NpuId to) const {
    return (static_cast<uint64_t>(dim) * npus_ + from) * npus_ + to;
  }
  bool empty_ = true;
  uint64_t npus_ = 0;
  std::vector<double> dimension_;           // per dimension
  std::vector<std::vector<double>> npu_;    // per dimension: per NPU, or empty when no entry names it
  std::unordered_map<uint64_t, double> links_;
};

struct Perturbations {
  std::vector<double> compute_slowdown;  // per NPU; empty when no NPU is slowed
  LinkBandwidthFactors bandwidth;
  [[nodiscard]] bool empty() const { return compute_slowdown.empty() && bandwidth.empty(); }
};

// Checks every NPU, dimension and link of `config` against `network`.
Perturbations resolve_perturbations(const PerturbationConfig& config, const NetworkConfig& network);

}  // namespace snr::dsim
