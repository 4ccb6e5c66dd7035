// Congestion-unaware analytical network: a message takes
// hops * latency + bytes / bandwidth in every dimension it crosses, with no
// interaction between messages (ASTRA-sim's analytical congestion_unaware).
#pragma once

#include <vector>

#include "dsim/network/network.h"

namespace snr::dsim {

class UnawareNetwork final : public NetworkBackend {
 public:
  UnawareNetwork(const NetworkConfig& config, NetworkHost& host);
  void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes) override;
  void handle_event(MessageId message) override;
  [[nodiscard]] std::vector<LinkStats> link_stats() const override;
  [[nodiscard]] std::string name() const override { return "analytical-congestion-unaware"; }

  // The delay of one message, exposed for tests.
  [[nodiscard]] TimeNs delay_ns(NpuId src, NpuId dst, uint64_t bytes) const;

 private:
  NetworkConfig config_;
  DimensionLayout layout_;
  std::vector<double> bytes_per_ns_;
  NetworkHost& host_;
};

}  // namespace snr::dsim
