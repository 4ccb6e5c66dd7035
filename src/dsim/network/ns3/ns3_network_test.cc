// The ns-3 backend against hand-computed packet timings. Wire sizes: a
// 1,000-byte payload is 1,030 bytes with UDP, IPv4 and PPP headers, 82.4 ns
// at 100 Gb/s; a 131,072-byte message is 131 full packets and one of 72
// bytes (102 on the wire, 8.16 ns).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "common/error.h"
#include "common/error_of.h"
#include "dsim/network/ns3/ns3_backend.h"

namespace snr::dsim {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

class Host final : public EventHandler {
 public:
  struct SendLater {
    static constexpr uint8_t kKind = 7;
    MessageId message;
    NpuId src, dst;
  };
  Host() { id = loop.add_handler("test host", *this); }
  void handle(const Event& event) override {
    if (event.kind == SendLater::kKind) {
      const auto later = event.get<SendLater>();
      net->send(later.message, later.src, later.dst, kMessageBytes, id);
      return;
    }
    ASSERT_EQ(event.kind, MessageArrived::kKind);
    arrivals[event.get<MessageArrived>().message] = loop.now();
  }
  static constexpr uint64_t kMessageBytes = 131072;
  EventLoop loop;
  HandlerId id = 0;
  NetworkBackend* net = nullptr;
  std::map<MessageId, TimeNs> arrivals;
};

Ns3NetworkConfig star(uint32_t npus, uint64_t queue_bytes = uint64_t{16} << 20) {
  Ns3NetworkConfig config;
  config.npus = npus;
  config.switches = 1;
  for (uint32_t npu = 0; npu < npus; ++npu) config.links.push_back({npu, npus, 100, 200});
  config.port_queue_bytes = queue_bytes;
  return config;
}

TEST(Ns3Network, OneMessageThroughOneSwitch) {
  Host host;
  auto net = make_ns3_network(star(2), host.loop);
  net->flow_log()->keep_records(true);
  net->send(5, 0, 1, Host::kMessageBytes, host.id);
  host.loop.run();
  // Link 1 carries 131 full packets (10,794.4 ns) and the last one; the
  // switch is still forwarding the last full packet (arrived at 10,994.4,
  // done at 11,076.8) when the small one arrives, so it leaves at 11,076.8,
  // takes 8.16 ns and 200 ns more: 11,284.96 ns, reported rounded up.
  ASSERT_EQ(host.arrivals.size(), 1u);
  EXPECT_EQ(host.arrivals.at(5), 11285u);
  const auto flows = net->flow_log()->take_records();
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].start_ns, 0u);
  EXPECT_EQ(flows[0].end_ns, 11285u);
  const auto packets = net->packet_stats();
  ASSERT_TRUE(packets.has_value());
  EXPECT_EQ(packets->packets_sent, 132u);
  EXPECT_EQ(packets->packets_dropped, 0u);
  const auto links = net->link_stats();
  ASSERT_EQ(links.size(), 2u);  // npu0 -> switch and switch -> npu1
  for (const auto& link : links) EXPECT_EQ(link.bytes, 131u * 1030u + 102u);
}

TEST(Ns3Network, AMessageSentLaterStartsThen) {
  Host host;
  auto net = make_ns3_network(star(2), host.loop);
  host.net = net.get();
  net->flow_log()->keep_records(true);
  host.loop.schedule(1000, host.id, Host::SendLater{3, 1, 0});
  host.loop.run();
  EXPECT_EQ(host.arrivals.at(3), 1000u + 11285u);
  EXPECT_EQ(net->flow_log()->take_records().at(0).start_ns, 1000u);
}

TEST(Ns3Network, TwoSendersShareTheReceiversPort) {
  Host host;
  auto net = make_ns3_network(star(3), host.loop);
  net->send(1, 0, 2, Host::kMessageBytes, host.id);
  net->send(2, 1, 2, Host::kMessageBytes, host.id);
  host.loop.run();
  // The switch's port to NPU 2 is busy from the first packet's arrival
  // (82.4 + 200 ns) for both messages' 264 packets (2 x 10,802.56 ns), then
  // 200 ns to NPU 2: 22,087.52 ns for the later one.
  const TimeNs last = std::max(host.arrivals.at(1), host.arrivals.at(2));
  EXPECT_EQ(last, 22088u);
  EXPECT_GT(std::min(host.arrivals.at(1), host.arrivals.at(2)), 20000u);  // interleaved, not one after the other
  const auto packets = net->packet_stats();
  EXPECT_EQ(packets->packets_dropped, 0u);
  EXPECT_GT(packets->max_queue_bytes, 100000u);  // half of the 270 KB arriving at twice the port's rate
  EXPECT_EQ(packets->max_queue_port, "switch0->npu2");
}

TEST(Ns3Network, AnOverflowingQueueStopsTheRunNamingThePort) {
  Host host;
  // Three senders into one port: about 2 x 135 KB wait there at the peak.
  auto net = make_ns3_network(star(4, 130000), host.loop);
  for (NpuId src = 0; src < 3; ++src) net->send(src, src, 3, Host::kMessageBytes, host.id);
  const std::string what = error_of([&] { host.loop.run(); });
  EXPECT_THAT(what, HasSubstr("2 of 3 messages never completed"));
  EXPECT_THAT(what, HasSubstr("port switch0->npu3"));
  EXPECT_THAT(what, HasSubstr("raise port_queue_bytes (now 130000)"));
}

// Two equal paths between two NPUs, through switch 2 or switch 3.
Ns3NetworkConfig two_paths(EcmpMode mode) {
  Ns3NetworkConfig config;
  config.npus = 2;
  config.switches = 2;
  config.links = {{0, 2, 100, 100}, {2, 1, 100, 100}, {0, 3, 100, 100}, {3, 1, 100, 100}};
  config.ecmp = mode;
  return config;
}

std::map<std::string, uint64_t> bytes_by_link(const NetworkBackend& net) {
  std::map<std::string, uint64_t> out;
  for (const auto& link : net.link_stats()) out[link.name] = link.bytes;
  return out;
}

TEST(Ns3Network, EcmpModes) {
  constexpr uint64_t kWireBytes = 131u * 1030u + 102u;
  {
    Host host;
    auto net = make_ns3_network(two_paths(EcmpMode::kFirst), host.loop);
    for (MessageId m = 0; m < 8; ++m) net->send(m, 0, 1, Host::kMessageBytes, host.id);
    host.loop.run();
    const auto bytes = bytes_by_link(*net);
    EXPECT_EQ(bytes.at("npu0->switch0"), 8 * kWireBytes);
    EXPECT_FALSE(bytes.contains("npu0->switch1"));
  }
  {
    Host host;
    auto net = make_ns3_network(two_paths(EcmpMode::kFlow), host.loop);
    for (MessageId m = 0; m < 16; ++m) net->send(m, 0, 1, Host::kMessageBytes, host.id);
    host.loop.run();
    EXPECT_EQ(host.arrivals.size(), 16u);
    const auto bytes = bytes_by_link(*net);
    // Both paths carry whole messages.
    ASSERT_TRUE(bytes.contains("npu0->switch0") && bytes.contains("npu0->switch1"));
    EXPECT_EQ(bytes.at("npu0->switch0") % kWireBytes, 0u);
    EXPECT_EQ(bytes.at("npu0->switch0") + bytes.at("npu0->switch1"), 16 * kWireBytes);
  }
  {
    Host host;
    auto net = make_ns3_network(two_paths(EcmpMode::kPacket), host.loop);
    net->send(0, 0, 1, Host::kMessageBytes, host.id);
    host.loop.run();
    const auto bytes = bytes_by_link(*net);
    // One message's packets spread over both paths.
    EXPECT_GT(bytes.at("npu0->switch0"), kWireBytes / 4);
    EXPECT_GT(bytes.at("npu0->switch1"), kWireBytes / 4);
  }
}

TEST(Ns3Network, OneSimulationPerProcess) {
  Host first, second;
  auto net = make_ns3_network(star(2), first.loop);
  EXPECT_THAT(error_of([&] { (void)make_ns3_network(star(2), second.loop); }), HasSubstr("one is running"));
}

}  // namespace
}  // namespace snr::dsim
