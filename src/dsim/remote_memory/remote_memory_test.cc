#include "dsim/remote_memory/remote_memory.h"

#include <gtest/gtest.h>

#include <optional>
#include <tuple>
#include <vector>

#include "common/error.h"

namespace snr::dsim {
namespace {

// Records (npu, node, time) of every finished request; can issue another
// request from the callback, as a workload does.
class Recorder final : public RemoteMemoryClient {
 public:
  explicit Recorder(EventLoop& loop) : loop_(loop) {}
  void remote_memory_done(NpuId npu, uint32_t node) override {
    done.emplace_back(npu, node, loop_.now());
    if (then_issue && npu == then_issue->npu) {
      const auto next = *then_issue;
      then_issue.reset();
      memory->issue(next.npu, next.node, next.bytes);
    }
  }
  struct Next {
    NpuId npu;
    uint32_t node;
    uint64_t bytes;
  };
  std::vector<std::tuple<NpuId, uint32_t, TimeNs>> done;
  std::optional<Next> then_issue;
  RemoteMemory* memory = nullptr;

 private:
  EventLoop& loop_;
};

RemoteMemoryConfig config(RemoteMemoryType type) {
  RemoteMemoryConfig c;
  c.type = type;
  c.latency_ns = 100;
  c.bandwidth_bytes_per_ns = 10;
  c.num_nodes = 2;
  c.num_npus_per_node = 2;
  return c;
}

using Done = std::tuple<NpuId, uint32_t, TimeNs>;

TEST(RemoteMemory, ARequestTakesLatencyPlusBytesOverBandwidth) {
  EventLoop loop;
  Recorder client(loop);
  RemoteMemory memory(config(RemoteMemoryType::kPerNpuExpansion), 4, loop, client);
  EXPECT_EQ(memory.runtime_ns(1000), 200u);  // 100 + 1000 / 10
  EXPECT_EQ(memory.runtime_ns(15), 101u);    // 100 + floor(1.5)
  // Per NPU: requests of the same or other NPUs never wait.
  memory.issue(0, 7, 1000);
  memory.issue(0, 8, 500);
  memory.issue(3, 1, 0);
  loop.run();
  EXPECT_EQ(client.done, (std::vector<Done>{{3, 1, 100}, {0, 8, 150}, {0, 7, 200}}));
  EXPECT_EQ(memory.requests_that_waited(), 0u);
}

TEST(RemoteMemory, APoolServesOneRequestAtATimeInArrivalOrder) {
  EventLoop loop;
  Recorder client(loop);
  RemoteMemory memory(config(RemoteMemoryType::kMemoryPool), 4, loop, client);
  client.memory = &memory;
  memory.issue(0, 1, 1000);  // 0 .. 200
  memory.issue(3, 2, 500);   // waits: 200 .. 350
  // NPU 0 issues again when its first request is done, at 200: it queues
  // behind NPU 3's, which was waiting (ASTRA-sim tells the NPU first).
  client.then_issue = Recorder::Next{0, 3, 0};  // 350 .. 450
  loop.run();
  EXPECT_EQ(client.done, (std::vector<Done>{{0, 1, 200}, {3, 2, 350}, {0, 3, 450}}));
  EXPECT_EQ(memory.requests(), 3u);
  EXPECT_EQ(memory.requests_that_waited(), 2u);
}

TEST(RemoteMemory, NodesOfNpusEachHaveOneMemory) {
  EventLoop loop;
  Recorder client(loop);
  RemoteMemory memory(config(RemoteMemoryType::kPerNodeExpansion), 4, loop, client);
  memory.issue(0, 1, 1000);  // node 0: 0 .. 200
  memory.issue(1, 1, 1000);  // node 0: waits, 200 .. 400
  memory.issue(2, 1, 1000);  // node 1: 0 .. 200
  loop.run();
  EXPECT_EQ(client.done, (std::vector<Done>{{0, 1, 200}, {2, 1, 200}, {1, 1, 400}}));
}

TEST(RemoteMemory, NodesMustCoverEveryNpu) {
  EventLoop loop;
  Recorder client(loop);
  EXPECT_THROW(RemoteMemory(config(RemoteMemoryType::kPerNodeExpansion), 5, loop, client), Error);
  EXPECT_THROW(RemoteMemory(config(RemoteMemoryType::kNoExpansion), 4, loop, client), Error);
}

}  // namespace
}  // namespace snr::dsim
