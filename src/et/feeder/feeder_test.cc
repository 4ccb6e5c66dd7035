#include "et/feeder/feeder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "common/error.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/test_traces.h"

namespace snr::et {
namespace {

using ChakraProtoMsg::Node;
using chakra::testing::make_node;

// Issues everything ready, completes in issue order, and returns the order.
std::vector<uint64_t> run_to_completion(TraceFeeder& feeder) {
  std::vector<uint64_t> order;
  while (feeder.has_pending()) {
    std::vector<uint64_t> issued;
    while (const Node* node = feeder.next_issuable()) issued.push_back(node->id());
    if (issued.empty()) ADD_FAILURE() << "pending but nothing issuable and nothing in flight";
    for (uint64_t id : issued) {
      order.push_back(id);
      feeder.push_completed(id);
    }
  }
  return order;
}

std::string error_of(std::vector<Node> nodes, FeederOptions options = {}) {
  try {
    TraceFeeder feeder(std::move(nodes), options);
    run_to_completion(feeder);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(TraceFeeder, IssuesReadyNodesInAscendingIdOrder) {
  std::vector<Node> nodes = {make_node(5, "e", ChakraProtoMsg::COMP_NODE),
                             make_node(1, "a", ChakraProtoMsg::COMP_NODE),
                             make_node(3, "c", ChakraProtoMsg::COMP_NODE, {1}),
                             make_node(2, "b", ChakraProtoMsg::COMP_NODE, {}, {5})};
  TraceFeeder feeder(nodes);
  std::vector<uint64_t> first;
  while (const Node* node = feeder.next_issuable()) first.push_back(node->id());
  EXPECT_EQ(first, (std::vector<uint64_t>{1, 5}));
  EXPECT_EQ(feeder.issued_count(), 2u);
  feeder.push_completed(5);
  const Node* next = feeder.next_issuable();
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->id(), 2u);
  EXPECT_EQ(feeder.next_issuable(), nullptr);
  feeder.push_completed(1);
  feeder.push_completed(2);
  next = feeder.next_issuable();
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->id(), 3u);
  feeder.push_completed(3);
  EXPECT_FALSE(feeder.has_pending());
  EXPECT_EQ(feeder.stats().nodes_completed, 4u);
}

TEST(TraceFeeder, DependencyOnANodeLaterInTheFileWaitsForIt) {
  std::vector<Node> nodes = {make_node(0, "late_user", ChakraProtoMsg::COMP_NODE, {9}),
                             make_node(1, "x", ChakraProtoMsg::COMP_NODE),
                             make_node(9, "producer", ChakraProtoMsg::COMP_NODE)};
  FeederOptions options;
  options.window_nodes = 1;
  TraceFeeder feeder(nodes, options);
  EXPECT_EQ(run_to_completion(feeder), (std::vector<uint64_t>{1, 9, 0}));
}

TEST(TraceFeeder, WindowBoundsNodesHeldInMemory) {
  std::vector<Node> nodes;
  for (uint64_t i = 0; i < 10000; ++i) nodes.push_back(chakra::testing::synthetic_node(i));
  FeederOptions options;
  options.window_nodes = 64;
  TraceFeeder feeder(nodes, options);
  auto order = run_to_completion(feeder);
  ASSERT_EQ(order.size(), 10000u);
  for (uint64_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], i);
  EXPECT_LE(feeder.stats().peak_window_nodes, 64u);
}

TEST(TraceFeeder, LookupFindsUnfinishedNodes) {
  TraceFeeder feeder(chakra::testing::sample_nodes());
  ASSERT_TRUE(feeder.has_pending());
  ASSERT_NE(feeder.lookup(5), nullptr);
  EXPECT_EQ(feeder.lookup(5)->name(), "optimizer_step");
  EXPECT_EQ(feeder.lookup(77), nullptr);
}

TEST(TraceFeeder, SampleTraceHonoursDataAndControlDependencies) {
  TraceFeeder feeder(chakra::testing::sample_nodes());
  EXPECT_EQ(run_to_completion(feeder), (std::vector<uint64_t>{0, 4, 1, 2, 3, 5}));
}

TEST(TraceFeeder, CycleIsNamed) {
  std::vector<Node> nodes = {make_node(1, "a", ChakraProtoMsg::COMP_NODE, {3}),
                             make_node(2, "b", ChakraProtoMsg::COMP_NODE, {1}),
                             make_node(3, "c", ChakraProtoMsg::COMP_NODE, {}, {2}),
                             make_node(4, "free", ChakraProtoMsg::COMP_NODE)};
  EXPECT_EQ(error_of(nodes), "memory: dependency cycle, 3 node(s) can never issue: node 1 (a) -> node 3 (c) -> "
                             "node 2 (b) -> node 1 (a) (each waits on the next)");
}

TEST(TraceFeeder, DanglingDependencyIsNamedOrIgnoredOnRequest) {
  std::vector<Node> nodes = {make_node(1, "a", ChakraProtoMsg::COMP_NODE, {99}),
                             make_node(2, "b", ChakraProtoMsg::COMP_NODE, {1})};
  EXPECT_EQ(error_of(nodes), "memory: 1 dangling dependency on ids not in the trace; node 1 (a) depends on node 99");
  FeederOptions options;
  options.ignore_dangling_dependencies = true;
  TraceFeeder feeder(nodes, options);
  EXPECT_EQ(run_to_completion(feeder), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(feeder.stats().dangling_dependencies_ignored, 1u);
}

TEST(TraceFeeder, SelfAndDuplicateIdsAreErrors) {
  EXPECT_EQ(error_of({make_node(7, "loop", ChakraProtoMsg::COMP_NODE, {7})}),
            "memory: node 7 (loop) depends on itself");
  EXPECT_EQ(error_of({make_node(7, "x", ChakraProtoMsg::COMP_NODE), make_node(7, "y", ChakraProtoMsg::COMP_NODE)}),
            "memory: duplicate node id 7: node 7 (y) reuses it");
}

TEST(TraceFeeder, DuplicateDependenciesCountOnce) {
  std::vector<Node> nodes = {make_node(1, "a", ChakraProtoMsg::COMP_NODE),
                             make_node(2, "b", ChakraProtoMsg::COMP_NODE, {1, 1}, {1})};
  TraceFeeder feeder(nodes);
  EXPECT_EQ(run_to_completion(feeder), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(feeder.stats().duplicate_dependencies, 2u);
}

TEST(TraceFeeder, CompletingANodeThatWasNotIssuedIsAnError) {
  TraceFeeder feeder(chakra::testing::sample_nodes());
  ASSERT_TRUE(feeder.has_pending());
  EXPECT_THROW(feeder.push_completed(5), Error);
  EXPECT_THROW(feeder.push_completed(1234), Error);
}

TEST(TraceFeeder, StreamsFromAnEtFile) {
  auto dir = std::filesystem::temp_directory_path() / ("snr_feeder_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    chakra::EtWriter writer(dir / "t.0.et", chakra::testing::sample_metadata());
    for (const auto& node : chakra::testing::sample_nodes()) writer.write(node);
    writer.commit();
  }
  TraceFeeder feeder(chakra::EtReader::open(dir / "t.0.et"));
  EXPECT_EQ(run_to_completion(feeder).size(), 6u);
  std::filesystem::remove_all(dir);
}

TEST(TraceFeeder, RealChakraFeederTraceRunsToCompletion) {
  const char* data = std::getenv("SNR_SHARED_DATA");
  auto archive = std::filesystem::path(data != nullptr ? data : "") / "chakra/feeder_tests_trace.tar.gz";
  if (data == nullptr || !std::filesystem::exists(archive)) GTEST_SKIP() << "feeder_tests_trace.tar.gz not available";
  auto dir = std::filesystem::temp_directory_path() / ("snr_feeder_real_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string command = "tar -xzf '" + archive.string() + "' -C '" + dir.string() + "' 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  // This trace (from an early PyTorch converter) has self-dependencies and
  // dependencies on nodes the converter dropped; strict mode names them.
  try {
    TraceFeeder strict(chakra::EtReader::open(dir / "tests/data/chakra.0.et"));
    run_to_completion(strict);
    ADD_FAILURE() << "expected the strict feeder to reject this trace";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("depends on itself"), std::string::npos) << e.what();
  }
  FeederOptions options;
  options.window_nodes = 256;
  options.wait_on_control_dependencies = false;
  // Its data dependencies alone are sound: ASTRA-sim's mode runs it fully.
  TraceFeeder feeder(chakra::EtReader::open(dir / "tests/data/chakra.0.et"), options);
  EXPECT_EQ(run_to_completion(feeder).size(), 3664u);
  EXPECT_EQ(feeder.stats().dangling_dependencies_ignored, 0u);
  // Waiting on control dependencies too, the trace has a cycle (validate
  // reports it as well) even with self and dangling ones ignored.
  FeederOptions lenient;
  lenient.ignore_dangling_dependencies = true;
  lenient.ignore_self_dependencies = true;
  TraceFeeder with_ctrl(chakra::EtReader::open(dir / "tests/data/chakra.0.et"), lenient);
  std::string message = "no error";
  try {
    run_to_completion(with_ctrl);
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("dependency cycle"), std::string::npos) << message;
  EXPECT_GT(with_ctrl.stats().self_dependencies_ignored, 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace snr::et
