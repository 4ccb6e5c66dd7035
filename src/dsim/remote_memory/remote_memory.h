// ASTRA-sim's analytical remote memory (its AnalyticalRemoteMemory). A
// request of B bytes takes remote-mem-latency + floor(B / remote-mem-bw) ns.
// PER_NPU_MEMORY_EXPANSION gives each NPU its own memory and requests never
// wait; PER_NODE_MEMORY_EXPANSION gives each node of num-npus-per-node NPUs
// one memory and MEMORY_POOL gives all NPUs one: such a memory serves one
// request at a time, the others wait in arrival order. When a request
// finishes, its NPU hears of it first; then the next waiting request starts
// at the same time (ASTRA-sim's two events of one tick, in that order).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "dsim/config/aux_config.h"
#include "dsim/core/event_loop.h"

namespace snr::dsim {

// Who is told when a request is done.
class RemoteMemoryClient {
 public:
  virtual ~RemoteMemoryClient() = default;
  virtual void remote_memory_done(NpuId npu, uint32_t node_index) = 0;
};

class RemoteMemory final : public EventHandler {
 public:
  // Throws snr::Error when PER_NODE_MEMORY_EXPANSION's nodes do not cover
  // `npus_count` NPUs. Precondition: config.type != kNoExpansion.
  RemoteMemory(const RemoteMemoryConfig& config, uint64_t npus_count, EventLoop& loop, RemoteMemoryClient& client);

  void issue(NpuId npu, uint32_t node_index, uint64_t bytes);
  void handle(const Event& event) override;

  [[nodiscard]] uint64_t runtime_ns(uint64_t bytes) const;
  [[nodiscard]] uint64_t requests() const { return requests_; }
  [[nodiscard]] uint64_t requests_that_waited() const { return requests_that_waited_; }

  struct RequestDone {
    static constexpr uint8_t kKind = 1;
    NpuId npu;
    uint32_t node;
  };

 private:
  struct Request {
    NpuId npu;
    uint32_t node;
    uint64_t bytes;
  };
  // The shared memory serving `npu` (per node or the pool); kNone per NPU.
  [[nodiscard]] uint32_t memory_of(NpuId npu) const;
  void start(const Request& request);

  static constexpr uint32_t kNone = UINT32_MAX;
  RemoteMemoryConfig config_;
  EventLoop& loop_;
  RemoteMemoryClient& client_;
  HandlerId handler_ = 0;
  std::vector<bool> busy_;                     // per shared memory
  std::vector<std::deque<Request>> waiting_;  // per shared memory, in arrival order
  uint64_t requests_ = 0;
  uint64_t requests_that_waited_ = 0;
};

}  // namespace snr::dsim
