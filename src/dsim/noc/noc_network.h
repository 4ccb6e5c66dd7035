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
// Memory: per-link state (a few words) and a pool of in-flight messages;
// link queues are intrusive lists through the pool.
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
  struct Message {
    uint32_t tag = 0;
    uint32_t node = 0;  // where it is (or is headed over its current link)
    uint32_t dst = 0;
    uint32_t bytes = 0;
    uint8_t cls = 0;
    uint8_t port = 0;
    bool response = false;
    uint32_t next = UINT32_MAX;  // link queue or free list
    uint64_t sequence = 0;
    TimePs enqueued_ps = 0;
  };
  struct Link {
    uint32_t head[2] = {UINT32_MAX, UINT32_MAX}, tail[2] = {UINT32_MAX, UINT32_MAX};
    bool busy = false;
    uint8_t last_class = 1;
    TimePs busy_ps = 0;
    uint64_t messages = 0, bytes = 0;
  };
  struct TagRoute {
    uint32_t cu_node = 0, memory_node = 0, response_bytes = 0;
    uint8_t response_class = 1, port = 0;
  };

  uint32_t next_link(const Message& m) const;
  uint32_t next_link(uint32_t node, uint32_t dst, uint8_t port) const;
  void inject(uint32_t tag, uint32_t from, uint32_t to, uint32_t bytes, uint8_t cls, uint8_t port, bool response);
  void forward(uint32_t msg);
  void transmit(uint32_t link, uint32_t msg, bool from_queue);
  uint32_t router_of(uint32_t local_endpoint) const { return endpoint_router_[local_endpoint - routers_]; }
  bool is_io(uint32_t local) const { return local >= io_first_; }

  NocConfig config_;
  uint32_t gpus_;
  EventLoop& loop_;
  HandlerId handler_;
  gpu::AccessSink* sink_ = nullptr;
  std::unique_ptr<MeshRouting> routing_;
  std::unique_ptr<Arbiter> arbiter_;
  uint32_t routers_ = 0, cus_ = 0, hbm_ = 0, ios_ = 0;
  uint32_t hbm_first_ = 0, io_first_ = 0, nodes_per_gpu_ = 0, links_per_gpu_ = 0, scale_up_first_ = 0;
  std::vector<uint32_t> endpoint_router_;  // local endpoint - routers_ -> router
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
