// The system layer of every NPU (ASTRA-sim's Sys): what the workload asks
// of communication. Two parts, each its own handler on the event loop:
// the collective engine (chunks, phases, queues, algorithms) and
// point-to-point messages. Both use one network backend and count their
// traffic in one place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dsim/system/collective_engine.h"
#include "dsim/system/point_to_point.h"

namespace snr::dsim {

class SystemLayer {
 public:
  SystemLayer(const SystemConfig& system, const NetworkConfig& network, EventLoop& loop, NetworkBackend& backend,
              SystemClient& client, const CustomCollectives* custom = nullptr)
      : traffic_{std::vector<uint64_t>(network.npus_count(), 0)},
        collectives_(system, network, loop, backend, client, traffic_, custom),
        p2p_(loop, backend, client, traffic_) {}

  void start_collective(const CollectiveRequest& request) { collectives_.start_collective(request); }
  void send_p2p(NpuId npu, NpuId dst, int64_t tag, uint64_t bytes, uint64_t node_index) {
    p2p_.send(npu, dst, tag, bytes, node_index);
  }
  void recv_p2p(NpuId npu, NpuId src, int64_t tag, uint64_t bytes, uint64_t node_index) {
    p2p_.recv(npu, src, tag, bytes, node_index);
  }

  // Where GPU compute nodes run when an algorithm offers a device for them.
  [[nodiscard]] ComputeDevice* compute_device() const { return collectives_.compute_device(); }
  // What the collective algorithms' run states still wait for (a stall).
  [[nodiscard]] std::string stall_report() const { return collectives_.stall_report(); }
  [[nodiscard]] std::vector<std::string> notes() const { return collectives_.notes(); }
  [[nodiscard]] const TrafficCounters& traffic() const { return traffic_; }
  [[nodiscard]] bool idle() const { return collectives_.idle() && p2p_.idle(); }

 private:
  TrafficCounters traffic_;
  CollectiveEngine collectives_;
  PointToPoint p2p_;
};

}  // namespace snr::dsim
