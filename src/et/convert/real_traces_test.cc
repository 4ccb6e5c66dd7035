// Conversion of the real PyTorch traces in ../shared/data/pytorch. Expected
// values were read off the inputs by hand (python/jq over the JSON); each
// comment says where a number comes from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "common/error.h"
#include "et/convert/pytorch_to_chakra.h"
#include "et/convert/trace_linker.h"

namespace snr::et_convert {
namespace {

std::filesystem::path shared(const std::string& relative) {
  const char* dir = std::getenv("SNR_SHARED_DATA");
  return dir ? std::filesystem::path(dir) / relative : std::filesystem::path();
}

#define REQUIRE_SHARED(path)                                                   \
  if ((path).empty() || !std::filesystem::exists(path)) {                      \
    GTEST_SKIP() << "shared data not present: ../shared/data/pytorch missing"; \
  }

const ConvertedNode& node_with_id(const ConvertedGraph& graph, uint64_t id) {
  for (const auto& node : graph.nodes) {
    if (node.id == id) return node;
  }
  throw Error("no node " + std::to_string(id));
}

bool depends_on(const ConvertedNode& node, uint64_t id) {
  return std::count(node.data_deps.begin(), node.data_deps.end(), id) +
             std::count(node.ctrl_deps.begin(), node.ctrl_deps.end(), id) > 0;
}

TEST(RealTraces, HtaSimpleAddLinkedAndConverted) {
  const auto et = shared("pytorch/hta/benchmark_simple_add_et.json.gz");
  const auto kineto = shared("pytorch/hta/benchmark_simple_add_trace.json.gz");
  REQUIRE_SHARED(et);
  LinkStats link;
  const auto linked = link_traces(pytorch::read_host_trace(et), pytorch::read_kineto_trace(kineto), link);
  // The Kineto trace has no "Record function id": External id 1..36 equal
  // the ET's rf_ids 1..36 (38 nodes minus the process and thread roots).
  EXPECT_EQ(link.host_ops, 36u);
  EXPECT_EQ(link.host_ops_matched, 36u);
  EXPECT_EQ(link.matched_by[1], 36u);  // external_id_offset, at offset +0
  ASSERT_FALSE(link.matcher_notes.empty());
  EXPECT_NE(link.matcher_notes.front().find("rf_id +0 (36 ops)"), std::string::npos) << link.matcher_notes.front();
  EXPECT_EQ(link.confidence, "high");
  EXPECT_EQ(link.rank, 0);  // from the Kineto trace's distributedInfo
  // 4 "kernel" events; 4 of the 5 cudaDeviceSynchronize calls fall inside a
  // CPU op (the last, ts ...808307970, is after [param|cuda] ends).
  EXPECT_EQ(link.gpu_linked, 4u);
  EXPECT_EQ(link.syncs_linked, 4u);

  PytorchConvertStats stats;
  const auto graph = convert_pytorch_trace(linked, {}, stats);
  EXPECT_EQ(stats.rank_source, "the trace's root");  // written by the linker from distributedInfo
  // Without any rank at the root, the GPU of the kernels says it (device 0).
  auto rootless = linked;
  rootless.rank.reset();
  PytorchConvertStats rootless_stats;
  convert_pytorch_trace(rootless, {}, rootless_stats);
  EXPECT_EQ(rootless_stats.rank, 0);
  EXPECT_EQ(rootless_stats.rank_source, "inferred: the GPU of 4 device node(s) (a local rank; one node assumed)");
  // Outermost operators: rand, rand, zeros, to, mul, add for warmup and
  // zeros, to, mul, add for measure (the second rand pair absorbs its empty/uniform_).
  EXPECT_EQ(stats.cpu_ops, 10u);
  EXPECT_EQ(stats.gpu_ops, 4u);
  EXPECT_EQ(graph.nodes.size(), 14u);
  // Device ids continue after the largest host id (58): 59..62 in launch order.
  const auto& first_add_kernel = node_with_id(graph, 61);
  EXPECT_EQ(first_add_kernel.duration_micros, 3u);  // kineto dur 3 for correlation 53
  EXPECT_EQ(first_add_kernel.ctrl_deps, std::vector<uint64_t>{36});  // aten::add, rf_id 22
  EXPECT_TRUE(depends_on(first_add_kernel, 60));  // same stream 7, launched earlier
  EXPECT_EQ(node_with_id(graph, 36).duration_micros, 199u);  // aten::add External id 22: dur 199
  // cudaDeviceSynchronize at ...808134999 (inside the warmup annotation, before
  // aten::add) waited for the uniform_ kernel 60: the add depends on it.
  EXPECT_TRUE(depends_on(node_with_id(graph, 36), 60));
  // The sync at ...808135353 after the add's launch gates the next CPU op, zeros (41).
  EXPECT_TRUE(depends_on(node_with_id(graph, 41), 61));
  EXPECT_EQ(stats.sync_deps, 3u);
  EXPECT_EQ(stats.stream_deps, 3u);  // 4 kernels on one stream
}

TEST(RealTraces, ParamLinearPair) {
  const auto et = shared("pytorch/param/linear_et.json.gz");
  const auto kineto = shared("pytorch/param/linear_kineto.json.gz");
  REQUIRE_SHARED(et);
  LinkStats link;
  const auto linked = link_traces(pytorch::read_host_trace(et), pytorch::read_kineto_trace(kineto), link);
  // The ET holds one iteration (931 nodes, rf_id 0..928); the Kineto trace
  // many (37,078 CPU ops, 8,716 kernels + 1,640 memsets). Without "Record
  // function id" the External-id join accepts only name-consistent pairs.
  std::cout << describe(link);
  EXPECT_EQ(link.kineto_cpu_ops, 37078u);
  EXPECT_EQ(link.gpu_activities, 10356u);
  EXPECT_EQ(link.host_ops, 928u);
  EXPECT_EQ(link.host_ops_matched + link.host_ops_unmatched_name_differs + link.host_ops_unmatched_absent, 928u);
  EXPECT_EQ(link.gpu_linked + link.gpu_without_host_op + link.gpu_without_cpu_op +
                link.gpu_without_runtime,
            10356u);
  PytorchConvertStats stats;
  const auto graph = convert_pytorch_trace(linked, {}, stats);
  EXPECT_EQ(stats.gpu_ops, link.gpu_linked);
  EXPECT_EQ(graph.nodes.size(), stats.cpu_ops + stats.gpu_ops);
}

TEST(RealTraces, ParamLinearHostOnly) {
  const auto et = shared("pytorch/param/linear_et.json.gz");
  REQUIRE_SHARED(et);
  PytorchConvertStats stats;
  const auto graph = convert_pytorch_trace(pytorch::read_host_trace(et), {}, stats);
  // Outermost operators of the ET: 21 aten::linear, 21 aten::relu, the loss
  // ops and the optimizer/autograd leaves; no device nodes without Kineto.
  EXPECT_EQ(stats.gpu_ops, 0u);
  EXPECT_EQ(stats.comm_coll, 0u);
  EXPECT_EQ(graph.nodes.size(), stats.cpu_ops);
  size_t linear = 0;
  for (const auto& node : graph.nodes) linear += node.name == "aten::linear";
  EXPECT_EQ(linear, 21u);  // 21 aten::linear nodes, all children of the thread root
  for (const auto& node : graph.nodes) EXPECT_EQ(node.duration_micros, 0u);
}

}  // namespace
}  // namespace snr::et_convert
