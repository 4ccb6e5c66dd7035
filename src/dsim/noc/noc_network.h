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
// Memory: per-link state (one cache line) and a pool of in-flight
// messages; link queues are intrusive lists through the pool.
//
// Cost: one event per hop (the arrival at the next node). The moment a
// link frees is an event only when a message waits for it; otherwise the
// link's free time and the event order that event would have had are kept
// (a reserved sequence number, see dsim/core/event_queue.h), so a message
// arriving at the same picosecond finds the link exactly as busy or idle as
// with the event.
#pragma once

#include <memory>
#include <vector>

#include "dsim/core/event_loop.h"
#include "dsim/gpu/memory_network.h"
#include "dsim/noc/arbitration.h"
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

struct NocStats {
  uint64_t messages = 0, hops = 0;
  uint64_t max_in_flight = 0;
  LinkKindStats kinds[static_cast<int>(LinkKind::kCount)];
};

const char* to_string(LinkKind kind);

class NocNetwork final : public gpu::MemoryNetwork, public EventHandler {
 public:
  NocNetwork(const NocConfig& config, uint32_t gpus, EventLoop& loop);

  void attach(gpu::AccessSink& sink) override { sink_ = &sink; }
  void send(uint32_t tag, const gpu::Access& access) override;
  void respond(uint32_t tag) override;
  [[nodiscard]] uint32_t compute_units() const override { return config_.compute_units(); }
  void handle(const Event& event) override;

  [[nodiscard]] const NocStats& stats();  // completes the per-kind busy figures
  [[nodiscard]] uint32_t nodes_per_gpu() const { return nodes_per_gpu_; }
  // The links a message from `from` to `to` (global node ids, same GPU or a
  // port path for another GPU) crosses, for tests.
  [[nodiscard]] std::vector<uint32_t> path(uint32_t from, uint32_t to, uint8_t port = 0) const;
  // Global node ids.
  [[nodiscard]] uint32_t router_node(uint32_t gpu, uint32_t x, uint32_t y) const;
  [[nodiscard]] uint32_t cu_node(uint32_t gpu, uint32_t cu) const;
  [[nodiscard]] uint32_t hbm_node(uint32_t gpu, uint32_t channel) const;
  [[nodiscard]] uint32_t io_node(uint32_t gpu, uint32_t port) const;
  [[nodiscard]] LinkKind link_kind(uint32_t link) const;
  [[nodiscard]] uint32_t link_target(uint32_t link) const;

 private:
  // What a hop needs of a message, carried in the hop event itself (so a
  // hop reads no message record) and kept in the record only while the
  // message waits in a link queue. Nodes are global ids; switch planes
  // follow the GPUs' nodes.
  struct Transit {
    uint32_t message = 0;
    uint32_t node = 0;  // where it is (or is headed over its current link)
    uint32_t dst = 0;   // the endpoint it goes to
    uint16_t bytes = 0;
    uint8_t port = 0;
    uint8_t cls = 0;
  };
  // The events (defined with the code).
  struct Hop;
  struct LinkFree;
  struct MemoryAccess;
  struct Message {
    Transit waiting;  // while in a link queue
    uint32_t tag = 0;
    bool response = false;
    uint32_t next = UINT32_MAX;  // link queue or free list
    uint64_t sequence = 0;       // arrival order in a link queue (FIFO arbitration)
    TimePs enqueued_ps = 0;
  };
  // One cache line: what a hop reads and writes of its link.
  struct alignas(64) Link {
    // The message on the link has left at (free_at_ps, free_sequence): the
    // event order the link-free event would have had. That event is only
    // scheduled when a message waits (free_scheduled).
    TimePs free_at_ps = 0;
    uint64_t free_sequence = 0;
    uint32_t head[2] = {UINT32_MAX, UINT32_MAX}, tail[2] = {UINT32_MAX, UINT32_MAX};
    bool free_scheduled = false;
    uint8_t last_class = 1;
    TimePs busy_ps = 0;
    uint64_t messages = 0, bytes = 0;
  };
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
  };

  [[nodiscard]] Step step(uint32_t node, uint32_t dst, uint8_t port) const;
  // node / nodes_per_gpu_ as a multiply and a shift (nodes are below 2^31).
  [[nodiscard]] uint32_t gpu_of(uint32_t node) const {
    return static_cast<uint32_t>((uint64_t{node} * gpu_divisor_magic_) >> gpu_divisor_shift_);
  }
  [[nodiscard]] LinkKind endpoint_kind(uint32_t local) const {
    return local < hbm_first_ ? LinkKind::kCu : local < io_first_ ? LinkKind::kHbm : LinkKind::kIo;
  }
  void inject(uint32_t tag, uint32_t from, uint32_t to, uint16_t bytes, uint8_t cls, uint8_t port, bool response);
  void forward(Transit transit);
  void transmit(const Step& hop, Transit transit, bool from_queue, TimePs enqueued_ps);
  void link_free(uint32_t link);
  void at_memory(uint32_t message);
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
  uint32_t plane_first_ = 0;  // the first switch plane's node id
  uint64_t gpu_divisor_magic_ = 1;
  uint32_t gpu_divisor_shift_ = 0;
  std::vector<uint32_t> endpoint_router_;  // local endpoint - routers_ -> router
  // The routing function's direction from router r toward router t, at
  // r * routers_ + t (a hop reads it instead of calling the function).
  std::vector<Direction> direction_;
  double ps_per_byte_[static_cast<int>(LinkKind::kCount)] = {};
  TimePs latency_ps_[static_cast<int>(LinkKind::kCount)] = {};
  TimePs hbm_access_ps_ = 0;
  std::vector<Link> links_;
  std::vector<Message> messages_;
  uint32_t free_message_ = UINT32_MAX;
  uint64_t in_flight_ = 0;
  uint64_t sequence_ = 0;
  std::vector<TagRoute> tags_;
  NocStats stats_;
};

}  // namespace snr::dsim::noc
