// Congestion-unaware analytical network: a message takes
// hops * latency + bytes / bandwidth in every dimension it crosses, with no
// interaction between messages (ASTRA-sim's analytical congestion_unaware).
#pragma once

#include <vector>

#include "dsim/network/network.h"
#include "dsim/perturbation/perturbation.h"

namespace snr::dsim {

struct NetworkBackendSpec;
// The registry entry of this backend (analytical-congestion-unaware).
NetworkBackendSpec analytical_unaware_spec();

class UnawareNetwork final : public NetworkBackend {
 public:
  UnawareNetwork(const NetworkConfig& config, EventLoop& loop);
  void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) override;
  [[nodiscard]] std::vector<LinkStats> link_stats() const override;
  [[nodiscard]] std::string name() const override { return "analytical-congestion-unaware"; }
  // Without contention a message's bytes stream through its route in each
  // dimension at once, so they serialize at the slowest link of that route
  // (dimension bandwidth times the smallest factor on it); latency is unchanged.
  void set_bandwidth_factors(const LinkBandwidthFactors& factors) override;

  // The delay of one message, exposed for tests.
  [[nodiscard]] TimeNs delay_ns(NpuId src, NpuId dst, uint64_t bytes) const;

 private:
  // The smallest bandwidth factor on the route from NPU `at` (coordinate
  // `from`) to coordinate `to` in dimension `dim`, taken the way the hop
  // count is (Ring: the shorter way, ties clockwise).
  [[nodiscard]] double route_factor(size_t dim, NpuId at, uint32_t from, uint32_t to) const;
  [[nodiscard]] TimeNs perturbed_delay_ns(NpuId src, NpuId dst, uint64_t bytes) const;

  NetworkConfig config_;
  DimensionLayout layout_;
  std::vector<double> bytes_per_ns_;
  EventLoop& loop_;
  // One dimension: the delay depends on (hops, bytes) only, and collectives
  // send the same pair over and over, so the last one is kept.
  int cached_hops_ = -1;
  uint64_t cached_bytes_ = 0;
  TimeNs cached_delay_ns_ = 0;
  bool perturbed_ = false;
  LinkBandwidthFactors factors_;
};

}  // namespace snr::dsim
