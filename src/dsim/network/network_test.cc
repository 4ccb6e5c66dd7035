#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"
#include "dsim/config/network_config.h"
#include "dsim/network/analytical_aware/aware_network.h"
#include "dsim/network/analytical_unaware/unaware_network.h"
#include "dsim/network/registry.h"

namespace snr::dsim {
namespace {

// A sender: records the arrivals the backend delivers to its handler.
class RecordingHost final : public EventHandler {
 public:
  RecordingHost() { id = loop.add_handler("test sender", *this); }
  void handle(const Event& event) override {
    ASSERT_EQ(event.kind, MessageArrived::kKind);
    arrivals.push_back({event.get<MessageArrived>().message, loop.now()});
  }
  void run(NetworkBackend& /*net*/) { loop.run(); }
  EventLoop loop;
  HandlerId id = 0;
  std::vector<std::pair<MessageId, TimeNs>> arrivals;
};

NetworkConfig config(const char* yaml) { return parse_network_config(yaml, "test"); }

TEST(UnawareNetwork, HopsTimesLatencyPlusSerialization) {
  RecordingHost host;
  UnawareNetwork net(config("topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n"), host.loop);
  // 50 GB/s = 50 * 2^30 / 1e9 = 53.687 B/ns; 32768 B -> 610.35 ns.
  EXPECT_EQ(net.delay_ns(0, 1, 32768), 1110u);       // 500 + 610.35
  EXPECT_EQ(net.delay_ns(0, 4, 32768), 2610u);       // 4 hops: 2000 + 610.35
  EXPECT_EQ(net.delay_ns(0, 7, 32768), 1110u);       // one hop anticlockwise
}

// Switch 2 x Switch 2: NPU 1 = (1, 0), NPU 2 = (0, 1), NPU 3 = (1, 1).
constexpr const char* kTwoSwitches =
    "topology: [Switch, Switch]\nnpus_count: [2, 2]\nbandwidth: [450, 50]\nlatency: [500, 2000]\n";

NetworkConfig unaware_config(const std::string& yaml) {
  return parse_backend_config(find_network_backend("analytical-congestion-unaware"), yaml, "test");
}

TEST(UnawareNetwork, NpusApartInTwoDimensionsPayTheFirstOnlyAsAstraSim) {
  RecordingHost host;
  UnawareNetwork net(unaware_config(kTwoSwitches), host.loop);
  // 2 MiB: dimension 0 at 450 GB/s (483.18 B/ns) 2 hops x 500 + 4340.3 ->
  // 5340; dimension 1 at 50 GB/s (53.687 B/ns) 2 x 2000 + 39062.5 -> 43062.
  EXPECT_EQ(net.delay_ns(0, 1, 2097152), 5340u);
  EXPECT_EQ(net.delay_ns(0, 2, 2097152), 43062u);
  EXPECT_EQ(net.delay_ns(1, 2, 2097152), 5340u);  // apart in both: the first only
  EXPECT_EQ(net.delay_ns(0, 3, 2097152), 5340u);
  net.send(0, 1, 2, 2097152, host.id);
  net.send(1, 0, 1, 2097152, host.id);
  host.run(net);
  const auto notes = net.notes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("1 of 2 messages went between NPUs apart in more than one network dimension"),
            std::string::npos)
      << notes[0];
}

TEST(UnawareNetwork, EveryDimensionChargesEachDimensionCrossed) {
  RecordingHost host;
  UnawareNetwork net(unaware_config(std::string(kTwoSwitches) + "multi-dim-delay: every-dimension\n"), host.loop);
  EXPECT_EQ(net.delay_ns(1, 2, 2097152), 5340u + 43062u);
  EXPECT_EQ(net.delay_ns(0, 1, 2097152), 5340u);
  net.send(0, 1, 2, 2097152, host.id);
  host.run(net);
  EXPECT_TRUE(net.notes().empty());
}

TEST(UnawareNetwork, MultiDimDelayTakesOneOfItsTwoValues) {
  for (const char* bad : {"multi-dim-delay: sum\n", "multi-dim-delay: [every-dimension]\n"}) {
    try {
      (void)unaware_config(std::string(kTwoSwitches) + bad);
      FAIL() << "no error for " << bad;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("multi-dim-delay (line 5) must be first-dimension"), std::string::npos) << what;
    }
  }
}

// ASTRA-sim's links are freed by an event, even after 0 ns of
// serialization, and a message that found the link busy starts when that
// event runs, after what was already queued for that time. Ring of 4 at 10
// ns and 0 ns serialization: B (0 -> 2, via 1) waits behind A (0 -> 1) on
// link 0 -> 1 and starts only after C (3 -> 2) was sent, so its first hop
// ends after C's arrival at 10, where the host sends D (1 -> 2) on link
// 1 -> 2: D goes first there, B waits for D's link-free event, and both
// reach NPU 2 at 20, D before B. Booking B at send time put B first.
TEST(AwareNetwork, AMessageThatFindsTheLinkBusyStartsAtItsLinkFreeEvent) {
  class ReplyingHost final : public EventHandler {
   public:
    ReplyingHost() { id = loop.add_handler("test sender", *this); }
    void handle(const Event& event) override {
      const MessageId message = event.get<MessageArrived>().message;
      arrivals.push_back({message, loop.now()});
      if (message == 3) net->send(4, 1, 2, 64, id);  // D
    }
    EventLoop loop;
    HandlerId id = 0;
    NetworkBackend* net = nullptr;
    std::vector<std::pair<MessageId, TimeNs>> arrivals;
  };
  ReplyingHost host;
  AwareNetwork net(config("topology: [Ring]\nnpus_count: [4]\nbandwidth: [400]\nlatency: [10]\n"), host.loop);
  host.net = &net;
  net.send(1, 0, 1, 64, host.id);  // A
  net.send(2, 0, 2, 64, host.id);  // B: two hops clockwise, waits behind A
  net.send(3, 3, 2, 64, host.id);  // C: one hop anticlockwise
  host.loop.run();
  const std::vector<std::pair<MessageId, TimeNs>> expected{{1, 10}, {3, 10}, {4, 20}, {2, 20}};
  EXPECT_EQ(host.arrivals, expected);
}

TEST(AwareNetwork, SecondMessageQueuesBehindFirst) {
  RecordingHost host;
  AwareNetwork net(config("topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n"), host.loop);
  net.send(0, 0, 1, 65536, host.id);
  net.send(1, 0, 1, 65536, host.id);
  host.run(net);
  ASSERT_EQ(host.arrivals.size(), 2u);
  // serialization 65536 / 53.687 = 1220.7 -> 1220; hop = (int)(500 + 1220.7) = 1720.
  EXPECT_EQ(host.arrivals[0].second, 1720u);
  EXPECT_EQ(host.arrivals[1].second, 1220u + 1720u);
}

TEST(AwareNetwork, OneDimensionalRingTakesTheShorterWayHopByHop) {
  RecordingHost host;
  AwareNetwork net(config("topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n"), host.loop);
  net.send(0, 0, 3, 32768, host.id);  // clockwise, 3 hops
  net.send(1, 0, 6, 32768, host.id);  // anticlockwise, 2 hops: 0 -> 7 -> 6
  net.send(2, 4, 0, 32768, host.id);  // tie (4 each way): clockwise 4 -> 5 -> 6 -> 7 -> 0
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
  AwareNetwork net(config("topology: [Switch]\nnpus_count: [8]\nbandwidth: [400]\nlatency: [936.25]\n"), host.loop);
  net.send(0, 0, 1, 32768, host.id);
  host.run(net);
  ASSERT_EQ(host.arrivals.size(), 1u);
  // per link: (int)(936.25 + 32768 / 429.497) = (int)1012.54 = 1012; two links.
  EXPECT_EQ(host.arrivals[0].second, 2024u);
  EXPECT_EQ(net.link_stats().size(), 2u);
}

TEST(AwareNetwork, MultiDimensionalRoutesDimensionZeroFirst) {
  RecordingHost host;
  AwareNetwork net(config("topology: [Ring, Ring]\nnpus_count: [2, 2]\nbandwidth: [50, 50]\nlatency: [100, 200]\n"),
                   host.loop);
  net.send(0, 0, 3, 2048, host.id);  // NPU 0 = (0,0) -> NPU 3 = (1,1): via NPU 1
  net.send(1, 2, 3, 2048, host.id);  // NPU 2 = (0,1) -> NPU 3: dimension 0 only, a different link
  host.run(net);
  ASSERT_EQ(host.arrivals.size(), 2u);
  // 2048 B / 53.687 B/ns = 38.15 ns. Message 1: (int)(100 + 38.15) = 138.
  // Message 0: 138 to NPU 1, then (int)(200 + 38.15) = 238 to NPU 3: 376.
  EXPECT_EQ(host.arrivals[0], (std::pair<MessageId, TimeNs>{1, 138}));
  EXPECT_EQ(host.arrivals[1], (std::pair<MessageId, TimeNs>{0, 376}));
}

TEST(AwareNetwork, SelfSendIsDeliveredAtOnce) {
  RecordingHost host;
  AwareNetwork net(config("topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n"), host.loop);
  net.send(7, 2, 2, 100, host.id);
  ASSERT_EQ(host.arrivals.size(), 1u);
  EXPECT_EQ(host.arrivals[0], (std::pair<MessageId, TimeNs>{7, 0}));
}

TEST(NetworkRegistry, BackendsAreFoundByTheirAstraSimNames) {
  EXPECT_EQ(find_network_backend("analytical-congestion-aware").name, "analytical-congestion-aware");
  EXPECT_EQ(find_network_backend("analytical-congestion-unaware").name, "analytical-congestion-unaware");
  RecordingHost host;
  const auto net = find_network_backend("analytical-congestion-unaware")
                       .create(config("topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n"),
                               host.loop);
  net->send(3, 0, 4, 32768, host.id);
  host.run(*net);
  EXPECT_EQ(host.arrivals.at(0).second, 2610u);  // as UnawareNetwork above
}

TEST(NetworkRegistry, UnknownNameListsTheRegisteredBackends) {
  try {
    (void)find_network_backend("garnet");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown network backend 'garnet'"), std::string::npos) << what;
    EXPECT_NE(what.find("analytical-congestion-aware, analytical-congestion-unaware"), std::string::npos) << what;
  }
}

// The error parse_backend_config raises for TEXT, or "" when it parses.
std::string backend_config_error(const NetworkBackendSpec& spec, std::string_view text, std::string_view source) {
  try {
    (void)parse_backend_config(spec, text, source);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NetworkRegistry, ABackendsOwnKeysAreCheckedAndOthersNamed) {
  const NetworkBackendSpec& spec = find_network_backend("analytical-congestion-aware");
  const auto ok = parse_backend_config(spec, "topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [5]\n", "t");
  EXPECT_EQ(ok.npus_count(), 4u);
  const std::string what = backend_config_error(
      spec, "topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [5]\nrouting: xy\n", "net.yml");
  EXPECT_NE(what.find("unknown key 'routing' (line 5) for network backend 'analytical-congestion-aware' "
                      "(its keys: topology, npus_count, bandwidth, latency)"),
            std::string::npos)
      << what;
  // A misspelt key (ASTRA-sim ignores one) names the key meant.
  const std::string typo =
      backend_config_error(spec, "topology: [Ring]\nnpu_count: [4]\nbandwidth: [50]\nlatency: [5]\n", "net.yml");
  EXPECT_NE(typo.find("unknown key 'npu_count' (line 2)"), std::string::npos) << typo;
  EXPECT_NE(typo.find("; did you mean 'npus_count'?"), std::string::npos) << typo;
  EXPECT_EQ(what.find("did you mean"), std::string::npos) << what;  // 'routing' is near no key
}

TEST(NetworkRegistry, AstraSim1NetworkJsonIsNamed) {
  const NetworkBackendSpec& spec = find_network_backend("analytical-congestion-aware");
  const std::string what = backend_config_error(spec, R"({"dimensions-count": 1, "topologies-per-dim": ["Ring"],
      "units-count": [8], "links-count": [2], "link-latency": [500], "link-bandwidth": [50]})", "ring.json");
  EXPECT_NE(what.find("network configuration ring.json: 'dimensions-count' (line 1) is a key of the older ASTRA-sim "
                      "(1.0, early 2.0) network format"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("npus_count: [...] (units-count)"), std::string::npos) << what;
}

TEST(NetworkRegistry, AnHtsimTopologyIsNamed) {
  const std::string what = backend_config_error(find_network_backend("analytical-congestion-aware"),
                                                "Nodes 4\nTiers 2\nPodsize 2\n\nTier 0\nRadix_Down 2\n", "ft.topo");
  EXPECT_NE(what.find("network configuration ft.topo: this is a topology file of ASTRA-sim's htsim backend"),
            std::string::npos)
      << what;
}

TEST(NetworkRegistry, ANewBackendIsUsableByNameAndNamesAreUnique) {
  // A toy backend: every message takes a fixed time.
  class FixedDelay final : public NetworkBackend {
   public:
    FixedDelay(EventLoop& loop, TimeNs delay_ns) : loop_(loop), delay_ns_(delay_ns) {}
    void send(MessageId message, NpuId, NpuId, uint64_t, HandlerId deliver_to) override {
      loop_.schedule(loop_.now() + delay_ns_, deliver_to, MessageArrived{message});
    }
    [[nodiscard]] std::vector<LinkStats> link_stats() const override { return {}; }
    [[nodiscard]] std::string name() const override { return "test-fixed-delay"; }

   private:
    EventLoop& loop_;
    TimeNs delay_ns_;
  };
  NetworkBackendSpec spec;
  spec.name = "test-fixed-delay";
  spec.summary = "every message takes 77 ns";
  spec.config_keys = {"topology", "npus_count", "bandwidth", "latency"};
  spec.parse_config = [](std::string_view text, std::string_view source) { return parse_network_config(text, source); };
  spec.create = [](const NetworkConfig&, EventLoop& loop) -> std::unique_ptr<NetworkBackend> {
    return std::make_unique<FixedDelay>(loop, 77);
  };
  const auto names = network_backend_names();
  if (std::find(names.begin(), names.end(), "test-fixed-delay") == names.end()) register_network_backend(spec);
  EXPECT_THROW(register_network_backend(spec), Error);  // taken
  RecordingHost host;
  const auto net = find_network_backend("test-fixed-delay").create(NetworkConfig{}, host.loop);
  net->send(1, 0, 1, 10, host.id);
  host.run(*net);
  EXPECT_EQ(host.arrivals.at(0).second, 77u);
}

}  // namespace
}  // namespace snr::dsim
