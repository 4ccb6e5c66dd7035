// The NoC-level "Simple" network (seed 003 §4.5): carries the GPU model's
// Wavefront Requests hop by hop over the routers, endpoint links and
// scale-up links of a NocConfig, for any number of identical GPUs.
//
// Each directed link sends one message at a time: a message waits in the
// link's queue for its class (control or data), is picked by the arbiter
// when the link frees, occupies the link for bytes / bandwidth, and reaches
// the next node a latency later (store and forward; queues are unbounded,
// no credit flow control). A request reaches the HBM channel its line
// interleaves to (line mod channels) and is answered after the channel's
// access latency; requests for another GPU leave through I/O port
// (line mod ports), cross that port's switch plane to the same port of the
// target GPU, and the response comes back the same way.
//
// Switch multicast (scale_up.multicast, noc_network_multicast.cc): a
// multicast request goes up to its port's plane once; the plane copies it
// to every member GPU's memory, gathers their answers (a reduce-load then
// waits for the plane's reduction engine) and sends one answer back.
//
// Memory: per link one cache line, per tag in flight a route, and per
// message waiting before a link an entry in that link's ring (in arrival
// order, so that a queue is written and read sequentially); nothing is kept
// of a message once it has arrived. A tag has one message in flight at a
// time (its request, then its response), so the tag names the message.
// Queues are unbounded (no flow control), so what is in flight is what the
// GPUs inject faster than the links drain: with uncounted stores (LL puts)
// that grows with the buffer size.
//
// Cost: one event per hop (the arrival at the next node). The moment a
// link frees is an event only when a message waits for it; otherwise the
// link's free time and the event order that event would have had are kept
// (a reserved sequence number, see dsim/core/event_queue.h), so a message
// arriving at the same picosecond finds the link exactly as busy or idle as
// with the event. Hop events come a serialization plus a latency after the
// event that schedules them, a handful of delays: they run in the event
// queue's delay lanes. The hop loop of handle() keeps every step inline.
//
// Flow level (carry_flows(), docs/gpu-model.md "Flow-level mode"): an
// Access of k consecutive lines is one message. On a router or CU link it
// is queued and arbitrated as one message that holds the link for k lines'
// serialization, and moves on cut-through (its head reaches the next node
// one line's serialization after it started; the last hop, into the
// endpoint, waits for the whole message). Consecutive lines interleave over
// HBM channels and I/O ports, so on those links (HBM, I/O, scale-up) the k
// lines are striped as the request level would send them: each line
// reserves its own channel's or port's link in arrival order (no queue, so
// no class arbitration there), and the message goes on when its last line
// has crossed. The mesh path is the first line's. A flow leaves its CU
// (k - 1) line intervals after send(), when its last line would have.
#pragma once

#include <memory>
#include <vector>

#include "dsim/core/event_loop.h"
#include "dsim/gpu/memory_network.h"
#include "dsim/noc/arbitration.h"
#include "dsim/noc/link_timeline.h"
#include "dsim/noc/noc_config.h"
#include "dsim/noc/routing.h"

namespace snr::dsim::noc {

using gpu::TimePs;

enum class LinkKind : uint8_t { kRouter, kCu, kHbm, kIo, kScaleUp, kCount };

struct LinkKindStats {
  uint64_t links = 0;
  uint64_t messages = 0, bytes = 0;
  TimePs busy_ps = 0;           // summed over the kind's links
  TimePs max_link_busy_ps = 0;  // the busiest link of the kind
  TimePs queued_ps = 0;         // summed waiting time of messages before the link
};

// Switch multicast on one plane (NocConfig::scale_up_multicast).
struct PlaneStats {
  uint64_t reduce_loads = 0, broadcast_stores = 0;  // multicast accesses the plane took
  uint64_t fanout_messages = 0, fanout_bytes = 0;   // their requests sent down to the members
  uint64_t gathered_messages = 0, gathered_bytes = 0;  // the members' answers back at the plane
  TimePs reduce_busy_ps = 0;                        // the plane's reduction engine
};

struct NocStats {
  uint64_t messages = 0, hops = 0;
  uint64_t max_in_flight = 0;
  LinkKindStats kinds[static_cast<int>(LinkKind::kCount)];
  std::vector<PlaneStats> planes;  // by plane (I/O port); empty without multicast
};

// The planes' multicast figures summed (busy time too).
inline PlaneStats multicast_totals(const NocStats& stats) {
  PlaneStats sum;
  for (const PlaneStats& p : stats.planes) {
    sum.reduce_loads += p.reduce_loads;
    sum.broadcast_stores += p.broadcast_stores;
    sum.fanout_messages += p.fanout_messages;
    sum.fanout_bytes += p.fanout_bytes;
    sum.gathered_messages += p.gathered_messages;
    sum.gathered_bytes += p.gathered_bytes;
    sum.reduce_busy_ps += p.reduce_busy_ps;
  }
  return sum;
}

const char* to_string(LinkKind kind);
static_assert(LinkTimeline::kKinds == static_cast<int>(LinkKind::kCount), "the timeline has a bin per link kind");

class NocNetwork final : public gpu::MemoryNetwork, public EventHandler {
 public:
  NocNetwork(const NocConfig& config, uint32_t gpus, EventLoop& loop);

  void attach(gpu::AccessSink& sink) override { sink_ = &sink; }
  void send(uint32_t tag, const gpu::Access& access) override;
  void respond(uint32_t tag) override;
  void carry_flows(TimePs line_interval_ps) override {
    flows_ = true;
    line_interval_ps_ = line_interval_ps;
  }
  [[nodiscard]] uint32_t compute_units() const override { return config_.compute_units(); }
  // Flow-level messages are not multicast: the GPU model expands them.
  [[nodiscard]] bool carries_multicast() const override { return config_.scale_up_multicast && !flows_; }
  void handle(const Event& event) override;

  [[nodiscard]] const NocStats& stats();  // completes the per-kind busy figures
  // From now on, keep per link kind and time bin what the links carried
  // (`snr collective --trace`); a network without it records nothing.
  void record_timeline() { timeline_ = std::make_unique<LinkTimeline>(); }
  [[nodiscard]] const LinkTimeline* timeline() const { return timeline_.get(); }
  [[nodiscard]] uint32_t nodes_per_gpu() const { return nodes_per_gpu_; }
  // The links a message from `from` to `to` (global node ids, same GPU or a
  // port path for another GPU) crosses, for tests.
  [[nodiscard]] std::vector<uint32_t> path(uint32_t from, uint32_t to, uint8_t port = 0) const;
  // Global node ids (gpu << bits | index in the GPU).
  [[nodiscard]] uint32_t router_node(uint32_t gpu, uint32_t x, uint32_t y) const;
  [[nodiscard]] uint32_t cu_node(uint32_t gpu, uint32_t cu) const;
  [[nodiscard]] uint32_t hbm_node(uint32_t gpu, uint32_t channel) const;
  [[nodiscard]] uint32_t io_node(uint32_t gpu, uint32_t port) const;
  [[nodiscard]] LinkKind link_kind(uint32_t link) const;
  [[nodiscard]] uint32_t link_target(uint32_t link) const;

 private:
  // What a hop needs of a message, carried in the hop event itself (so a
  // hop reads no message record) and kept in a link's ring while the
  // message waits there. Nodes are global ids; switch planes follow the
  // GPUs' nodes.
  struct Transit {
    uint32_t tag = 0;
    uint32_t node = 0;  // where it is (or is headed over its current link)
    uint32_t dst = 0;   // the endpoint it goes to
    uint16_t bytes = 0;
    uint8_t port = 0;
    uint8_t cls : 1 = 0;       // MessageClass
    uint8_t response : 1 = 0;  // else a request, for memory
  };
  // The events (defined with the code).
  struct Hop;
  struct LinkFree;
  struct MemoryAccess;
  struct PlaneReply {  // a multicast access whose members all answered
    static constexpr uint8_t kKind = 4;
    uint32_t tag;
  };
  // A message waiting before a link.
  struct Waiting {
    Transit transit;
    uint64_t sequence = 0;  // arrival order (the arbiter's view)
  };
  // What a hop reads and writes of its link, with the link's queues, in
  // one cache line: a message that finds the link busy joins a queue
  // without touching another line. Under FIFO arbitration a link has one
  // queue in arrival order (queue 0); otherwise one per class. A queue is
  // a ring of a power-of-two capacity, grown and never shrunk (its size is
  // the longest the queue got).
  struct alignas(64) Link {
    // The message on the link has left at (free_at_ps, free_sequence): the
    // event order the link-free event would have had. That event is only
    // scheduled when a message waits (free_scheduled).
    TimePs free_at_ps = 0;
    uint64_t free_sequence = 0;
    TimePs busy_ps = 0;
    std::unique_ptr<Waiting[]> slots[2];
    uint32_t head[2] = {0, 0}, size[2] = {0, 0};
    uint8_t capacity_log2[2] = {0, 0};  // 0: no ring yet
    uint8_t last_class = 1;  // a byte of its own: every message writes it
    uint8_t free_scheduled : 1 = 0;
    // Where the link leads, its kind and its latency (an index into
    // step_latency_ps_): a message leaving a queue takes the link it waited
    // for without routing again (link_step()).
    uint8_t latency_index : 3 = 0;
    uint8_t kind_bits : 3 = 0;
    uint32_t target = 0;
    [[nodiscard]] LinkKind kind() const { return static_cast<LinkKind>(kind_bits); }

    [[nodiscard]] uint32_t mask(int q) const { return (uint32_t{1} << capacity_log2[q]) - 1; }
    void push(int q, const Waiting& w) {
      if (capacity_log2[q] == 0 || size[q] == mask(q) + 1) grow(q);
      slots[q][(head[q] + size[q]++) & mask(q)] = w;
    }
    [[nodiscard]] const Waiting& front(int q) const { return slots[q][head[q]]; }
    void pop(int q) {
      head[q] = (head[q] + 1) & mask(q);
      --size[q];
    }
    void grow(int q);
  };
  static_assert(sizeof(Link) == 64, "a link is one cache line");
  static_assert(static_cast<int>(LinkKind::kCount) < 8, "a link kind and a latency index fit in three bits");
  // The link a message at some node takes next, and where it leads.
  struct Step {
    uint32_t link = 0;
    uint32_t node = 0;
    LinkKind kind = LinkKind::kRouter;
    TimePs latency_ps = 0;
  };
  struct TagRoute {
    uint32_t cu_node = 0, memory_node = 0;
    uint16_t response_bytes = 0;
    uint8_t response_class = 1, port = 0;
    // Flow level: the lines of the message (first_line .. + lines - 1).
    uint64_t first_line = 0;
    uint32_t lines = 1;
  };

  [[nodiscard]] Step step(uint32_t node, uint32_t dst, uint8_t port) const;
  // The step over a given link (what step() returns for a message before
  // it): a scale-up link down from a plane has no latency of its own.
  [[nodiscard]] Step link_step(uint32_t link_index, const Link& link) const {
    return Step{link_index, link.target, link.kind(), step_latency_ps_[link.latency_index]};
  }
  [[nodiscard]] LinkKind endpoint_kind(uint32_t local) const {
    return local < hbm_first_ ? LinkKind::kCu : local < io_first_ ? LinkKind::kHbm : LinkKind::kIo;
  }
  // The hop loop of handle(); kPlain: request level without a timeline
  // (flows_ and timeline_ are not tested per hop).
  template <bool kPlain>
  void run(const Event& first);
  void inject(const Transit& transit);
  template <bool kPlain>
  void forward(Transit transit);
  // Puts a message on an idle link; `rearm`: another waits for it.
  template <bool kPlain>
  void transmit(const Step& hop, Transit transit, bool rearm);
  template <bool kPlain>
  void link_free(uint32_t link);
  // Flow level: a message's lines over the HBM channels' or I/O ports'
  // links of a striped stage (noc_network_flow.cc); returns when it
  // reaches the next node.
  [[nodiscard]] static bool striped(LinkKind kind) {
    return kind == LinkKind::kHbm || kind == LinkKind::kIo || kind == LinkKind::kScaleUp;
  }
  TimePs stripe(const Step& hop, const Transit& transit);
  // Flow level: when a message that started on a router or CU link at
  // `start_ps` reaches the next node (its head, cut-through; all of it
  // when the next node is its endpoint).
  [[nodiscard]] TimePs flow_arrival_ps(const Step& hop, const Transit& transit, TimePs start_ps,
                                       TimePs serialize_ps) const;
  [[nodiscard]] TimePs serialize_ps(int kind, uint32_t bytes) const {
    return bytes <= kTabulatedBytes ? serialize_ps_[kind][bytes] : ceil_serialize_ps(kind, bytes);
  }
  [[nodiscard]] TimePs ceil_serialize_ps(int kind, uint32_t bytes) const;
  void at_memory(uint32_t tag);
  // Multicast (noc_network_multicast.cc). A member's copy of a multicast
  // request travels under a tag of its own, kMemberTag | its index.
  static constexpr uint32_t kMemberTag = uint32_t{1} << 31;
  void send_multicast(uint32_t tag, const gpu::Access& access);
  void at_plane(const Transit& transit);
  void member_at_memory(uint32_t member_tag);
  void plane_reply(uint32_t tag);
  [[nodiscard]] uint32_t plane_node(uint8_t port) const { return gpus_ << node_bits_ | port; }
  // The I/O port (and scale-up plane) a line leaves its GPU through: lines
  // interleave over ports as over HBM channels, shifted per round of
  // channels so that consecutive lines never share a path. Needs ios_ > 0.
  [[nodiscard]] uint32_t io_port_of_line(uint64_t line) const {
    return static_cast<uint32_t>((line / hbm_ + line) % ios_);
  }
  uint32_t router_of(uint32_t local_endpoint) const { return endpoint_router_[local_endpoint - routers_]; }

  NocConfig config_;
  uint32_t gpus_;
  EventLoop& loop_;
  HandlerId handler_;
  gpu::AccessSink* sink_ = nullptr;
  std::unique_ptr<MeshRouting> routing_;
  std::unique_ptr<Arbiter> arbiter_;
  uint32_t routers_ = 0, cus_ = 0, hbm_ = 0, ios_ = 0;
  uint32_t hbm_first_ = 0, io_first_ = 0, nodes_per_gpu_ = 0, links_per_gpu_ = 0, scale_up_first_ = 0;
  uint32_t node_bits_ = 0;  // a node id's local part
  std::vector<uint32_t> endpoint_router_;  // local endpoint - routers_ -> router
  // The routing function's step from router r toward router t, at
  // r * routers_ + t: its direction (the link's index among r's four) and
  // the next router (a hop reads both instead of calling the function and
  // branching on the direction).
  struct MeshStep {
    uint32_t next = 0;
    uint32_t direction = 0;
  };
  std::vector<MeshStep> mesh_step_;
  double ps_per_byte_[static_cast<int>(LinkKind::kCount)] = {};
  TimePs latency_ps_[static_cast<int>(LinkKind::kCount)] = {};
  // By Link::latency_index: the kinds' latencies, then none (kNoLatency).
  static constexpr uint8_t kNoLatency = static_cast<uint8_t>(LinkKind::kCount);
  TimePs step_latency_ps_[kNoLatency + 1] = {};
  TimePs hbm_access_ps_ = 0;
  // Serialization times of messages up to kTabulatedBytes, by link kind
  // (what a hop computes, looked up).
  static constexpr uint32_t kTabulatedBytes = 256;
  TimePs serialize_ps_[static_cast<int>(LinkKind::kCount)][kTabulatedBytes + 1] = {};
  // Per link kind, as hops happen (stats() adds the links' figures).
  uint64_t kind_messages_[static_cast<int>(LinkKind::kCount)] = {};
  uint64_t kind_bytes_[static_cast<int>(LinkKind::kCount)] = {};
  TimePs kind_queued_ps_[static_cast<int>(LinkKind::kCount)] = {};
  // Null unless record_timeline(): then a hop also calls it (out of line).
  std::unique_ptr<LinkTimeline> timeline_;
  std::vector<Link> links_;
  bool fifo_ = true;  // FIFO arbitration: one queue per link
  bool flows_ = false;  // carry_flows(): flow-level messages
  TimePs line_interval_ps_ = 0;
  uint64_t in_flight_ = 0;
  uint64_t sequence_ = 0;
  std::vector<TagRoute> tags_;
  NocStats stats_;
  // Multicast: per tag its members and how many have yet to answer; per
  // member copy in flight its tag and memory; per plane when its reduction
  // engine frees (and stats_.planes).
  struct MulticastRoute {
    std::vector<uint32_t> members;
    uint32_t pending = 0;
    bool reduce = false;
  };
  struct MemberRoute {
    uint32_t tag = 0;
    uint32_t memory_node = 0;
    uint32_t next_free = UINT32_MAX;
  };
  std::vector<MulticastRoute> multicast_;
  std::vector<MemberRoute> member_routes_;
  uint32_t free_member_ = UINT32_MAX;
  std::vector<TimePs> reduce_free_ps_;
  double reduce_ps_per_byte_ = 0;
  TimePs reduce_latency_ps_ = 0;
};

}  // namespace snr::dsim::noc
