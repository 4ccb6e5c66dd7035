#include <gtest/gtest.h>

#include <vector>

#include "dsim/config/network_config.h"
#include "dsim/network/analytical_aware/aware_network.h"
#include "dsim/network/analytical_unaware/unaware_network.h"

namespace snr::dsim {
namespace {

// Records arrivals; runs the backend's events through a local queue.
class RecordingHost final : public NetworkHost {
 public:
  void message_arrived(MessageId m) override { arrivals.push_back({m, queue.now()}); }
  void run(NetworkBackend& net) {
    while (!queue.empty()) {
      const Event event = queue.pop();
      if (event.kind == EventKind::kMessageArrived) {
        message_arrived(event.a);
      } else {
        net.handle_event(event.a);
      }
    }
  }
  EventQueue queue;
  std::vector<std::pair<MessageId, TimeNs>> arrivals;
};

NetworkConfig config(const char* yaml) { return parse_network_config(yaml, "test"); }

TEST(UnawareNetwork, HopsTimesLatencyPlusSerialization) {
  RecordingHost host;
  UnawareNetwork net(config("topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n"), host.queue);
  // 50 GB/s = 50 * 2^30 / 1e9 = 53.687 B/ns; 32768 B -> 610.35 ns.
  EXPECT_EQ(net.delay_ns(0, 1, 32768), 1110u);       // 500 + 610.35
  EXPECT_EQ(net.delay_ns(0, 4, 32768), 2610u);       // 4 hops: 2000 + 610.35
  EXPECT_EQ(net.delay_ns(0, 7, 32768), 1110u);       // one hop anticlockwise
}

TEST(AwareNetwork, SecondMessageQueuesBehindFirst) {
  RecordingHost host;
  AwareNetwork net(config("topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n"), host.queue, host);
  net.send(0, 0, 1, 65536);
  net.send(1, 0, 1, 65536);
  host.run(net);
  ASSERT_EQ(host.arrivals.size(), 2u);
  // serialization 65536 / 53.687 = 1220.7 -> 1220; hop = (int)(500 + 1220.7) = 1720.
  EXPECT_EQ(host.arrivals[0].second, 1720u);
  EXPECT_EQ(host.arrivals[1].second, 1220u + 1720u);
}

TEST(AwareNetwork, OneDimensionalRingTakesTheShorterWayHopByHop) {
  RecordingHost host;
  AwareNetwork net(config("topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n"), host.queue, host);
  net.send(0, 0, 3, 32768);  // clockwise, 3 hops
  net.send(1, 0, 6, 32768);  // anticlockwise, 2 hops: 0 -> 7 -> 6
  net.send(2, 4, 0, 32768);  // tie (4 each way): clockwise 4 -> 5 -> 6 -> 7 -> 0
  host.run(net);
  ASSERT_EQ(host.arrivals.size(), 3u);
  // Each hop (int)(500 + 32768 / 53.687) = (int)1110.35 = 1110; links differ, so no queueing.
  EXPECT_EQ(host.arrivals[0], (std::pair<MessageId, TimeNs>{1, 2220}));
  EXPECT_EQ(host.arrivals[1], (std::pair<MessageId, TimeNs>{0, 3330}));
  EXPECT_EQ(host.arrivals[2], (std::pair<MessageId, TimeNs>{2, 4440}));
  // Message 2 used 4->5, 5->6, 6->7, 7->0; message 0 used 0->1, 1->2, 2->3; message 1 0->7, 7->6.
  EXPECT_EQ(net.link_stats().size(), 9u);
}

TEST(AwareNetwork, SwitchIsTwoStoreAndForwardHops) {
  RecordingHost host;
  AwareNetwork net(config("topology: [Switch]\nnpus_count: [8]\nbandwidth: [400]\nlatency: [936.25]\n"), host.queue, host);
  net.send(0, 0, 1, 32768);
  host.run(net);
  ASSERT_EQ(host.arrivals.size(), 1u);
  // per link: (int)(936.25 + 32768 / 429.497) = (int)1012.54 = 1012; two links.
  EXPECT_EQ(host.arrivals[0].second, 2024u);
  EXPECT_EQ(net.link_stats().size(), 2u);
}

TEST(AwareNetwork, MultiDimensionalRoutesDimensionZeroFirst) {
  RecordingHost host;
  AwareNetwork net(config("topology: [Ring, Ring]\nnpus_count: [2, 2]\nbandwidth: [50, 50]\nlatency: [100, 200]\n"),
                   host.queue, host);
  net.send(0, 0, 3, 2048);  // NPU 0 = (0,0) -> NPU 3 = (1,1): via NPU 1
  net.send(1, 2, 3, 2048);  // NPU 2 = (0,1) -> NPU 3: dimension 0 only, a different link
  host.run(net);
  ASSERT_EQ(host.arrivals.size(), 2u);
  // 2048 B / 53.687 B/ns = 38.15 ns. Message 1: (int)(100 + 38.15) = 138.
  // Message 0: 138 to NPU 1, then (int)(200 + 38.15) = 238 to NPU 3: 376.
  EXPECT_EQ(host.arrivals[0], (std::pair<MessageId, TimeNs>{1, 138}));
  EXPECT_EQ(host.arrivals[1], (std::pair<MessageId, TimeNs>{0, 376}));
}

}  // namespace
}  // namespace snr::dsim
