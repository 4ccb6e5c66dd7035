#include "et/critical_path/critical_path.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "common/scratch_dir.h"
#include "et/critical_path/builders.h"
#include "et/critical_path/report.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/process_group_init.h"
#include "formats/chakra/rank_files.h"
#include "et/critical_path/timeline.h"
#include "formats/perfetto/trace_validator.h"

namespace snr::et::critical_path {
namespace {

TimedNode node(uint64_t id, std::string name, Category category, int64_t start, int64_t end,
               std::vector<uint32_t> parents = {}) {
  TimedNode n;
  n.id = id;
  n.name = std::move(name);
  n.category = category;
  n.start_ns = start;
  n.end_ns = end;
  n.parents = std::move(parents);
  return n;
}

TimedNode collective(uint64_t id, int64_t start, int64_t end, std::vector<uint32_t> parents) {
  TimedNode n = node(id, "all_reduce", Category::kCommunication, start, end, std::move(parents));
  n.comm = CommRole::kCollective;
  return n;
}

// Two ranks: compute, an all-reduce over both, compute. Rank 1's first
// compute takes 30 ns, rank 0's 10 ns: rank 0 waits in the all-reduce.
TimedJob straggler_job() {
  TimedJob job;
  job.source = "test";
  job.ranks.resize(2);
  job.ranks[0].nodes = {node(1, "matmul", Category::kCompute, 0, 10), collective(2, 10, 40, {0}),
                        node(3, "gelu", Category::kCompute, 40, 50, {1})};
  job.ranks[1].nodes = {node(1, "matmul", Category::kCompute, 0, 30), collective(2, 30, 40, {0}),
                        node(3, "gelu", Category::kCompute, 40, 48, {1})};
  return job;
}

TEST(CriticalPath, FollowsTheLastArrivingPeer) {
  const TimedJob job = straggler_job();
  const CriticalPath path = find_critical_path(job);
  EXPECT_EQ(path.makespan_ns(), 50);
  // rank 1 matmul [0, 30] -> rank 0 all-reduce [30, 40] -> rank 0 gelu [40, 50].
  ASSERT_EQ(path.segments.size(), 3u);
  EXPECT_EQ(path.segments[0].rank, 1u);
  EXPECT_EQ(path.segments[0].node, 0);
  EXPECT_EQ(path.segments[0].end_ns, 30);
  EXPECT_EQ(path.segments[1].rank, 0u);
  EXPECT_EQ(path.segments[1].category, Category::kCommunication);
  EXPECT_EQ(path.segments[1].start_ns, 30);
  EXPECT_EQ(path.segments[2].node, 2);
  EXPECT_EQ(path.total[Category::kCompute], 40);
  EXPECT_EQ(path.total[Category::kCommunication], 10);
  EXPECT_EQ(path.total[Category::kIdle], 0);
  EXPECT_EQ(path.total.total(), path.makespan_ns());
  EXPECT_EQ(path.per_rank[1][Category::kCompute], 30);
  EXPECT_EQ(path.per_rank[0][Category::kCompute], 10);
  EXPECT_EQ(path.rank_changes, 1u);
  const auto ops = top_ops(job, path, 10);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].name, "matmul");
  EXPECT_EQ(ops[0].ns, 30);
}

TEST(CriticalPath, GapsAreIdleAndHostTimeIsItsOwn) {
  TimedJob job;
  job.source = "test";
  job.ranks.resize(1);
  // A host op launches a kernel that starts 5 ns after the op ends; the
  // job starts at 100 (a measured clock).
  job.ranks[0].nodes = {node(7, "aten::mm", Category::kHost, 100, 120),
                        node(8, "sgemm", Category::kCompute, 125, 160, {0})};
  const CriticalPath path = find_critical_path(job);
  EXPECT_EQ(path.origin_ns, 100);
  EXPECT_EQ(path.makespan_ns(), 60);
  EXPECT_EQ(path.total[Category::kHost], 20);
  EXPECT_EQ(path.total[Category::kIdle], 5);
  EXPECT_EQ(path.total[Category::kCompute], 35);
  // A kernel that starts while its launching op still runs: the op counts
  // until the kernel starts.
  job.ranks[0].nodes[1].start_ns = 110;
  const CriticalPath overlap = find_critical_path(job);
  EXPECT_EQ(overlap.total[Category::kHost], 10);
  EXPECT_EQ(overlap.total[Category::kCompute], 50);
  EXPECT_EQ(overlap.total.total(), overlap.makespan_ns());
}

TEST(CriticalPath, LaneOrderAndLateSends) {
  TimedJob job;
  job.source = "test";
  job.ranks.resize(2);
  // Rank 0: two independent kernels on one lane; the second waited for
  // the first (its lane predecessor), not for a parent.
  job.ranks[0].nodes = {node(1, "k1", Category::kCompute, 0, 40), node(2, "k2", Category::kCompute, 40, 50)};
  job.ranks[0].nodes[1].lane_predecessor = 0;
  TimedNode send = node(3, "send", Category::kCommunication, 50, 60, {1});
  send.comm = CommRole::kSend;
  send.peer = 1;
  job.ranks[0].nodes.push_back(send);
  // Rank 1 posts its receive at 5 and gets the data when rank 0 sends.
  TimedNode recv = node(1, "recv", Category::kCommunication, 5, 62);
  recv.comm = CommRole::kRecv;
  recv.peer = 0;
  job.ranks[1].nodes = {recv};
  const CriticalPath path = find_critical_path(job);
  EXPECT_EQ(path.makespan_ns(), 62);
  ASSERT_EQ(path.segments.size(), 3u);
  EXPECT_EQ(path.segments[0].node, 0);  // k1, through k2's lane
  EXPECT_EQ(path.segments[1].node, 1);
  EXPECT_EQ(path.segments[2].rank, 1u);  // the receive from when the send started
  EXPECT_EQ(path.segments[2].start_ns, 50);
  EXPECT_EQ(path.total[Category::kCompute], 50);
  EXPECT_EQ(path.total[Category::kCommunication], 12);
}

TEST(CriticalPath, InstantsPassThrough) {
  TimedRank rank;
  TimedNode meta = node(0, "## process_group:init ##", Category::kCompute, 0, 0);
  meta.instant = true;
  TimedNode late_meta = meta;
  late_meta.id = 2;
  late_meta.parents = {1};
  rank.nodes = {meta, node(1, "k", Category::kCompute, 0, 30, {0}), late_meta,
                node(3, "k2", Category::kCompute, 30, 45, {2})};
  settle_instants(rank);
  EXPECT_EQ(rank.nodes[2].start_ns, 30);
  EXPECT_EQ(rank.nodes[2].end_ns, 30);
  TimedJob job;
  job.source = "test";
  job.ranks = {rank};
  const CriticalPath path = find_critical_path(job);
  EXPECT_EQ(path.total[Category::kCompute], 45);
  EXPECT_EQ(path.segments.size(), 2u);
}

TEST(CriticalPath, ReportsAddUp) {
  const TimedJob job = straggler_job();
  const CriticalPath path = find_critical_path(job);
  WhatIf what_if{.compute_scale = 0.5, .comm_scale = 1, .job = job, .path = path};
  what_if.path.end_ns = 25;
  const Report report{.job = &job, .path = &path, .what_if = &what_if, .top = 2};
  const auto json = render_json(report);
  EXPECT_EQ(json["makespan_ns"], 50);
  EXPECT_EQ(json["categories"]["compute_ns"], 40);
  EXPECT_EQ(json["per_rank"].size(), 2u);
  EXPECT_EQ(json["top_ops"].size(), 2u);
  EXPECT_EQ(json["segments"][0]["rank"], 1);
  EXPECT_EQ(json["segments"][0]["name"], "matmul");
  EXPECT_EQ(json["what_if"]["makespan_ns"], 25);
  EXPECT_DOUBLE_EQ(json["what_if"]["speedup"].get<double>(), 2.0);
  const std::string text = render_text(report);
  EXPECT_NE(text.find("critical path (test, 2 ranks): 50 ns"), std::string::npos) << text;
  EXPECT_NE(text.find("speed-up 2.000x"), std::string::npos) << text;
}

TEST(CriticalPath, TimelineHighlightsThePath) {
  const TimedJob job = straggler_job();
  const CriticalPath path = find_critical_path(job);
  const auto file = snr::testing::scratch_path("timeline.json");
  write_critical_path_timeline(job, path, file);
  const auto check = perfetto::check_chrome_trace_file(file);
  EXPECT_TRUE(check.ok()) << check.summary();
  EXPECT_EQ(check.slices, 6u + 3u);  // every node, then the path's segments
  EXPECT_EQ(check.flows, 1u);        // rank 1 -> rank 0
  const std::string text = read_file(file);
  EXPECT_NE(text.find("compute: matmul"), std::string::npos);
  EXPECT_NE(text.find("\"critical path\""), std::string::npos);
  std::filesystem::remove(file);
}

TEST(CriticalPath, MeasuredTraceWithItsOwnGroups) {
  // Two ranks with measured times (us since some epoch); the all-reduce is
  // on group "7", described only by the traces' process_group:init node.
  namespace pb = ChakraProtoMsg;
  const auto prefix = snr::testing::scratch_path("measured");
  for (uint64_t r = 0; r < 2; ++r) {
    pb::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    chakra::EtWriter writer(chakra::rank_trace_path(prefix, r), metadata);
    pb::Node init;
    init.set_id(1);
    init.set_name(std::string(chakra::kProcessGroupInitNode));
    init.set_type(pb::METADATA_NODE);
    init.mutable_inputs()->set_values(chakra::process_group_init_values({{"7", {0, 1}}}));
    writer.write(init);
    pb::Node mm;
    mm.set_id(2);
    mm.set_name("aten::mm");
    mm.set_type(pb::COMP_NODE);
    chakra::set_is_cpu_op(mm, true);
    mm.set_start_time_micros(1000);
    mm.set_duration_micros(r == 0 ? 10 : 30);
    writer.write(mm);
    pb::Node ar;
    ar.set_id(3);
    ar.set_name("all_reduce");
    ar.set_type(pb::COMM_COLL_NODE);
    ar.add_data_deps(2);
    chakra::set_comm_type(ar, pb::ALL_REDUCE);
    chakra::set_comm_size(ar, 64);
    chakra::set_pg_name(ar, "7");
    ar.set_start_time_micros(r == 0 ? 1010 : 1030);
    ar.set_duration_micros(r == 0 ? 30 : 10);
    writer.write(ar);
    writer.commit();
  }
  const MeasuredTrace measured = from_measured_trace(prefix);
  EXPECT_EQ(measured.untimed_nodes, 0u);
  ASSERT_EQ(measured.job.groups.size(), 1u);
  EXPECT_EQ(measured.job.ranks[0].nodes[2].group, 0);
  const CriticalPath path = find_critical_path(measured.job);
  EXPECT_EQ(path.origin_ns, 1000 * 1000);
  EXPECT_EQ(path.makespan_ns(), 40 * 1000);
  // Rank 1's 30 us host op, then 10 us of all-reduce.
  EXPECT_EQ(path.total[Category::kHost], 30 * 1000);
  EXPECT_EQ(path.total[Category::kCommunication], 10 * 1000);
  EXPECT_EQ(path.per_rank[1][Category::kHost], 30 * 1000);
  for (uint64_t r = 0; r < 2; ++r) std::filesystem::remove(chakra::rank_trace_path(prefix, r));
}

TEST(CriticalPath, EmptyJobIsAnError) {
  TimedJob job;
  job.ranks.resize(2);
  EXPECT_THROW((void)find_critical_path(job), Error);
}

}  // namespace
}  // namespace snr::et::critical_path
