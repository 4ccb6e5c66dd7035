// A network without topology: every message takes a fixed one-way time,
// local (to the GPU's own memory) or remote, and nothing contends. The GPU
// model's unit tests use it so that cycle counts can be computed by hand;
// `snr collective --network ideal` uses it to separate the GPU's own limits
// from the NoC's.
#pragma once

#include <vector>

#include "dsim/core/event_loop.h"
#include "dsim/gpu/memory_network.h"

namespace snr::dsim::gpu {

class FixedLatencyNetwork final : public MemoryNetwork, public EventHandler {
 public:
  FixedLatencyNetwork(EventLoop& loop, TimePs local_one_way_ps, TimePs remote_one_way_ps);

  void attach(AccessSink& sink) override { sink_ = &sink; }
  void send(uint32_t tag, const Access& access) override;
  void respond(uint32_t tag) override;
  // A flow arrives when its last line would have: (lines - 1) intervals late.
  void carry_flows(TimePs line_interval_ps) override { line_interval_ps_ = line_interval_ps; }
  [[nodiscard]] uint32_t compute_units() const override { return 0; }
  void handle(const Event& event) override;

 private:
  TimePs one_way(uint32_t tag) const { return remote_[tag] ? remote_ps_ : local_ps_; }

  EventLoop& loop_;
  HandlerId handler_;
  AccessSink* sink_ = nullptr;
  TimePs local_ps_, remote_ps_;
  TimePs line_interval_ps_ = 0;
  std::vector<uint8_t> remote_;  // by tag: in flight to another GPU
};

}  // namespace snr::dsim::gpu
