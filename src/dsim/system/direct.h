// Direct algorithm for one phase (ASTRA-sim's AllToAll, used by the
// `direct` / `directN` implementations): every NPU talks to every other NPU
// of the phase directly. Up to `window` packets are in flight at once
// (N-1 when no window is given); packet k goes to the NPU k+1 positions
// ahead and its receive is posted for the NPU k+1 positions behind
// (k counted modulo N-1, skipping oneself).
//
// Same packet life cycle as the ring: a packet is inserted at start or when
// a message is received, passes the endpoint (and, while reducing, the
// local reduction), and is then "free" to carry the next send. Per round,
// `window` packets skip the network (the local start) and `window` follow
// receives; reduce-scatter and the first round of all-reduce reduce.
// All-reduce sends its second half only after the first N-1 receives.
// Steps: all-reduce 2(N-1), all others N-1; message = data / N
// (all-gather: the whole input).
#pragma once

#include <cstdint>

#include "dsim/system/collective.h"

namespace snr::dsim {

class DirectPhase {
 public:
  DirectPhase() = default;
  DirectPhase(const PhasePlan& plan, int window);

  [[nodiscard]] uint64_t message_bytes() const { return message_bytes_; }

  void start(uint32_t stream, PhaseActions& actions);
  void on_packet_ready(uint32_t stream, PhaseActions& actions);
  void on_packet_received(uint32_t stream, PhaseActions& actions);

 private:
  void insert_packet(uint32_t stream, PhaseActions& actions);
  // Sends the oldest inserted packet if one is queued and free.
  void try_send(uint32_t stream, PhaseActions& actions);
  // Ends the phase once every step is sent and all packets are back.
  void try_finish(uint32_t stream, PhaseActions& actions);

  CollectiveKind kind_ = CollectiveKind::kAllToAll;
  PhaseRing ring_;
  uint32_t window_ = 1;             // ASTRA-sim's parallel_reduce
  uint32_t network_packets_ = 1;    // per round after the window's local ones
  uint32_t middle_point_ = 0;       // N-1: all-reduce's reduce-scatter half
  uint64_t message_bytes_ = 0;
  uint32_t steps_left_ = 0;         // sends still to issue
  uint64_t packets_inserted_ = 0;
  uint64_t packets_sent_ = 0;
  uint32_t free_packets_ = 0;
  uint32_t packets_received_ = 0;
  PacketRounds rounds_;
};

}  // namespace snr::dsim
