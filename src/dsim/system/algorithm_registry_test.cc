// The collective-algorithm registry: names as ASTRA-sim configurations
// write them, errors that list what is registered, keys owned by an
// algorithm, and a new algorithm plugged in by name without touching the
// engine.
#include "dsim/system/algorithm_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/error.h"
#include "dsim/simulator.h"

namespace snr::dsim {
namespace {

std::string error_of(const auto& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CollectiveRegistry, AstraSimNamesResolve) {
  struct Case {
    const char* text;
    const char* algorithm;
    bool flattened;
    int parameter;
  };
  for (const Case& c : {Case{"ring", "ring", false, -1}, Case{"Ring", "ring", false, -1},
                        Case{"oneRing", "ring", true, -1}, Case{"direct", "direct", false, -1},
                        Case{"direct8", "direct", false, 8}, Case{"oneDirect4", "direct", true, 4},
                        Case{"halvingDoubling", "halvingDoubling", false, -1},
                        Case{"HalvingDoubling", "halvingDoubling", false, -1},
                        Case{"oneHalvingDoubling", "halvingDoubling", true, -1},
                        Case{"doubleBinaryTree", "doubleBinaryTree", false, -1}}) {
    const CollectiveImplementation impl = resolve_collective_implementation(c.text);
    EXPECT_EQ(impl.algorithm->name, c.algorithm) << c.text;
    EXPECT_EQ(impl.flattened, c.flattened) << c.text;
    EXPECT_EQ(impl.parameter, c.parameter) << c.text;
  }
}

TEST(CollectiveRegistry, UnknownNameListsTheRegisteredOnes) {
  const std::string what = error_of([] { (void)resolve_collective_implementation("rnig"); });
  EXPECT_NE(what.find("unknown collective implementation 'rnig' (registered: ring, direct[N], halvingDoubling, "
                      "doubleBinaryTree"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("as one* variants: ring, direct, halvingDoubling"), std::string::npos) << what;
  // No flattened tree, and the custom algorithm is chosen by its own key only.
  EXPECT_THROW((void)resolve_collective_implementation("oneDoubleBinaryTree"), Error);
  EXPECT_THROW((void)resolve_collective_implementation("custom"), Error);
  EXPECT_NE(error_of([] { (void)resolve_collective_implementation("direct0"); }).find("must be positive"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)resolve_collective_implementation("directX"); }).find("positive integer"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)find_collective_algorithm("tree"); }).find("registered: ring"), std::string::npos);
}

TEST(CollectiveRegistry, AlgorithmKeysAreRoutedToTheirOwner) {
  const CollectiveAlgorithmSpec* owner = find_algorithm_owning_key("all-reduce-implementation-custom");
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->name, "custom");
  EXPECT_EQ(find_algorithm_owning_key("all-reduce-implementation"), nullptr);  // the system layer's own key
  // The owner validates its value; errors name the key and the algorithm.
  const std::string what = error_of([] {
    (void)parse_system_config(R"({"all-reduce-implementation-custom": "not-a-list"})", "sys.json");
  });
  EXPECT_NE(what.find("key 'all-reduce-implementation-custom' (collective algorithm 'custom')"), std::string::npos)
      << what;
  EXPECT_NE(what.find("must be a list with one trace prefix"), std::string::npos) << what;
  EXPECT_NE(error_of([] { (void)parse_system_config(R"({"all-reduce-implementation-bogus": 1})", "s"); })
                .find("unknown key 'all-reduce-implementation-bogus'"),
            std::string::npos);
}

TEST(CollectiveRegistry, ImplementedCollectivesAreChecked) {
  EXPECT_TRUE(find_collective_algorithm("ring").implements_kind(CollectiveKind::kAllToAll));
  EXPECT_FALSE(find_collective_algorithm("halvingDoubling").implements_kind(CollectiveKind::kAllToAll));
  EXPECT_FALSE(find_collective_algorithm("doubleBinaryTree").implements_kind(CollectiveKind::kAllGather));
}

// A new algorithm outside the engine: each NPU passes its chunk once to the
// next NPU of the phase and reduces what it receives from the previous one.
class ShiftOnce final : public CollectivePhase {
 public:
  explicit ShiftOnce(const PhasePlan& plan) : plan_(plan) {}
  void start(uint32_t stream, PhaseActions& actions) override {
    actions.process_packet(stream, false, plan_.input_bytes);
  }
  void on_packet_ready(uint32_t stream, PhaseActions& actions) override {
    if (!sent_) {
      sent_ = true;
      const uint32_t n = plan_.ring.size;
      const uint32_t pos = plan_.ring.my_position;
      actions.send_and_post_recv(stream, plan_.ring.member((pos + 1) % n), plan_.ring.member((pos + n - 1) % n),
                                 plan_.input_bytes);
      return;
    }
    actions.phase_finished(stream);  // replaces this phase: touch nothing after
  }
  void on_packet_received(uint32_t stream, PhaseActions& actions) override {
    actions.process_packet(stream, true, plan_.input_bytes);
  }
  void on_step_done(uint32_t, uint32_t, PhaseActions&) override { throw Error("ShiftOnce has no steps"); }

 private:
  PhasePlan plan_;
  bool sent_ = false;
};

void register_shift_once() {
  const auto names = collective_algorithm_names();
  if (std::find(names.begin(), names.end(), "testShiftOnce") != names.end()) return;  // --gtest_repeat
  CollectiveAlgorithmSpec spec;
  spec.name = "testShiftOnce";
  spec.summary = "pass the chunk to the next NPU once";
  spec.implements = {CollectiveKind::kAllReduce};
  spec.create = [](const PhaseContext& context) -> Phase { return std::make_unique<ShiftOnce>(context.plan); };
  register_collective_algorithm(spec);
  EXPECT_THROW(register_collective_algorithm(spec), Error);  // the name is taken
}

TEST(CollectiveRegistry, ANewAlgorithmRunsByNameThroughTheEngine) {
  register_shift_once();
  // FullyConnected 4 NPUs, 50 GB/s (53.687 B/ns), 100 ns, endpoint 10 ns,
  // local-mem-bw 1000 B/ns, one 4096 B chunk: endpoint until 10, the message
  // takes floor(100 + 4096 / 53.687) = 176 ns (arrives 186), endpoint until
  // 196, reduction 3 * floor(4096 / 1000) = 12 ns: done at 208.
  const SystemConfig system = parse_system_config(
      R"({"endpoint-delay": 10, "local-mem-bw": 1000, "all-reduce-implementation": ["testShiftOnce"]})", "t");
  const NetworkConfig network =
      parse_network_config("topology: [FullyConnected]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [100]\n", "t");
  RankGraph graph;
  WorkNode node;
  node.node_class = NodeClass::kGpuComm;
  node.action = NodeAction::kCollective;
  node.collective = CollectiveKind::kAllReduce;
  node.comm_bytes = 4096;
  graph.nodes.push_back(node);
  for (const std::string_view backend : {"analytical-congestion-aware", "analytical-congestion-unaware"}) {
    const auto result = simulate(system, network, {}, std::vector<RankGraph>(4, graph), backend, false);
    for (const auto& npu : result.npus) EXPECT_EQ(npu.finish_ns, 208u) << backend;
    EXPECT_EQ(result.messages_sent, 4u);
  }
  // Asked for a collective it does not implement: an error naming both.
  const SystemConfig gather = parse_system_config(R"({"all-gather-implementation": ["testShiftOnce"]})", "t");
  node.collective = CollectiveKind::kAllGather;
  graph.nodes[0] = node;
  const std::string what = error_of([&] {
    (void)simulate(gather, network, {}, std::vector<RankGraph>(4, graph), "analytical-congestion-aware", false);
  });
  EXPECT_NE(what.find("all_gather: testShiftOnce does not implement all-gather (it implements all-reduce)"),
            std::string::npos)
      << what;
}

}  // namespace
}  // namespace snr::dsim
