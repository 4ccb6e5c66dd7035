// The NoC-level fabric backend against hand-computed times. Links are
// 100 Gb/s (12.5 bytes per ns) with 200 ns of latency unless a test says
// otherwise, and segments 1,250 bytes, so a segment takes 100 ns on a link
// and a hop costs 300 ns from the first bit sent to the last one received.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common/error.h"
#include "common/error_of.h"
#include "dsim/network/noc/fabric_network.h"

namespace snr::dsim {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

class Host final : public EventHandler {
 public:
  explicit Host(const std::string& yaml) : config(parse_noc_fabric(yaml, "test.yaml")) {
    id = loop.add_handler("test host", *this);
    net = make_noc_fabric_network(config, loop);
  }
  void handle(const Event& event) override {
    ASSERT_EQ(event.kind, MessageArrived::kKind);
    arrivals[event.get<MessageArrived>().message] = loop.now();
  }
  NocFabricConfig config;
  EventLoop loop;
  HandlerId id = 0;
  std::unique_ptr<NetworkBackend> net;
  std::map<MessageId, TimeNs> arrivals;
};

std::string link(const std::string& from, const std::string& to, const std::string& extra = "") {
  return "  - {from: " + from + ", to: " + to + ", bandwidth_gbps: 100, latency_ns: 200" + extra + "}\n";
}

// a - b directly.
std::string one_hop(const std::string& settings = "segment_bytes: 1250\n") {
  return "npus: [a, b]\nlinks:\n" + link("a", "b") + settings;
}

// a - s1 - s2 - b.
std::string three_hops(uint64_t segment_bytes) {
  return "npus: [a, b]\nswitches: [s1, s2]\nlinks:\n" + link("a", "s1") + link("s1", "s2") + link("s2", "b") +
         "segment_bytes: " + std::to_string(segment_bytes) + "\n";
}

TEST(NocFabricNetwork, OneMessageOverOneHop) {
  Host host(one_hop());
  host.net->flow_log()->keep_records(true);
  // 12,500 bytes: 10 segments back to back (1,000 ns), the last one 200 ns
  // on the wire after it left.
  host.net->send(3, 0, 1, 12500, host.id);
  host.loop.run();
  EXPECT_EQ(host.arrivals.at(3), 1200u);
  const auto flows = host.net->flow_log()->take_records();
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].start_ns, 0u);
  EXPECT_EQ(flows[0].end_ns, 1200u);
  EXPECT_EQ(flows[0].bytes, 12500u);
  const auto links = host.net->link_stats();
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].name, "a->b");
  EXPECT_EQ(links[0].bytes, 12500u);
  EXPECT_EQ(links[0].messages, 10u);  // segments
  EXPECT_EQ(links[0].busy_ns, 1000u);
  EXPECT_EQ(host.net->packet_stats()->packets_sent, 10u);
}

// Finished messages leave only their totals behind unless records are
// asked for; a reused slot does not change a message's ECMP path (the key
// is its number in send order), so the run is the same either way.
TEST(NocFabricNetwork, FinishedMessagesKeepOnlyTotalsUnlessRecordsAreAsked) {
  // a and b joined by two equal switches: ECMP picks one per message.
  const std::string two_paths = "npus: [a, b]\nswitches: [s1, s2]\nlinks:\n" + link("a", "s1") + link("s1", "b") +
                                link("a", "s2") + link("s2", "b") + "segment_bytes: 1250\n";
  const auto run = [&](bool keep, std::vector<LinkStats>& links) {
    Host host(two_paths);
    host.net->flow_log()->keep_records(keep);
    // One message at a time, each sent when the one before arrived (every
    // message after the first reuses the first one's slot).
    for (MessageId m = 0; m < 16; ++m) {
      host.net->send(m, m % 2, 1 - m % 2, 2500 + 1250 * (m % 3), host.id);
      host.loop.run();
    }
    links = host.net->link_stats();
    return std::make_pair(host.net->flow_log()->totals(), host.net->flow_log()->take_records());
  };
  std::vector<LinkStats> links_kept, links_not_kept;
  const auto [totals, records] = run(true, links_kept);
  const auto [totals_not_kept, no_records] = run(false, links_not_kept);
  EXPECT_TRUE(no_records.empty());
  ASSERT_EQ(records.size(), 16u);
  EXPECT_EQ(totals.count, 16u);
  EXPECT_EQ(totals_not_kept.count, 16u);
  TimeNs min_ns = UINT64_MAX, max_ns = 0, sum_ns = 0;
  for (size_t m = 0; m < records.size(); ++m) {
    EXPECT_EQ(records[m].message, m);
    min_ns = std::min(min_ns, records[m].completion_ns());
    max_ns = std::max(max_ns, records[m].completion_ns());
    sum_ns += records[m].completion_ns();
  }
  EXPECT_EQ(totals.min_fct_ns, min_ns);
  EXPECT_EQ(totals.max_fct_ns, max_ns);
  EXPECT_DOUBLE_EQ(totals.mean_fct_ns, static_cast<double>(sum_ns) / 16);
  EXPECT_EQ(totals_not_kept.mean_fct_ns, totals.mean_fct_ns);
  // Both switches carried traffic (the messages spread), equally in both runs.
  ASSERT_EQ(links_kept.size(), links_not_kept.size());
  EXPECT_EQ(links_kept.size(), 8u);
  for (size_t l = 0; l < links_kept.size(); ++l) {
    EXPECT_EQ(links_kept[l].name, links_not_kept[l].name);
    EXPECT_EQ(links_kept[l].bytes, links_not_kept[l].bytes);
  }
}

TEST(NocFabricNetwork, OneSegmentOverThreeHopsIsStoredAndForwardedAtEach) {
  Host host(three_hops(1250));
  host.net->send(0, 0, 1, 1250, host.id);
  host.loop.run();
  EXPECT_EQ(host.arrivals.at(0), 900u);  // 3 x (100 + 200)
}

TEST(NocFabricNetwork, SegmentsPipelineAcrossHops) {
  // The first of 10 segments reaches b after 3 x 300 ns; the other nine
  // follow it 100 ns apart: 900 + 900.
  Host pipelined(three_hops(1250));
  pipelined.net->send(0, 0, 1, 12500, pipelined.id);
  pipelined.loop.run();
  EXPECT_EQ(pipelined.arrivals.at(0), 1800u);
  // One segment of the whole message: each hop waits for all of it,
  // 3 x (1,000 + 200), as the analytical congestion-aware backend charges.
  Host whole(three_hops(12500));
  whole.net->send(0, 0, 1, 12500, whole.id);
  whole.loop.run();
  EXPECT_EQ(whole.arrivals.at(0), 3600u);
}

// a and c reach b through switch s.
std::string shared_link() {
  return "npus: [a, b, c]\nswitches: [s]\nlinks:\n" + link("a", "s") + link("c", "s") + link("s", "b") +
         "segment_bytes: 1250\n";
}

TEST(NocFabricNetwork, TwoMessagesContendOnASharedLink) {
  // a and c each send 10 segments to b through switch s at 0 ns. Both reach
  // s at 300, 400, ..., 1,200 ns; the link s -> b takes them in arrival
  // order, a's first on ties (sent first), so it is busy from 300 to 2,300
  // ns with a0 c0 a1 c1 ... a9 c9: a9 leaves at 2,200 and lands at 2,400,
  // c9 at 2,500. Alone, each would take 1,500 (2 x 300 + 9 x 100).
  Host host(shared_link());
  host.net->send(1, 0, 1, 12500, host.id);
  host.net->send(2, 2, 1, 12500, host.id);
  host.loop.run();
  EXPECT_EQ(host.arrivals.at(1), 2400u);
  EXPECT_EQ(host.arrivals.at(2), 2500u);
  const auto packets = host.net->packet_stats();
  // c9 reaches s at 1,200 ns with the link booked until 2,200: 1,000 ns or
  // 12,500 bytes ahead of it.
  EXPECT_EQ(packets->max_queue_bytes, 12500u);
  EXPECT_EQ(packets->max_queue_port, "s->b");
  EXPECT_EQ(packets->packets_dropped, 0u);
  for (const LinkStats& stats : host.net->link_stats()) {
    if (stats.name == "s->b") {
      EXPECT_EQ(stats.bytes, 25000u);
      EXPECT_EQ(stats.busy_ns, 2000u);
    }
  }
  // Alone, for reference.
  Host alone(shared_link());
  alone.net->send(1, 0, 1, 12500, alone.id);
  alone.loop.run();
  EXPECT_EQ(alone.arrivals.at(1), 1500u);
}

TEST(NocFabricNetwork, MessagesLeavingByOneLinkGoOneAfterTheOther) {
  Host host(one_hop());
  host.net->send(1, 0, 1, 12500, host.id);
  host.net->send(2, 0, 1, 12500, host.id);
  host.loop.run();
  EXPECT_EQ(host.arrivals.at(1), 1200u);
  EXPECT_EQ(host.arrivals.at(2), 2200u);
}

TEST(NocFabricNetwork, TimesKeepPicoseconds) {
  // 1,024-byte segments take 81.92 ns at 100 Gb/s. Ten of them over two
  // hops without latency: 11 x 81.92 = 901.12 ns, reported as 902 (whole ns
  // per segment would give 11 x 81 = 891).
  Host host("npus: [a, b]\nswitches: [s]\nlinks:\n"
            "  - {from: a, to: s, bandwidth_gbps: 100, latency_ns: 0}\n"
            "  - {from: s, to: b, bandwidth_gbps: 100, latency_ns: 0}\n"
            "segment_bytes: 1024\n");
  host.net->send(0, 0, 1, 10240, host.id);
  host.loop.run();
  EXPECT_EQ(host.arrivals.at(0), 902u);
}

TEST(NocFabricNetwork, HeadersCostWireTimeAndEmptyMessagesTakeTheLatency) {
  // 125 header bytes make each 1,250-byte segment 110 ns on the wire.
  Host host(one_hop("segment_bytes: 1250\nsegment_header_bytes: 125\n"));
  host.net->send(1, 0, 1, 12500, host.id);
  host.loop.run();
  EXPECT_EQ(host.arrivals.at(1), 1300u);
  EXPECT_EQ(host.net->link_stats()[0].bytes, 12500u + 10u * 125u);
  Host empty(one_hop());
  empty.net->send(1, 0, 1, 0, empty.id);  // one header-only segment: latency alone
  empty.net->send(2, 1, 1, 99, empty.id);  // to itself: at once
  empty.loop.run();
  EXPECT_EQ(empty.arrivals.at(1), 200u);
  EXPECT_EQ(empty.arrivals.at(2), 0u);
}

TEST(NocFabricNetwork, OneWayLinksRouteTheOtherWayRound) {
  // a -> b is direct; b -> a goes round through s (2 hops).
  Host host("npus: [a, b]\nswitches: [s]\nlinks:\n" + link("a", "b", ", bidirectional: false") + link("b", "s") +
            link("s", "a") + "segment_bytes: 1250\n");
  host.net->send(1, 0, 1, 1250, host.id);
  host.net->send(2, 1, 0, 1250, host.id);
  host.loop.run();
  EXPECT_EQ(host.arrivals.at(1), 300u);
  EXPECT_EQ(host.arrivals.at(2), 600u);
}

TEST(NocFabricNetwork, RefusesAnNpuOutsideTheNetwork) {
  Host host(one_hop());
  EXPECT_THAT(error_of([&] { host.net->send(0, 0, 5, 10, host.id); }),
              HasSubstr("a message from NPU 0 to NPU 5 in a network of 2 NPUs"));
}

}  // namespace
}  // namespace snr::dsim
