#include "dsim/network/analytical_unaware/unaware_network.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>

#include "common/error.h"
#include "common/yaml_input.h"
#include "dsim/network/registry.h"

namespace snr::dsim {

UnawareNetwork::UnawareNetwork(const NetworkConfig& config, EventLoop& loop)
    : config_(config), layout_(config), loop_(loop) {
  for (const auto& dim : config.dimensions) bytes_per_ns_.push_back(gib_per_s_to_bytes_per_ns(dim.bandwidth_gib_per_s));
  if (const auto* options = dynamic_cast<const UnawareNetworkOptions*>(config.backend_details.get())) {
    multi_dim_delay_ = options->multi_dim_delay;
  }
}

UnawareNetwork::RouteDelay UnawareNetwork::route(NpuId src, NpuId dst, uint64_t bytes) const {
  if (perturbed_) return perturbed_route(src, dst, bytes);
  if (bytes_per_ns_.size() == 1) {
    // One dimension: NPU ids are the coordinates, no division needed.
    if (src == dst) return {};
    const auto& dim = config_.dimensions[0];
    const int hops = hops_in_dimension(dim.topology, dim.npus_count, src, dst);
    return {static_cast<TimeNs>(hops * dim.latency_ns + static_cast<double>(bytes) / bytes_per_ns_[0]), 1};
  }
  RouteDelay total;
  for (size_t d = 0; d < layout_.dims(); ++d) {
    const uint32_t from = layout_.coordinate(src, d);
    const uint32_t to = layout_.coordinate(dst, d);
    if (from == to) continue;
    if (total.dimensions_apart++ > 0 && multi_dim_delay_ == MultiDimDelay::kFirstDimension) continue;
    const auto& dim = config_.dimensions[d];
    const int hops = hops_in_dimension(dim.topology, dim.npus_count, from, to);
    // Truncated to whole nanoseconds per dimension, as ASTRA-sim does.
    const double delay = hops * dim.latency_ns + static_cast<double>(bytes) / bytes_per_ns_[d];
    total.ns += static_cast<TimeNs>(delay);
  }
  return total;
}

void UnawareNetwork::send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) {
  // No per-hop state: the arrival time is known at injection.
  TimeNs delay;
  if (bytes_per_ns_.size() == 1 && !perturbed_) {
    const auto& dim = config_.dimensions[0];
    const int hops = hops_in_dimension(dim.topology, dim.npus_count, src, dst);
    if (hops != cached_hops_ || bytes != cached_bytes_) {
      cached_hops_ = hops;
      cached_bytes_ = bytes;
      cached_delay_ns_ = delay_ns(src, dst, bytes);
    }
    delay = cached_delay_ns_;
  } else {
    const RouteDelay routed = route(src, dst, bytes);
    ++messages_sent_;
    if (routed.dimensions_apart > 1) ++multi_dim_messages_;
    delay = routed.ns;
  }
  loop_.schedule(loop_.now() + delay, deliver_to, MessageArrived{message});
}

std::vector<std::string> UnawareNetwork::notes() const {
  if (multi_dim_messages_ == 0 || multi_dim_delay_ != MultiDimDelay::kFirstDimension) return {};
  return {fmt::format("{} of {} messages went between NPUs apart in more than one network dimension; each was "
                      "charged its first such dimension only, as ASTRA-sim's congestion-unaware network does "
                      "(multi-dim-delay: every-dimension in the network configuration charges every dimension "
                      "crossed)",
                      multi_dim_messages_, messages_sent_)};
}

void UnawareNetwork::set_bandwidth_factors(const LinkBandwidthFactors& factors) {
  factors_ = factors;
  perturbed_ = !factors.empty();
}

double UnawareNetwork::route_factor(size_t dim, NpuId at, uint32_t from, uint32_t to) const {
  const auto& spec = config_.dimensions[dim];
  const NpuId end = layout_.with_coordinate(at, dim, to);
  switch (spec.topology) {
    case TopologyKind::kFullyConnected: return factors_.between(dim, at, end);
    case TopologyKind::kSwitch: return std::min(factors_.to_switch(dim, at), factors_.from_switch(dim, end));
    case TopologyKind::kRing: {
      const uint32_t n = spec.npus_count;
      const uint32_t clockwise = to >= from ? to - from : to + n - from;
      const bool go_clockwise = !(n - clockwise < clockwise);  // as hops_in_dimension counts
      double factor = std::numeric_limits<double>::infinity();  // from != to: at least one hop
      NpuId cur = at;
      uint32_t c = from;
      while (c != to) {
        const uint32_t next = go_clockwise ? (c + 1 == n ? 0 : c + 1) : (c == 0 ? n - 1 : c - 1);
        const NpuId next_npu = layout_.with_coordinate(cur, dim, next);
        const double f = factors_.between(dim, cur, next_npu);
        factor = std::min(factor, f);
        cur = next_npu;
        c = next;
      }
      return factor;
    }
  }
  return 1.0;
}

UnawareNetwork::RouteDelay UnawareNetwork::perturbed_route(NpuId src, NpuId dst, uint64_t bytes) const {
  RouteDelay total;
  NpuId at = src;  // dimension 0 is crossed first, then 1, ...
  for (size_t d = 0; d < layout_.dims(); ++d) {
    const uint32_t from = layout_.coordinate(at, d);
    const uint32_t to = layout_.coordinate(dst, d);
    if (from == to) continue;
    if (total.dimensions_apart++ > 0 && multi_dim_delay_ == MultiDimDelay::kFirstDimension) continue;
    const auto& dim = config_.dimensions[d];
    const int hops = hops_in_dimension(dim.topology, dim.npus_count, from, to);
    const double factor = route_factor(d, at, from, to);
    const double delay = hops * dim.latency_ns + static_cast<double>(bytes) / (bytes_per_ns_[d] * factor);
    total.ns += checked_truncated_ns(delay, "network: a perturbed message's delay");
    at = layout_.with_coordinate(at, d, to);
  }
  return total;
}

std::vector<LinkStats> UnawareNetwork::link_stats() const { return {}; }

NetworkBackendSpec analytical_unaware_spec() {
  NetworkBackendSpec spec;
  spec.name = "analytical-congestion-unaware";
  spec.summary = "hops x latency + size / bandwidth, no contention (ASTRA-sim analytical congestion_unaware)";
  spec.config_keys = {"topology", "npus_count", "bandwidth", "latency", "multi-dim-delay"};
  spec.parse_config = [](std::string_view text, std::string_view source) {
    NetworkConfig config = parse_network_config(text, source, {"multi-dim-delay"});
    const YAML::Node root = load_yaml_document(text, source, "an analytical network configuration");
    auto options = std::make_shared<UnawareNetworkOptions>();
    if (const YAML::Node rule = root["multi-dim-delay"]; rule) {
      const std::string value = rule.IsScalar() ? rule.Scalar() : std::string();
      if (value == "every-dimension") {
        options->multi_dim_delay = MultiDimDelay::kEveryDimension;
      } else if (value != "first-dimension") {
        throw Error(fmt::format("network configuration {}: multi-dim-delay (line {}) must be first-dimension "
                                "(ASTRA-sim's: a message pays the lowest dimension its NPUs differ in) or "
                                "every-dimension (it pays each one it crosses)",
                                source, rule.Mark().line + 1));
      }
    }
    config.backend_details = std::move(options);
    return config;
  };
  spec.create = [](const NetworkConfig& config, EventLoop& loop) -> std::unique_ptr<NetworkBackend> {
    return std::make_unique<UnawareNetwork>(config, loop);
  };
  return spec;
}

}  // namespace snr::dsim
