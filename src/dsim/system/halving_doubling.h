// Halving-doubling algorithm for one phase (ASTRA-sim's HalvingDoubling;
// `halvingDoubling`, flattened `oneHalvingDoubling`). Needs a power-of-two
// phase size N. Each step exchanges one message with the partner
// `distance` positions away (ahead when position / distance is even,
// behind otherwise, i.e. position XOR distance):
// - reduce-scatter: distance 1, 2, ..., N/2 with messages data/2, data/4, ...
// - all-gather:     distance N/2, ..., 1 with messages data, 2 data, ...
// - all-reduce:     the reduce-scatter steps, then the all-gather steps
//                   back down (2 log2 N steps).
//
// The packet life cycle is the ring's (see ring.h): one packet starts
// locally, log2(N) - 1 follow receives per round; a received packet is
// reduced (reduce-scatter, first round of all-reduce) with the size of the
// message it will carry next, as ASTRA-sim does.
#pragma once

#include <array>
#include <cstdint>

#include "dsim/system/collective.h"

namespace snr::dsim {

class HalvingDoublingPhase {
 public:
  HalvingDoublingPhase() = default;
  // Throws snr::Error when the phase size is not a power of two or the
  // collective is all-to-all.
  explicit HalvingDoublingPhase(const PhasePlan& plan);

  void start(uint32_t stream, PhaseActions& actions);
  void on_packet_ready(uint32_t stream, PhaseActions& actions);
  void on_packet_received(uint32_t stream, PhaseActions& actions);

 private:
  struct Packet {
    NpuId peer;
    uint64_t bytes;
  };
  void insert_packet(uint32_t stream, PhaseActions& actions);
  void advance_distance();

  CollectiveKind kind_ = CollectiveKind::kAllReduce;
  PhaseRing ring_;
  uint32_t log2_size_ = 0;
  uint32_t steps_left_ = 0;
  int64_t distance_ = 1;             // ASTRA-sim's rank_offset
  double distance_factor_ = 2.0;     // ASTRA-sim's offset_multiplier
  uint64_t message_bytes_ = 0;       // size of the next inserted packet
  NpuId peer_ = 0;
  // Inserted, not yet sent packets (at most two are ever waiting).
  std::array<Packet, 4> queue_{};
  uint8_t queue_head_ = 0;
  uint8_t queue_size_ = 0;
  uint32_t free_packets_ = 0;
  PacketRounds rounds_;              // one local packet, then log2_size_ - 1 network ones
};

}  // namespace snr::dsim
