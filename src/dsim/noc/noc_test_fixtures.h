// For the NoC tests: a sink that records when each request reaches memory
// and when its response returns, and the two-router mesh their
// hand-computed times are worked out on.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "dsim/core/event_loop.h"
#include "dsim/gpu/memory_network.h"
#include "dsim/noc/noc_config.h"

namespace snr::dsim::noc {

class Recorder final : public gpu::AccessSink {
 public:
  explicit Recorder(EventLoop& loop) : loop_(loop) {}
  bool arrived(uint32_t tag) override {
    arrivals.push_back({tag, loop_.now()});
    return true;
  }
  void completed(uint32_t tag) override { completions.push_back({tag, loop_.now()}); }
  std::vector<std::pair<uint32_t, gpu::TimePs>> arrivals, completions;

 private:
  EventLoop& loop_;
};

// Two routers in a row, one CU each; one HBM channel on the right router
// (every line interleaves to it); 128 GiB/s links, 1 ns between routers.
inline NocConfig two_router_config() {
  NocConfig c;
  c.name = "test";
  c.columns = 2;
  c.rows = 1;
  c.cus_per_router = 1;
  c.hbm_sides = {Side::kRight};
  c.hbm_per_router = 1;
  c.hbm_access_latency_ns = 0;
  c.io_sides = {Side::kLeft};
  c.io_per_router = 1;
  c.router_link = {128, 1};
  c.cu_link = {128, 0};
  c.hbm_link = {128, 0};
  return c;
}

}  // namespace snr::dsim::noc
