// Congestion-aware analytical network: messages travel hop by hop over
// links; each link serializes one message at a time (bytes / bandwidth) and
// queues the rest in arrival order; a hop costs latency + bytes / bandwidth
// (store-and-forward), as in ASTRA-sim's analytical congestion_aware backend.
// Multi-dimensional topologies route dimension 0 first, then 1, ...
//
// Link state lives in flat arrays for Ring and Switch dimensions (two links
// per NPU); FullyConnected links are created on first use so memory stays
// O(links used) instead of O(N^2).
//
// Same-time order, as ASTRA-sim's links keep it: a link is busy from a
// message's start until its link-free event (start + serialization, even
// when that rounds to 0 ns) has run; a message that finds it busy waits in
// the link's queue and starts, scheduling its hop's end, when that event
// runs. The link-free event's place among equal times is a sequence number
// reserved when the link is booked (event_queue.h); the event is scheduled
// only when a message waits for it.
#pragma once

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "dsim/network/network.h"
#include "dsim/perturbation/perturbation.h"

namespace snr::dsim {

struct NetworkBackendSpec;
// The registry entry of this backend (analytical-congestion-aware).
NetworkBackendSpec analytical_aware_spec();

class AwareNetwork final : public NetworkBackend, public EventHandler {
 public:
  // Registers the backend's hop handler on `loop`.
  AwareNetwork(const NetworkConfig& config, EventLoop& loop);
  void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) override;
  void handle(const Event& event) override;
  [[nodiscard]] std::vector<LinkStats> link_stats() const override;
  [[nodiscard]] std::string name() const override { return "analytical-congestion-aware"; }
  // Each directed link (Ring and FullyConnected: NPU to NPU; Switch: NPU to
  // switch and switch to NPU) serializes at its dimension's bandwidth times
  // its own factor; latency is unchanged.
  void set_bandwidth_factors(const LinkBandwidthFactors& factors) override;

 private:
  static constexpr uint32_t kNoFlight = UINT32_MAX;
  struct Link {
    TimeNs free_at_ns = 0;
    uint64_t free_sequence = 0;  // the link-free event's place (reserved)
    uint32_t waiting_head = kNoFlight, waiting_tail = kNoFlight;  // in_flight_ slots, in arrival order
    uint64_t bytes = 0;
    uint64_t messages = 0;
    uint64_t busy_ns = 0;
  };
  // Where a message is: at an NPU, or inside dimension `switch_dim`'s switch.
  struct InFlight {
    NpuId at = 0;
    NpuId dst = 0;
    uint64_t bytes = 0;
    MessageId message = 0;      // the sender's id
    HandlerId deliver_to = 0;   // the sender's handler
    int16_t switch_dim = -1;
    bool active = false;        // false: on the free list (next_free)
    uint32_t next_free = 0;     // free: the next free slot; waiting on a link: the next waiting
  };
  // The backend's own event: a message in flight finished a hop.
  struct HopDone {
    static constexpr uint8_t kKind = 1;
    uint32_t flight;  // index into in_flight_
  };
  // A one-dimensional Switch's message reached the switch: the whole state
  // of the message rides in the event, no in-flight slot (messages of
  // 2^56 bytes and more, which do not fit, take HopDone).
  struct AtSwitch {
    static constexpr uint8_t kKind = 2;
    MessageId message;
    NpuId dst;
    uint64_t bytes_and_handler;  // bytes | deliver_to << kHandlerShift
    static constexpr uint32_t kHandlerShift = 56;
  };
  // A link's link-free event, scheduled when a message waits for it.
  struct LinkFree {
    static constexpr uint8_t kKind = 3;
    Link* link;  // links never move (flat arrays sized once; map nodes)
  };
  // Per-dimension constants, flat for the per-hop path.
  struct Dim {
    TopologyKind topology;
    uint32_t size;
    uint64_t stride;
    double bytes_per_ns;
    double latency_ns;
    // The last message size's hop cost: collectives send the same size
    // over and over, so the floating-point division is done once per size.
    uint64_t cached_bytes = UINT64_MAX;
    TimeNs cached_serialization_ns = 0;
    TimeNs cached_hop_ns = 0;
    [[nodiscard]] uint32_t coordinate(NpuId npu) const { return static_cast<uint32_t>((npu / stride) % size); }
    // Serialization time and whole hop (latency + serialization), each
    // truncated to whole ns from the same double, as ASTRA-sim does.
    void cost(uint64_t bytes, TimeNs& serialization_ns, TimeNs& hop_ns) {
      if (bytes != cached_bytes) {
        const double serialization = static_cast<double>(bytes) / bytes_per_ns;
        cached_bytes = bytes;
        cached_serialization_ns = static_cast<TimeNs>(serialization);
        cached_hop_ns = static_cast<TimeNs>(latency_ns + serialization);
      }
      serialization_ns = cached_serialization_ns;
      hop_ns = cached_hop_ns;
    }
  };
  // Moves message `m` one hop from where it is: when the link is busy it
  // waits in the link's queue (in a pooled slot: `flight`, or one taken
  // now); else the link is booked and the hop's end scheduled (the arrival
  // on the last hop, else a HopDone in `flight` or a slot taken now), then
  // the link-free event's place reserved. `flight` is kNoFlight for a
  // message that has no slot yet (a one-hop message never takes one), and
  // `force` starts the message even though others wait (the link's own
  // link-free event starting its first waiting message).
  void advance(const InFlight& m, uint32_t flight, bool force = false);
  // send()'s paths: one dimension of each topology (src != dst; NPU ids
  // are coordinates, so advance()'s first hop without the dimension
  // search), and every other case.
  void send_ring_1d(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to);
  void send_switch_1d(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to);
  void send_fully_connected_1d(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to);
  [[gnu::noinline]] void send_general(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to);
  // The one-dimensional paths' events when the queue's call-free schedule
  // (try_schedule_unit) does not take them.
  [[gnu::noinline]] void schedule_arrival(TimeNs time_ns, HandlerId deliver_to, MessageId message);
  [[gnu::noinline]] void schedule_at_switch(TimeNs time_ns, MessageId message, NpuId dst, uint64_t bytes_and_handler);
  uint32_t allocate_flight(const InFlight& m);
  void free_flight(uint32_t flight) {
    in_flight_[flight].active = false;
    in_flight_[flight].next_free = free_flight_;
    free_flight_ = flight;
  }
  // The hop cost on a link whose bandwidth is scaled by `factor` (perturbed runs only).
  void scale_cost(size_t dim, double factor, uint64_t bytes, TimeNs& serialization_ns, TimeNs& hop_ns) const;
  Link& link_for(size_t dim, NpuId from, uint32_t from_coord, uint32_t to_coord, int16_t& next_switch_dim,
                 NpuId& next_at);
  [[nodiscard]] static uint64_t fc_key(size_t dim, NpuId from, NpuId to) {
    return (static_cast<uint64_t>(dim) << 56) ^ (static_cast<uint64_t>(from) << 28) ^ to;
  }

  NetworkConfig config_;
  DimensionLayout layout_;
  EventLoop& loop_;
  HandlerId hop_handler_ = 0;
  std::vector<Dim> dims_;
  std::vector<std::vector<Link>> dense_links_;  // per dimension: 2 per NPU (Ring cw/ccw, Switch up/down)
  std::unordered_map<uint64_t, Link> fc_links_;
  // The FullyConnected link each NPU used last, per dimension: collectives
  // send to the same peer over and over, so the map is searched once per
  // change of peer (the map's nodes never move).
  struct FcLinkCache {
    NpuId to = UINT32_MAX;
    Link* link = nullptr;
  };
  std::vector<std::vector<FcLinkCache>> fc_last_link_;  // per dimension, per sending NPU
  [[gnu::always_inline]] Link& fc_link(size_t dim, NpuId from, NpuId to) {
    FcLinkCache& last = fc_last_link_[dim][from];
    if (last.to != to) {
      last.to = to;
      last.link = &fc_links_[fc_key(dim, from, to)];
    }
    return *last.link;
  }
  // Whether a message reaching `link` now must wait: others wait, or its
  // link-free event has not run yet.
  [[gnu::always_inline]] bool busy(const Link& link) const {
    return link.waiting_head != kNoFlight || link.free_at_ns > loop_.now() ||
           (link.free_at_ns == loop_.now() && loop_.after_current(link.free_at_ns, link.free_sequence));
  }
  // Books a free `link` for a message of `bytes` from now; returns when the
  // hop ends. The caller schedules that, then calls reserve_free().
  [[gnu::always_inline]] TimeNs book(Link& link, uint64_t bytes, TimeNs serialization_ns, TimeNs hop_ns) {
    const TimeNs start = loop_.now();
    link.free_at_ns = start + serialization_ns;
    link.bytes += bytes;
    link.messages += 1;
    link.busy_ns += serialization_ns;
    return start + hop_ns;
  }
  // The booked link's link-free event takes its place after the hop's end.
  [[gnu::always_inline]] void reserve_free(Link& link) { link.free_sequence = loop_.reserve_sequence(); }
  // Queues the message in slot `flight` on a busy `link`.
  void wait_for(Link& link, uint32_t flight);
  // One dimension: send()'s own path for its topology.
  enum class OneDim : uint8_t { kNo, kRing, kSwitch, kFullyConnected };
  OneDim one_dim_ = OneDim::kNo;
  bool perturbed_ = false;  // bandwidth factors given: hop costs go through scale_cost
  LinkBandwidthFactors factors_;
  std::vector<InFlight> in_flight_;  // messages with more than one hop to go or waiting (pooled)
  uint32_t free_flight_ = kNoFlight;
};

}  // namespace snr::dsim
