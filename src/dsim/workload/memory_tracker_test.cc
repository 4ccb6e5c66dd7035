#include "dsim/workload/memory_tracker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/chakra/tensor_lists.h"

namespace snr::dsim {
namespace {

using chakra::TensorRef;

ChakraProtoMsg::Node node_with(uint64_t id, const std::vector<TensorRef>& reads, const std::vector<TensorRef>& writes,
                               bool lists = true) {
  ChakraProtoMsg::Node node;
  node.set_id(id);
  if (lists) {
    chakra::set_tensor_list(node, chakra::attr_name::kInputs, reads);
    chakra::set_tensor_list(node, chakra::attr_name::kOutputs, writes);
  }
  return node;
}

// Five nodes, hand-timed: A writes x; B reads x, writes y; C reads y and
// z (never written), writes w (0 bytes) and x again; D names no tensors;
// E writes v, which nobody reads.
RankTensors five_nodes() {
  RankTensorsBuilder builder;
  builder.add_node(node_with(10, {}, {{"x", 100}}));
  builder.add_node(node_with(11, {{"x", 100}}, {{"y", 200}}));
  builder.add_node(node_with(12, {{"y", 200}, {"z", 50}}, {{"w", 0}, {"x", 100}}));
  builder.add_node(node_with(13, {}, {}, false));
  builder.add_node(node_with(14, {}, {{"v", 1000}}));
  return builder.finish();
}

TEST(MemoryTracker, LifetimesPeakAndCountsFollowAstraSimsRules) {
  const RankTensors tensors = five_nodes();
  ASSERT_EQ(tensors.tensor_count(), 4u);  // w is zero bytes
  EXPECT_EQ(tensors.name(0), "x");
  EXPECT_EQ(tensors.name(1), "y");
  EXPECT_EQ(tensors.name(3), "v");
  EXPECT_EQ(tensors.nodes_without_lists, 1u);
  MemoryTracker tracker({&tensors});
  tracker.node_finished(0, 0, 0, 10);
  tracker.node_finished(0, 1, 10, 30);
  tracker.node_finished(0, 2, 30, 40);
  tracker.node_finished(0, 3, 40, 45);
  tracker.node_finished(0, 4, 45, 50);
  const MemoryProfile profile = tracker.take_profiles().at(0);
  // x [0, 30] (B's read ends it; C's write of x is the "written again"),
  // y [10, 40], z read before write: [0, 40], v [45, end).
  using Usage = std::vector<std::pair<TimeNs, uint64_t>>;
  EXPECT_EQ(profile.usage, (Usage{{0, 150}, {10, 350}, {30, 250}, {40, 0}, {45, 1000}}));
  EXPECT_EQ(profile.peak_bytes, 1000u);
  EXPECT_EQ(profile.peak_ns, 45u);
  EXPECT_EQ(profile.read_before_write, 1u);
  EXPECT_EQ(profile.written_again, 1u);
  EXPECT_EQ(profile.nodes_without_lists, 1u);
  ASSERT_EQ(profile.tensors.size(), 4u);
  const TensorLifetime& z = profile.tensors[2];
  EXPECT_EQ(tensors.name(z.tensor), "z");
  EXPECT_EQ(z.writer, -1);
  EXPECT_EQ(z.written_start_ns, 0u);
  EXPECT_EQ(z.last_reader, 2);
  const TensorLifetime& x = profile.tensors[0];
  EXPECT_EQ(x.writer, 0);
  EXPECT_EQ(x.reads, 1u);
  EXPECT_EQ(x.last_read_end_ns, 30u);
  EXPECT_EQ(profile.tensors[3].last_read_end_ns, kNoRead);
}

TEST(MemoryTracker, ManyNamesInternOnceEach) {
  RankTensorsBuilder builder;
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) names.push_back("layer." + std::to_string(i) + ".y");
  for (int round = 0; round < 2; ++round) {
    for (const std::string& name : names) builder.add_node(node_with(1, {{name, 8}}, {}));
  }
  const RankTensors tensors = builder.finish();
  ASSERT_EQ(tensors.tensor_count(), 3000u);
  EXPECT_EQ(tensors.name(2999), "layer.2999.y");
  EXPECT_EQ(tensors.uses[3000 + 17].tensor, 17u);  // the second round finds the first's indices
}

TEST(MemoryTracker, AtOneMomentWritesCountBeforeLastReads) {
  RankTensorsBuilder builder;
  builder.add_node(node_with(1, {}, {{"q", 64}}));
  builder.add_node(node_with(2, {{"q", 64}}, {}));
  const RankTensors tensors = builder.finish();
  MemoryTracker tracker({&tensors});
  tracker.node_finished(0, 0, 5, 5);
  tracker.node_finished(0, 1, 5, 5);
  const MemoryProfile profile = tracker.take_profiles().at(0);
  // q is written and last read at 5: the usage after that moment is 0.
  EXPECT_EQ(profile.usage, (std::vector<std::pair<TimeNs, uint64_t>>{{5, 0}}));
  EXPECT_EQ(profile.peak_bytes, 0u);
}

TEST(MemoryTracker, PeakLineUsesAstraSimsUnits) {
  EXPECT_EQ(format_peak_memory(0), "0.00 B");
  EXPECT_EQ(format_peak_memory(1023), "1023.00 B");
  EXPECT_EQ(format_peak_memory(1024), "1.00 KB");
  EXPECT_EQ(format_peak_memory(1536), "1.50 KB");
  EXPECT_EQ(format_peak_memory(uint64_t{1} << 20), "1.00 MB");
  EXPECT_EQ(format_peak_memory(uint64_t{3} << 30), "3.00 GB");
  EXPECT_EQ(format_peak_memory(uint64_t{1} << 40), "1.00 TB");
  EXPECT_EQ(format_peak_memory(uint64_t{1} << 50), "1024.00 TB");
}

TEST(MemoryTracker, TraceHasTheLiveBytesCounterAndALifetimePerTensor) {
  const RankTensors tensors = five_nodes();
  MemoryTracker tracker({&tensors});
  const TimeNs times[][2] = {{0, 10}, {10, 30}, {30, 40}, {40, 45}, {45, 50}};
  for (uint32_t n = 0; n < 5; ++n) tracker.node_finished(0, n, times[n][0], times[n][1]);
  std::vector<NodeLabel> labels;
  for (uint64_t id = 10; id < 15; ++id) labels.push_back(NodeLabel{"n" + std::to_string(id), id});
  const auto dir = std::filesystem::temp_directory_path() / ("memory_tracker_test_" + std::to_string(::getpid()));
  const auto path = dir / "sub" / "mem.0.json";  // parent folders are created
  write_memory_trace(tracker.take_profiles().at(0), tensors, labels, 0, 50, path);
  const auto trace = nlohmann::json::parse(read_file(path));
  int counters = 0, slices = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "C") ++counters;
    if (event["ph"] != "X") continue;
    ++slices;
    if (event["name"] == "v") {
      EXPECT_DOUBLE_EQ(event["dur"].get<double>(), 0.005);  // 45 .. 50 ns, the end of the run (never read)
      EXPECT_EQ(event["args"]["last_read_by"], "(never read)");
      EXPECT_EQ(event["args"]["written_by"], "n14 (node 14)");
    }
  }
  EXPECT_EQ(counters, 5);
  EXPECT_EQ(slices, 4);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace snr::dsim
