// Congestion-unaware analytical network: a message takes
// hops * latency + bytes / bandwidth, with no interaction between messages
// (ASTRA-sim's analytical congestion_unaware). Between NPUs that differ in
// more than one dimension ASTRA-sim charges only the first such dimension;
// that is the default here too, and `multi-dim-delay: every-dimension` in
// the network configuration charges every dimension crossed.
#pragma once

#include <string>
#include <vector>

#include "dsim/network/network.h"
#include "dsim/perturbation/perturbation.h"

namespace snr::dsim {

struct NetworkBackendSpec;
// The registry entry of this backend (analytical-congestion-unaware).
NetworkBackendSpec analytical_unaware_spec();

// What a message between NPUs that differ in several dimensions pays.
enum class MultiDimDelay : uint8_t {
  kFirstDimension,  // only the lowest differing dimension (ASTRA-sim's MultiDimTopology::send)
  kEveryDimension,  // each differing dimension in turn, the delays added
};

// This backend's own key of the network configuration.
struct UnawareNetworkOptions final : NetworkBackendDetails {
  MultiDimDelay multi_dim_delay = MultiDimDelay::kFirstDimension;
};

class UnawareNetwork final : public NetworkBackend {
 public:
  UnawareNetwork(const NetworkConfig& config, EventLoop& loop);
  void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) override;
  [[nodiscard]] std::vector<LinkStats> link_stats() const override;
  [[nodiscard]] std::string name() const override { return "analytical-congestion-unaware"; }
  // How many messages crossed more than one dimension and were charged the
  // first only (ASTRA-sim's rule), when any did.
  [[nodiscard]] std::vector<std::string> notes() const override;
  // Without contention a message's bytes stream through its route in each
  // dimension at once, so they serialize at the slowest link of that route
  // (dimension bandwidth times the smallest factor on it); latency is unchanged.
  void set_bandwidth_factors(const LinkBandwidthFactors& factors) override;

  // The delay of one message, exposed for tests.
  [[nodiscard]] TimeNs delay_ns(NpuId src, NpuId dst, uint64_t bytes) const { return route(src, dst, bytes).ns; }

 private:
  struct RouteDelay {
    TimeNs ns = 0;
    uint32_t dimensions_apart = 0;  // in how many dimensions src and dst differ
  };
  [[nodiscard]] RouteDelay route(NpuId src, NpuId dst, uint64_t bytes) const;
  // The smallest bandwidth factor on the route from NPU `at` (coordinate
  // `from`) to coordinate `to` in dimension `dim`, taken the way the hop
  // count is (Ring: the shorter way, ties clockwise).
  [[nodiscard]] double route_factor(size_t dim, NpuId at, uint32_t from, uint32_t to) const;
  [[nodiscard]] RouteDelay perturbed_route(NpuId src, NpuId dst, uint64_t bytes) const;

  NetworkConfig config_;
  DimensionLayout layout_;
  std::vector<double> bytes_per_ns_;
  EventLoop& loop_;
  MultiDimDelay multi_dim_delay_ = MultiDimDelay::kFirstDimension;
  uint64_t messages_sent_ = 0;
  uint64_t multi_dim_messages_ = 0;  // between NPUs apart in more than one dimension
  // One dimension: the delay depends on (hops, bytes) only, and collectives
  // send the same pair over and over, so the last one is kept.
  int cached_hops_ = -1;
  uint64_t cached_bytes_ = 0;
  TimeNs cached_delay_ns_ = 0;
  bool perturbed_ = false;
  LinkBandwidthFactors factors_;
};

}  // namespace snr::dsim
