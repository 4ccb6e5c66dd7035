#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "common/scratch_dir.h"
#include "export/chakra/chakra_export.h"
#include "export/chakra/op_timeline.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/rank_files.h"

namespace snr::exporter {
namespace {

namespace pb = ChakraProtoMsg;

// A small hand-made run: `chips` chips at 1 GHz (1 cycle = 1 ns), each
// running the ops named in `program` one instruction per `cycles_per_op`.
struct RunBuilder {
  rundb::RunData data;
  uint64_t step = 0;
  explicit RunBuilder(uint32_t chips) {
    data.meta = {{"clock_hz", "1000000000"}};
    data.op_names = {""};
    for (uint32_t c = 0; c < chips; ++c) data.chips.push_back({c, 0, 0, 0, 0});
  }
  uint32_t op(const std::string& name) {
    for (uint32_t i = 0; i < data.op_names.size(); ++i) {
      if (data.op_names[i] == name) return i;
    }
    data.op_names.push_back(name);
    return static_cast<uint32_t>(data.op_names.size() - 1);
  }
  uint64_t issue(uint32_t chip, const std::string& name, std::string_view mnemonic, uint64_t cycle) {
    rundb::InstructionRecord r;
    r.step = step++;
    r.chip = chip;
    r.op = op(name);
    r.mnemonic = mnemonic;
    r.issue_cycle = cycle;
    data.instructions.push_back(r);
    data.chips[chip].last_cycle = cycle + 1;
    data.total_cycles = std::max(data.total_cycles, cycle + 1);
    return r.step;
  }
  void dma(uint32_t chip, uint64_t issue_step, uint64_t cycle, uint32_t dst_chip, uint64_t src_address, uint64_t bytes,
           const std::string& dst_space = "vmem") {
    rundb::DmaRecord d;
    d.dma_id = data.dmas.size();
    d.chip = chip;
    d.issue_step = issue_step;
    d.src_chip = chip;
    d.src_space = "vmem";
    d.src_address = src_address;
    d.dst_chip = dst_chip;
    d.dst_space = dst_space;
    d.bytes = bytes;
    d.issue_cycle = cycle;
    d.transfer_end_cycle = cycle + 100;
    data.dmas.push_back(d);
  }
};

int64_t int_attr(const pb::Node& node, const std::string& name) {
  const pb::AttributeProto* a = chakra::find_attribute(node, name);
  EXPECT_NE(a, nullptr) << name;
  return a == nullptr ? -1 : chakra::attribute_int64(*a).value_or(-1);
}

// Every chip: matmul (a matrix push at 1000), then an all-gather (setup
// until 3000, one DMA per peer with the same source, WAIT at 5000), then
// a reduce-scatter (distinct sources, WAIT at 7000, vector adds until
// 9000).
RunBuilder collective_run(uint32_t chips) {
  RunBuilder b(chips);
  for (uint32_t c = 0; c < chips; ++c) {
    b.issue(c, "mm", "mxu.mul", 1000);
    b.issue(c, "ag", "addi", 2000);
    for (uint32_t k = 1; k < chips; ++k) {
      const uint64_t s = b.issue(c, "ag", "dma.issue", 3000 + k);
      b.dma(c, s, 3000 + k, (c + k) % chips, 0x100, 4096);
    }
    b.issue(c, "ag", "sem.wait", 5000);
    for (uint32_t k = 1; k < chips; ++k) {
      const uint64_t s = b.issue(c, "rs", "dma.issue", 6000 + k);
      b.dma(c, s, 6000 + k, (c + k) % chips, 0x100 + 4096 * ((c + k) % chips), 4096);
    }
    b.issue(c, "rs", "sem.wait", 7000);
    b.issue(c, "rs", "vadd.f32", 8000);
    b.issue(c, "rs", "vst", 9000);
  }
  return b;
}

TEST(OpTimeline, SplitsOpsAndClassifiesCollectives) {
  const OpTimeline t = build_op_timeline(collective_run(4).data);
  ASSERT_EQ(t.chips.size(), 4u);
  const auto& ops = t.chips[2];
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].name, "mm");
  EXPECT_EQ(ops[0].matrix_ops, 2u * 8 * 128 * 128);
  EXPECT_EQ(ops[1].begin_cycle, 1000u);
  EXPECT_EQ(ops[1].end_cycle, 5000u);
  EXPECT_TRUE(ops[1].collective);
  EXPECT_EQ(ops[1].collective_type, CollectiveType::kAllGather);
  EXPECT_EQ(ops[1].comm_bytes, 4096u);  // one member's input
  EXPECT_EQ(ops[1].comm_begin_cycle, 3001u);
  EXPECT_EQ(ops[1].comm_end_cycle, 5000u);
  EXPECT_EQ(ops[1].group, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(ops[2].collective);
  EXPECT_EQ(ops[2].collective_type, CollectiveType::kReduceScatter);
  EXPECT_EQ(ops[2].comm_bytes, 4u * 4096);  // the whole input
  EXPECT_TRUE(ops[2].reduces_after_wait);
  EXPECT_EQ(ops[2].after_wait_ops, 8u * 128);
}

TEST(ChakraExport, CollectiveOpsBecomeSetupCollAndReduceNodes) {
  const ChakraTrace trace = build_chakra_trace(build_op_timeline(collective_run(4).data), {{"source", "test"}});
  ASSERT_EQ(trace.ranks.size(), 4u);
  EXPECT_EQ(trace.collectives, 8u);
  EXPECT_TRUE(trace.groups.empty());
  const auto& nodes = trace.ranks[1];
  std::vector<std::string> names;
  for (const auto& n : nodes) names.push_back(n.name());
  EXPECT_EQ(names, (std::vector<std::string>{"mm", "ag.setup", "ag", "rs.setup", "rs", "rs.reduce"}));
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(nodes[i].id(), i);
    if (i > 0) {
      EXPECT_EQ(nodes[i].data_deps(0), i - 1);
    }
  }
  EXPECT_EQ(nodes[0].type(), pb::COMP_NODE);
  EXPECT_EQ(nodes[0].duration_micros(), 1u);
  EXPECT_EQ(int_attr(nodes[0], "num_ops"), 2 * 8 * 128 * 128);
  EXPECT_EQ(nodes[2].type(), pb::COMM_COLL_NODE);
  EXPECT_EQ(int_attr(nodes[2], "comm_type"), pb::ALL_GATHER);
  EXPECT_EQ(int_attr(nodes[2], "comm_size"), 4096);
  EXPECT_EQ(int_attr(nodes[4], "comm_type"), pb::REDUCE_SCATTER);
  EXPECT_EQ(int_attr(nodes[4], "comm_size"), 4 * 4096);
  EXPECT_EQ(int_attr(nodes[5], "num_ops"), 8 * 128);
  // Rounded boundaries: 1000 → 1 us, 3001 → 3 us, 5000 → 5 us.
  EXPECT_EQ(nodes[1].duration_micros(), 2u);
  EXPECT_EQ(nodes[2].duration_micros(), 2u);
}

TEST(ChakraExport, SubgroupCollectivesGetAProcessGroup) {
  // Chips {0,1} and {2,3} all-gather among themselves.
  RunBuilder b(4);
  for (uint32_t c = 0; c < 4; ++c) {
    const uint32_t peer = c ^ 1;
    const uint64_t s = b.issue(c, "ag", "dma.issue", 10);
    b.dma(c, s, 10, peer, 0x40, 512);
    b.issue(c, "ag", "sem.wait", 2000);
  }
  const ChakraTrace trace = build_chakra_trace(build_op_timeline(b.data), {});
  ASSERT_EQ(trace.groups.size(), 2u);
  EXPECT_EQ(trace.groups[0].second, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(trace.groups[1].second, (std::vector<uint32_t>{2, 3}));
  const auto& nodes = trace.ranks[3];
  const auto coll = std::find_if(nodes.begin(), nodes.end(), [](const pb::Node& n) { return n.type() == pb::COMM_COLL_NODE; });
  ASSERT_NE(coll, nodes.end());
  const pb::AttributeProto* pg = chakra::find_attribute(*coll, "pg_name");
  ASSERT_NE(pg, nullptr);
  EXPECT_EQ(pg->string_val(), "2");
}

TEST(ChakraExport, OneSidedRemoteDmaIsSendAndRecv) {
  RunBuilder b(2);
  b.issue(1, "idle", "addi", 5);
  b.issue(1, "consume", "addi", 3000);
  const uint64_t s = b.issue(0, "put", "dma.issue", 100);
  b.dma(0, s, 100, 1, 0x80, 2048);
  b.issue(0, "put", "sem.wait", 1500);
  const ChakraTrace trace = build_chakra_trace(build_op_timeline(b.data), {});
  EXPECT_EQ(trace.collectives, 0u);
  EXPECT_EQ(trace.point_to_point, 2u);
  const auto& r0 = trace.ranks[0];
  ASSERT_EQ(r0.size(), 2u);
  EXPECT_EQ(r0[0].type(), pb::COMM_SEND_NODE);
  EXPECT_EQ(int_attr(r0[0], "comm_dst"), 1);
  EXPECT_EQ(int_attr(r0[0], "comm_size"), 2048);
  const auto& r1 = trace.ranks[1];
  ASSERT_EQ(r1.size(), 3u);
  // The transfer ends at cycle 200, inside `consume` (5, 3000]: the
  // receive comes before it.
  EXPECT_EQ(r1[0].name(), "idle");
  EXPECT_EQ(r1[1].type(), pb::COMM_RECV_NODE);
  EXPECT_EQ(int_attr(r1[1], "comm_src"), 0);
  EXPECT_EQ(int_attr(r1[1], "comm_tag"), int_attr(r0[0], "comm_tag"));
  EXPECT_EQ(r1[2].name(), "consume");
}

TEST(ChakraExport, DurationsDoNotAccumulateRounding) {
  // 10 ops of 1.4 us each: rounding each would give 10 us, the rounded
  // boundaries give 14 us in total.
  RunBuilder b(1);
  for (int i = 0; i < 10; ++i) b.issue(0, "op" + std::to_string(i), "addi", 1400 * (i + 1));
  const ChakraTrace trace = build_chakra_trace(build_op_timeline(b.data), {});
  uint64_t total = 0;
  for (const auto& n : trace.ranks[0]) total += n.duration_micros();
  EXPECT_EQ(total, 14u);
}

TEST(ChakraExport, WritesEveryRankOrNothing) {
  const auto dir = snr::testing::scratch_path("export_chakra");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const ChakraTrace trace = build_chakra_trace(build_op_timeline(collective_run(2).data), {{"source", "test"}});
  const ChakraFiles files = write_chakra_trace(trace, dir / "t");
  ASSERT_EQ(files.ranks.size(), 2u);
  const auto read = chakra::read_trace(dir / "t.1.et");
  EXPECT_EQ(read.nodes.size(), trace.ranks[1].size());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 2);
  std::filesystem::remove_all(dir);
}

TEST(OpTimeline, RefusesADmaOfAnUnknownStep) {
  RunBuilder b(1);
  b.issue(0, "a", "addi", 1);
  b.dma(0, 99, 1, 0, 0, 8);
  EXPECT_THROW((void)build_op_timeline(b.data), Error);
}

}  // namespace
}  // namespace snr::exporter
