#include "et/retarget/retarget.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/process_group_init.h"
#include "formats/chakra/rank_files.h"

namespace snr::et {
namespace {

namespace pb = ChakraProtoMsg;
namespace fs = std::filesystem;

class Retarget : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("snr_retarget_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static pb::Node compute(uint64_t id, uint64_t micros) {
    pb::Node n;
    n.set_id(id);
    n.set_name("matmul");
    n.set_type(pb::COMP_NODE);
    n.set_duration_micros(micros);
    return n;
  }
  static pb::Node collective(uint64_t id, std::string name, uint64_t after, pb::CollectiveCommType type,
                             int64_t bytes) {
    pb::Node n;
    n.set_id(id);
    n.set_name(std::move(name));
    n.set_type(pb::COMM_COLL_NODE);
    n.add_data_deps(after);
    chakra::set_comm_type(n, type);
    chakra::set_comm_size(n, bytes);
    return n;
  }
  // Writes PREFIX.<rank>.et for ranks 0 .. ranks-1 with the nodes `of_rank(r)` gives.
  template <typename Nodes>
  fs::path write_trace(const fs::path& prefix, uint64_t ranks, const Nodes& of_rank) {
    for (uint64_t r = 0; r < ranks; ++r) {
      pb::GlobalMetadata metadata;
      metadata.set_version("0.0.4");
      chakra::EtWriter writer(chakra::rank_trace_path(prefix, r), metadata);
      for (const pb::Node& n : of_rank(r)) writer.write(n);
      writer.commit();
    }
    return prefix;
  }

  // A 4-rank tensor-parallel step: compute, all-gather of 1 KiB per member,
  // reduce-scatter of 4 KiB.
  fs::path write_input(uint64_t ranks = 4) {
    return write_trace(dir_ / "in", ranks, [](uint64_t) {
      pb::Node mm = compute(0, 40);
      chakra::set_num_ops(mm, 4000);
      chakra::set_tensor_size(mm, 800);
      return std::vector<pb::Node>{mm, collective(1, "all_gather", 0, pb::ALL_GATHER, 1024),
                                   collective(2, "reduce_scatter", 1, pb::REDUCE_SCATTER, 4096)};
    });
  }

  // A tp 2 x dp 2 training step on 4 ranks: process_group:init, compute,
  // a tensor-parallel all-gather of 1 KiB per member (groups "1" {0,1} and
  // "2" {2,3}), a data-parallel all-reduce of 8 KiB (groups "3" {0,2} and
  // "4" {1,3}).
  fs::path write_training_input() {
    const fs::path prefix = dir_ / "train";
    write_file_atomic(prefix.string() + ".comm_groups.json",
                      R"({"1": [0, 1], "2": [2, 3], "3": [0, 2], "4": [1, 3]})");
    return write_trace(prefix, 4, [](uint64_t r) {
      pb::Node init;
      init.set_id(0);
      init.set_name(std::string(chakra::kProcessGroupInitNode));
      init.set_type(pb::METADATA_NODE);
      init.mutable_inputs()->set_values(chakra::process_group_init_values(
          {{"1", {0, 1}}, {"2", {2, 3}}, {"3", {0, 2}}, {"4", {1, 3}}}));
      pb::Node mm = compute(1, 40);
      pb::Node ag = collective(2, "tp_all_gather", 1, pb::ALL_GATHER, 1024);
      chakra::set_pg_name(ag, r < 2 ? "1" : "2");
      pb::Node ar = collective(3, "dp_all_reduce", 2, pb::ALL_REDUCE, 8192);
      chakra::set_pg_name(ar, r % 2 == 0 ? "3" : "4");
      return std::vector<pb::Node>{init, mm, ag, ar};
    });
  }

  static int64_t attr(const pb::Node& node, const std::string& name) {
    const auto* a = chakra::find_attribute(node, name);
    return a == nullptr ? -1 : chakra::attribute_int64(*a).value_or(-1);
  }

  fs::path dir_;
};

TEST_F(Retarget, SameLayoutIsByteIdentical) {
  const auto in = write_input();
  const auto summary = retarget_trace(in, {.npus = 4}, dir_ / "out");
  EXPECT_EQ(summary.output.tp, 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(read_file(chakra::rank_trace_path(in, r)), read_file(chakra::rank_trace_path(dir_ / "out", r)));
  }
  EXPECT_FALSE(fs::exists(dir_ / "out.4.et"));
}

TEST_F(Retarget, DataParallelReplicasGetTheirGroup) {
  const auto in = write_input();
  const auto summary = retarget_trace(in, {.npus = 64}, dir_ / "out");
  EXPECT_EQ(summary.output.dp, 16u);
  EXPECT_EQ(summary.nodes_written, 64u * 3);
  for (uint64_t r : {0u, 5u, 63u}) {
    const auto trace = chakra::read_trace(chakra::rank_trace_path(dir_ / "out", r));
    ASSERT_EQ(trace.nodes.size(), 3u);
    EXPECT_EQ(chakra::find_attribute(trace.nodes[1], "pg_name")->string_val(), std::to_string(r / 4 + 1));
    EXPECT_EQ(attr(trace.nodes[1], "comm_size"), 1024);
    EXPECT_EQ(attr(trace.nodes[2], "comm_size"), 4096);
    EXPECT_EQ(trace.nodes[0].duration_micros(), 40u);
  }
  const auto groups = nlohmann::json::parse(read_file(summary.comm_groups));
  ASSERT_EQ(groups.size(), 16u);
  for (uint64_t d = 0; d < 16; ++d) {
    EXPECT_EQ(groups[std::to_string(d + 1)], nlohmann::json({4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}));
  }
  // The grown trace retargets again: 64 → 128 keeps 4-rank groups.
  const auto again = retarget_trace(dir_ / "out", {.npus = 128}, dir_ / "again");
  EXPECT_EQ(again.input.tp, 4u);
  EXPECT_EQ(again.input.dp, 16u);
  EXPECT_EQ(again.output.dp, 32u);
}

TEST_F(Retarget, TensorParallelRescale) {
  const auto in = write_input();
  const auto summary = retarget_trace(in, {.npus = 8, .tp = 8}, dir_ / "out");
  EXPECT_EQ(summary.output.dp, 1u);
  const auto trace = chakra::read_trace(chakra::rank_trace_path(dir_ / "out", 7));
  EXPECT_EQ(trace.nodes[0].duration_micros(), 20u);  // half the shard
  EXPECT_EQ(attr(trace.nodes[0], "num_ops"), 2000);
  EXPECT_EQ(attr(trace.nodes[0], "tensor_size"), 400);
  EXPECT_EQ(attr(trace.nodes[1], "comm_size"), 512);   // a member's share
  EXPECT_EQ(attr(trace.nodes[2], "comm_size"), 4096);  // the whole buffer
  EXPECT_EQ(chakra::find_attribute(trace.nodes[1], "pg_name"), nullptr);
}

TEST_F(Retarget, Refusals) {
  const auto in = write_input();
  EXPECT_THROW((void)retarget_trace(in, {.npus = 10}, dir_ / "out"), Error);              // 10 % 4
  EXPECT_THROW((void)retarget_trace(in, {.npus = 16, .tp = 4, .dp = 2}, dir_ / "out"), Error);  // 4 x 2 != 16
  EXPECT_THROW((void)retarget_trace(in, {.npus = 16, .tp = 4, .dp = 2, .pp = 3}, dir_ / "out"), Error);
  EXPECT_FALSE(fs::exists(dir_ / "out.0.et"));
  // Groups that are not equal contiguous blocks.
  const auto grown = retarget_trace(in, {.npus = 8}, dir_ / "dp");
  write_file_atomic(grown.comm_groups, R"({"1": [0, 2, 4, 6], "2": [1, 3, 5, 7]})");
  EXPECT_THROW((void)retarget_trace(dir_ / "dp", {.npus = 16}, dir_ / "out"), Error);
  EXPECT_FALSE(fs::exists(dir_ / "out.0.et"));
}

TEST_F(Retarget, PipelineStagesHandTheActivationOn) {
  // 4 -> 32 ranks as T = 4, D = 2, P = 4: rank r = t + 4 (d + 2 s), so
  // stage s holds ranks 8s .. 8s + 7 and rank r's next stage is rank r + 8.
  const auto in = write_input();
  const auto summary = retarget_trace(in, {.npus = 32, .tp = 4, .pp = 4}, dir_ / "out");
  EXPECT_EQ(summary.output.dp, 2u);
  EXPECT_EQ(summary.output.pp, 4u);
  // Per stage 8 ranks; stage 0 adds a send, stages 1-2 a receive and a
  // send, stage 3 a receive: 8 x (4 + 5 + 5 + 4).
  EXPECT_EQ(summary.nodes_written, 8u * (4 + 5 + 5 + 4));
  // The activation: the last collective is a 4,096 B reduce-scatter over
  // 4 ranks, leaving 1,024 B on each.
  constexpr int64_t kActivation = 4096 / 4;
  std::set<int64_t> tags;  // sends and receives match on one tag
  for (uint64_t r = 0; r < 32; ++r) {
    const uint64_t stage = r / 8;
    const auto trace = chakra::read_trace(chakra::rank_trace_path(dir_ / "out", r));
    ASSERT_EQ(trace.nodes.size(), 3u + (stage > 0) + (stage < 3)) << r;
    size_t first = 0;
    if (stage > 0) {
      const auto& recv = trace.nodes[0];
      EXPECT_EQ(recv.type(), pb::COMM_RECV_NODE);
      EXPECT_EQ(recv.id(), 3u);  // after the input's ids 0..2
      EXPECT_EQ(attr(recv, "comm_src"), static_cast<int64_t>(r - 8));
      EXPECT_EQ(attr(recv, "comm_size"), kActivation);
      tags.insert(attr(recv, "comm_tag"));
      first = 1;
      // The stage's first node (no dependencies in the input) waits for it.
      ASSERT_EQ(trace.nodes[1].data_deps_size(), 1);
      EXPECT_EQ(trace.nodes[1].data_deps(0), 3u);
    }
    EXPECT_EQ(trace.nodes[first].name(), "matmul");
    EXPECT_EQ(trace.nodes[first].duration_micros(), 40u);  // every stage runs the traced step
    EXPECT_EQ(chakra::find_attribute(trace.nodes[first + 1], "pg_name")->string_val(), std::to_string(r / 4 + 1));
    if (stage < 3) {
      const auto& send = trace.nodes.back();
      EXPECT_EQ(send.type(), pb::COMM_SEND_NODE);
      EXPECT_EQ(send.id(), 4u);
      EXPECT_EQ(attr(send, "comm_dst"), static_cast<int64_t>(r + 8));
      EXPECT_EQ(attr(send, "comm_size"), kActivation);
      tags.insert(attr(send, "comm_tag"));
      ASSERT_EQ(send.data_deps_size(), 1);
      EXPECT_EQ(send.data_deps(0), 2u);  // the reduce-scatter, which nothing depends on
    }
  }
  EXPECT_EQ(tags.size(), 1u);
  EXPECT_GE(*tags.begin(), 0);
  // One tensor-parallel group per (replica, stage): 8 groups of 4.
  const auto groups = nlohmann::json::parse(read_file(summary.comm_groups));
  ASSERT_EQ(groups.size(), 8u);
  for (uint64_t g = 0; g < 8; ++g) {
    EXPECT_EQ(groups[std::to_string(g + 1)], nlohmann::json({4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3}));
  }
  // The size may be given; stages combine with a tensor-parallel re-scale.
  const auto given = retarget_trace(in, {.npus = 16, .tp = 2, .pp = 2, .activation_bytes = 777}, dir_ / "given");
  EXPECT_EQ(given.output.dp, 4u);
  const auto last = chakra::read_trace(chakra::rank_trace_path(dir_ / "given", 15));
  EXPECT_EQ(attr(last.nodes[0], "comm_size"), 777);
  EXPECT_EQ(attr(last.nodes[0], "comm_src"), 7);
  EXPECT_EQ(last.nodes[1].duration_micros(), 80u);  // T 4 -> 2: twice the share
}

TEST_F(Retarget, PipelineStagesRefusals) {
  // No collective: the activation size is unknown unless given.
  const fs::path compute_only =
      write_trace(dir_ / "comp", 2, [](uint64_t) { return std::vector<pb::Node>{compute(0, 10)}; });
  try {
    (void)retarget_trace(compute_only, {.npus = 4, .pp = 2}, dir_ / "out");
    ADD_FAILURE() << "no refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--activation-bytes"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "out.0.et"));
  // 2 ranks (T = 2) -> 2 stages of 2: 4 matmuls, 2 sends, 2 receives.
  EXPECT_EQ(retarget_trace(compute_only, {.npus = 4, .pp = 2, .activation_bytes = 64}, dir_ / "ok").nodes_written,
            4u + 2u + 2u);
  // A trace with point-to-point nodes may be a pipeline stage already.
  const fs::path p2p = write_trace(dir_ / "p2p", 2, [](uint64_t r) {
    pb::Node n;
    n.set_id(0);
    n.set_name(r == 0 ? "send" : "recv");
    n.set_type(r == 0 ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
    if (r == 0) chakra::set_comm_dst(n, 1);
    if (r == 1) chakra::set_comm_src(n, 0);
    chakra::set_comm_size(n, 64);
    return std::vector<pb::Node>{n};
  });
  try {
    (void)retarget_trace(p2p, {.npus = 4, .pp = 2, .activation_bytes = 64}, dir_ / "out");
    ADD_FAILURE() << "no refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("point-to-point nodes of its own"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "out.0.et"));
}

TEST_F(Retarget, TensorAndDataParallelGroupsGrowByFormula) {
  const auto in = write_training_input();
  const auto layout = infer_layout(in);
  EXPECT_EQ(layout.tp, 2u);  // the consecutive groups' size
  EXPECT_EQ(layout.dp, 2u);
  // tp 2 -> 4, dp 2 -> 4: rank r = t + 4 d.
  const auto summary = retarget_trace(in, {.npus = 16, .tp = 4}, dir_ / "out");
  EXPECT_EQ(summary.output.dp, 4u);
  EXPECT_EQ(summary.nodes_written, 16u * 4);
  const auto groups = nlohmann::json::parse(read_file(summary.comm_groups));
  ASSERT_EQ(groups.size(), 4u + 4u);  // D tensor-parallel groups, then T data-parallel ones
  for (uint64_t d = 0; d < 4; ++d) {
    EXPECT_EQ(groups[std::to_string(d + 1)], nlohmann::json({4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}));
  }
  for (uint64_t t = 0; t < 4; ++t) {
    EXPECT_EQ(groups[std::to_string(4 + 1 + t)], nlohmann::json({t, t + 4, t + 8, t + 12}));
  }
  for (uint64_t r = 0; r < 16; ++r) {
    const uint64_t t = r % 4, d = r / 4;
    const auto trace = chakra::read_trace(chakra::rank_trace_path(dir_ / "out", r));
    ASSERT_EQ(trace.nodes.size(), 4u);
    EXPECT_EQ(trace.nodes[1].duration_micros(), 20u);  // half the shard
    EXPECT_EQ(chakra::find_attribute(trace.nodes[2], "pg_name")->string_val(), std::to_string(d + 1));
    EXPECT_EQ(attr(trace.nodes[2], "comm_size"), 512);  // a member's share of the all-gather
    EXPECT_EQ(chakra::find_attribute(trace.nodes[3], "pg_name")->string_val(), std::to_string(5 + t));
    EXPECT_EQ(attr(trace.nodes[3], "comm_size"), 4096);  // the rank's gradient shard halves too
    // The trace describes the rank's own groups (snr sim reads them when no
    // comm-group file is given).
    EXPECT_EQ(trace.nodes[0].inputs().values(),
              chakra::process_group_init_values(
                  {{std::to_string(d + 1), {4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}},
                   {std::to_string(5 + t), {t, t + 4, t + 8, t + 12}}}));
  }
  // The same layout is the input, groups file included.
  const auto same = retarget_trace(in, {.npus = 4}, dir_ / "same");
  for (uint64_t r = 0; r < 4; ++r) {
    EXPECT_EQ(read_file(chakra::rank_trace_path(in, r)), read_file(chakra::rank_trace_path(dir_ / "same", r)));
  }
  EXPECT_EQ(read_file(same.comm_groups), read_file(in.string() + ".comm_groups.json"));
}

TEST_F(Retarget, ShardedDataParallelGatherKeepsTheModel) {
  // ZeRO-3 / FSDP on 2 replicas of one rank: each gathers the parameters
  // from 2 KiB shards and reduce-scatters its 8 KiB of gradients. On 8
  // replicas the model is the same: the shard is 512 B, the buffer stays.
  const fs::path in = write_trace(dir_ / "fsdp", 2, [](uint64_t) {
    return std::vector<pb::Node>{compute(0, 40), collective(1, "all_gather", 0, pb::ALL_GATHER, 2048),
                                 collective(2, "reduce_scatter", 1, pb::REDUCE_SCATTER, 8192)};
  });
  const auto summary = retarget_trace(in, {.npus = 8, .input_tp = 1}, dir_ / "out");
  EXPECT_EQ(summary.output.dp, 8u);
  for (uint64_t r : {0u, 7u}) {
    const auto trace = chakra::read_trace(chakra::rank_trace_path(dir_ / "out", r));
    EXPECT_EQ(attr(trace.nodes[1], "comm_size"), 512);
    EXPECT_EQ(attr(trace.nodes[2], "comm_size"), 8192);
    EXPECT_EQ(trace.nodes[0].duration_micros(), 40u);
  }
  // Back to 2 replicas: the input's shard.
  (void)retarget_trace(dir_ / "out", {.npus = 2, .input_tp = 1}, dir_ / "back");
  EXPECT_EQ(attr(chakra::read_trace(chakra::rank_trace_path(dir_ / "back", 1)).nodes[1], "comm_size"), 2048);
}

TEST_F(Retarget, DataParallelJobGrowsItsAllReduceGroup) {
  // DDP: every collective on one group of all ranks ("0"); --input-tp 1
  // reads it as data-parallel (by default it would be one tensor-parallel group).
  const auto in = write_training_input();
  const fs::path ddp = write_trace(dir_ / "ddp", 4, [&](uint64_t r) {
    std::vector<pb::Node> nodes;
    for (auto& node : chakra::read_trace(chakra::rank_trace_path(in, r)).nodes) {
      if (node.name() == "tp_all_gather") continue;
      if (node.type() == pb::COMM_COLL_NODE) {
        for (auto& a : *node.mutable_attr()) {
          if (a.name() == "pg_name") a.set_string_val("0");
        }
        node.clear_data_deps();
        node.add_data_deps(1);
      }
      nodes.push_back(node);
    }
    return nodes;
  });
  write_file_atomic(ddp.string() + ".comm_groups.json", R"({"0": [0, 1, 2, 3]})");
  EXPECT_EQ(infer_layout(ddp).tp, 4u);
  EXPECT_EQ(infer_layout(ddp, 1).dp, 4u);
  const auto summary = retarget_trace(ddp, {.npus = 512, .input_tp = 1}, dir_ / "out");
  EXPECT_EQ(summary.output.tp, 1u);
  EXPECT_EQ(summary.output.dp, 512u);
  EXPECT_EQ(summary.nodes_written, 512u * 3);
  EXPECT_TRUE(summary.comm_groups.empty());  // the one group spans every rank
  for (uint64_t r : {0u, 3u, 4u, 511u}) {
    const auto trace = chakra::read_trace(chakra::rank_trace_path(dir_ / "out", r));
    ASSERT_EQ(trace.nodes.size(), 3u);
    EXPECT_EQ(attr(trace.nodes[2], "comm_size"), 8192);  // each replica reduces its whole gradient
    EXPECT_EQ(chakra::find_attribute(trace.nodes[2], "pg_name"), nullptr);
    EXPECT_EQ(trace.nodes[0].inputs().values(), "['[]']");
  }
  // M = N with the same reading is the input, byte for byte.
  (void)retarget_trace(ddp, {.npus = 4, .input_tp = 1}, dir_ / "same");
  for (uint64_t r = 0; r < 4; ++r) {
    EXPECT_EQ(read_file(chakra::rank_trace_path(ddp, r)), read_file(chakra::rank_trace_path(dir_ / "same", r)));
  }
  // Without a groups file, PyTorch's default group "0" is every rank.
  fs::remove(ddp.string() + ".comm_groups.json");
  const auto undescribed = retarget_trace(ddp, {.npus = 16, .input_tp = 1}, dir_ / "undescribed");
  EXPECT_EQ(undescribed.output.dp, 16u);
  EXPECT_EQ(chakra::find_attribute(chakra::read_trace(chakra::rank_trace_path(dir_ / "undescribed", 9)).nodes[2],
                                   "pg_name"),
            nullptr);
}

TEST_F(Retarget, OneRankGroupsBecomeNoOps) {
  // tp 4 -> 1: the tensor-parallel collectives have one member and move
  // nothing; they stay as zero-time compute nodes so dependencies hold.
  const auto in = write_input();
  const auto summary = retarget_trace(in, {.npus = 8, .tp = 1}, dir_ / "out");
  EXPECT_EQ(summary.output.dp, 8u);
  EXPECT_TRUE(summary.comm_groups.empty());
  const auto trace = chakra::read_trace(chakra::rank_trace_path(dir_ / "out", 5));
  ASSERT_EQ(trace.nodes.size(), 3u);
  EXPECT_EQ(trace.nodes[0].duration_micros(), 160u);  // the whole step on one rank
  for (size_t i : {1u, 2u}) {
    EXPECT_EQ(trace.nodes[i].type(), pb::COMP_NODE);
    EXPECT_EQ(trace.nodes[i].duration_micros(), 0u);
    EXPECT_EQ(chakra::find_attribute(trace.nodes[i], "comm_size"), nullptr);
  }
  EXPECT_EQ(trace.nodes[2].data_deps(0), 1u);
}

TEST_F(Retarget, GroupsWithoutARule) {
  const auto in = write_training_input();
  // A group that is neither a block of 2 nor a stride-2 set of 2.
  write_file_atomic(in.string() + ".comm_groups.json", R"({"1": [0, 1], "2": [2, 3], "3": [0, 2, 3], "4": [1, 3]})");
  try {
    (void)retarget_trace(in, {.npus = 8}, dir_ / "out");
    ADD_FAILURE() << "no refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("neither a tensor-parallel group"), std::string::npos) << e.what();
  }
  // A collective in a group that does not list its rank.
  write_file_atomic(in.string() + ".comm_groups.json", R"({"1": [2, 3], "2": [0, 1], "3": [0, 2], "4": [1, 3]})");
  try {
    (void)retarget_trace(in, {.npus = 8}, dir_ / "out");
    ADD_FAILURE() << "no refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("which does not list it"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)retarget_trace(in, {.npus = 8, .input_tp = 3}, dir_ / "out"), Error);  // 3 does not divide 4
  EXPECT_FALSE(fs::exists(dir_ / "out.0.et"));
}

}  // namespace
}  // namespace snr::et
