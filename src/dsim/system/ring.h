// Ring algorithm for one phase (ASTRA-sim's Ring): the data is cut into
// `ring size` messages; every step sends one message to the next NPU and
// receives one from the previous. All-reduce takes 2(n-1) steps, the first
// n-1 reducing; reduce-scatter and all-gather n-1; all-to-all n(n-1)/2
// (on a ring, the neighbour-only variant ASTRA-sim uses).
//
// A step starts when a packet is "free": the initial packet after the
// endpoint delay, later ones after a receive plus endpoint delay (plus the
// reduction time while reducing).
//
// The handlers are templates on the actions type so that the system layer
// (a final class) calls its own actions directly and inlines this state
// machine: the ring is the hot path of most runs.
#pragma once

#include <cstdint>

#include "dsim/system/collective.h"

namespace snr::dsim {

class RingPhase {
 public:
  RingPhase() = default;
  RingPhase(const PhasePlan& plan);

  [[nodiscard]] uint64_t output_bytes() const { return output_bytes_; }
  [[nodiscard]] uint64_t message_bytes() const { return message_bytes_; }

  template <class Actions>
  void start(uint32_t stream, Actions& actions) {
    insert_packet(stream, actions);
  }
  template <class Actions>
  void on_packet_ready(uint32_t stream, Actions& actions) {
    ++free_packets_;
    if (queued_packets_ > 0 && steps_left_ > 0 && free_packets_ > 0) {
      --steps_left_;
      --queued_packets_;
      --free_packets_;
      actions.send_and_post_recv(stream, receiver_, sender_, message_bytes_);
    }
    if (steps_left_ == 0 && free_packets_ == 1) actions.phase_finished(stream);
  }
  template <class Actions>
  void on_packet_received(uint32_t stream, Actions& actions) {
    insert_packet(stream, actions);
  }

  static uint64_t output_bytes_for(CollectiveKind kind, uint64_t input_bytes, uint32_t ring_size);

 private:
  template <class Actions>
  void insert_packet(uint32_t stream, Actions& actions) {
    ++queued_packets_;
    const bool reduce = rounds_.next_reduces(kind_, 1, ring_size_ - 1);
    actions.process_packet(stream, reduce, message_bytes_);
  }

  CollectiveKind kind_ = CollectiveKind::kAllReduce;
  NpuId sender_ = 0;
  NpuId receiver_ = 0;
  uint32_t ring_size_ = 0;
  uint64_t message_bytes_ = 0;
  uint64_t output_bytes_ = 0;
  uint32_t steps_left_ = 0;          // sends still to issue
  uint32_t queued_packets_ = 0;      // packets inserted, not yet sent
  uint32_t free_packets_ = 0;        // packets through the endpoint, not yet sent
  PacketRounds rounds_;              // one local packet, then ring_size_ - 1 network ones
};

}  // namespace snr::dsim
