#include "pathfind/mapping/super_graph.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "common/error_of.h"

namespace snr::pathfind {
namespace {

using snr::testing::error_of;

uint64_t edges(const SuperGraphCounts& c, EdgeDim d) { return c.edges[static_cast<size_t>(d)]; }
uint64_t cross(const SuperGraphCounts& c, EdgeDim d) { return c.cross_edges[static_cast<size_t>(d)]; }

TEST(PathfindSuperGraph, PipelineStagesAreContiguousAndEven) {
  // 10 layers in 4 stages: 10 % 4 = 2 stages of 3 layers, then 2 of 2.
  const std::vector<uint64_t> expected{0, 0, 0, 1, 1, 1, 2, 2, 3, 3};
  for (size_t layer = 0; layer < 10; ++layer) EXPECT_EQ(pipeline_stage(layer, 10, 4), expected[layer]) << layer;
  // Figure 5: 3 layers in 2 stages -> {0, 1} and {2}.
  EXPECT_EQ(pipeline_stage(1, 3, 2), 0u);
  EXPECT_EQ(pipeline_stage(2, 3, 2), 1u);
  EXPECT_EQ(pipeline_stage(2, 3, 3), 2u);
  EXPECT_EQ(pipeline_stage(2, 3, 1), 0u);
  EXPECT_EQ(error_of([] { (void)pipeline_stage(0, 3, 4); }),
            "pipeline: lp = 4 must be in 1..3 (the layers of the compute graph)");
}

TEST(PathfindSuperGraph, RingConvention) {
  EXPECT_EQ(ring_edge_count(1), 0u);
  EXPECT_EQ(ring_edge_count(2), 1u);
  EXPECT_EQ(ring_edge_count(3), 3u);
  EXPECT_EQ(ring_edge_count(8), 8u);
}

// Figure 5: a 3-layer feed-forward chain, P2 (layers {0,1} | {2}), D3, RC-K4-K2.
//   nodes       3 layers x 3 replicas x 8 kernel shards              = 72
//   pipeline    1 original edge across stages (1->2) x 3 x 8         = 24
//   local       1 original edge inside stage 0 (0->1) x 3 x 8        = 24
//   data        3 nodes x 8 kernel shards x ring(3) = 3              = 72
//   kernel_row  3 nodes x 3 replicas x 2 columns x ring(4) = 4       = 72
//   kernel_col  3 nodes x 3 replicas x 4 rows x ring(2) = 1          = 36
//   cross-edges 24 + 72 + 72 + 36 = 204 of 228 edges
TEST(PathfindSuperGraph, FigureFiveCounts) {
  const ComputeGraph g = feed_forward_chain(3);
  const ParallelismNotation n = parse_parallelism("RC-K4-K2-d3-p2");
  const SuperGraphCounts c = count_super_graph(g, n);
  EXPECT_EQ(c.nodes, 72u);
  EXPECT_EQ(edges(c, EdgeDim::kPipeline), 24u);
  EXPECT_EQ(edges(c, EdgeDim::kLocal), 24u);
  EXPECT_EQ(edges(c, EdgeDim::kData), 72u);
  EXPECT_EQ(edges(c, EdgeDim::kKernelRow), 72u);
  EXPECT_EQ(edges(c, EdgeDim::kKernelCol), 36u);
  EXPECT_EQ(cross(c, EdgeDim::kPipeline), 24u);
  EXPECT_EQ(cross(c, EdgeDim::kLocal), 0u);
  EXPECT_EQ(cross(c, EdgeDim::kData), 72u);
  EXPECT_EQ(cross(c, EdgeDim::kKernelRow), 72u);
  EXPECT_EQ(cross(c, EdgeDim::kKernelCol), 36u);
  EXPECT_EQ(c.total_cross_edges(), 204u);
  EXPECT_EQ(c.total_edges(), 228u);

  const SuperGraph sg = build_super_graph(g, n);
  EXPECT_EQ(sg.counts(), c);
  // Node ((n * DP + d) * KP1 + r) * KP2 + c: original 2, replica 1, row 3, column 1.
  ASSERT_EQ(sg.nodes.size(), 72u);
  EXPECT_EQ(sg.nodes[63].original, 2u);
  EXPECT_EQ(sg.nodes[63].shard, (ShardCoord{3, 1, 1, 1}));
  EXPECT_EQ(sg.nodes[0].shard, (ShardCoord{0, 0, 0, 0}));
  for (const SuperEdge& e : sg.edges) {
    EXPECT_EQ(e.cross, e.dim != EdgeDim::kLocal);
    const ShardCoord& a = sg.nodes[e.from].shard;
    const ShardCoord& b = sg.nodes[e.to].shard;
    EXPECT_EQ(a == b, e.dim == EdgeDim::kLocal);  // every cross-edge changes device
  }
}

// Distinct shard pairs of Figure 5 (48 shards, both stages hold nodes):
//   kernel_row 48 / 4 rings x 4 = 48, kernel_col 48 / 2 rings x 1 = 24,
//   pipeline 24 shards of stage 0 x 1 = 24, data 48 / 3 rings x 3 = 48.
TEST(PathfindSuperGraph, FigureFiveShardEdges) {
  const ComputeGraph g = feed_forward_chain(3);
  const ParallelismNotation n = parse_parallelism("RC-4-2-d3-p2");
  const std::vector<ShardEdge> closed = shard_edges(g, n);
  std::array<size_t, 4> per_dim{};
  for (const ShardEdge& e : closed) ++per_dim[index_of(e.dim)];
  EXPECT_EQ(per_dim, (std::array<size_t, 4>{48, 24, 24, 48}));
  EXPECT_EQ(closed, shard_edges(build_super_graph(g, n)));
  EXPECT_EQ(closed, chain_shard_edges(parallel_dims(n)));
  // First kernel_row edge: row 0 -> 1 of shard (c0, s0, d0); the ring closes 3 -> 0.
  EXPECT_EQ(closed[0], (ShardEdge{{0, 0, 0, 0}, {1, 0, 0, 0}, ParallelDim::kKernelRow}));
  EXPECT_EQ(closed[3], (ShardEdge{{3, 0, 0, 0}, {0, 0, 0, 0}, ParallelDim::kKernelRow}));
}

struct Case {
  ComputeGraph graph;
  const char* notation;
};

ComputeGraph skip_graph() {
  // a(0) -> b(1) -> c(2) -> d(3), plus a -> c and a -> d skipping layers.
  ComputeGraph g;
  g.nodes = {{"a", 0}, {"b", 1}, {"c", 2}, {"d", 3}};
  g.edges = {{0, 1}, {1, 2}, {2, 3}, {0, 2}, {0, 3}};
  return g;
}

ComputeGraph sparse_layers() {
  // Layers 1..3 hold no node: with p5 the middle stages stay empty.
  ComputeGraph g;
  g.nodes = {{"in", 0}, {"in2", 0}, {"out", 4}};
  g.edges = {{0, 2}, {1, 2}, {0, 1}};
  return g;
}

TEST(PathfindSuperGraph, ClosedFormAgreesWithTheExplicitBuilder) {
  const std::vector<Case> cases{
      {feed_forward_chain(5), "CR-3-d2-p2"},  {feed_forward_chain(1), "d1-p1"},
      {feed_forward_chain(4), "RC-2-2-d2-p4"}, {feed_forward_chain(7), "RC-3-5-d1-p3"},
      {skip_graph(), "RC-2-3-d3-p3"},          {skip_graph(), "CR-2-d1-p4"},
      {sparse_layers(), "RC-2-1-d2-p5"},       {feed_forward_chain(6), "d5-p6"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.notation);
    const ParallelismNotation n = parse_parallelism(c.notation);
    const SuperGraph sg = build_super_graph(c.graph, n);
    EXPECT_EQ(sg.counts(), count_super_graph(c.graph, n));
    EXPECT_EQ(shard_edges(sg), shard_edges(c.graph, n));
  }
}

TEST(PathfindSuperGraph, SkipConnectionsHandCounted) {
  // 4 layers in p3: stages {a,b}, {c}, {d}. a->b is local; b->c, c->d, a->c
  // and a->d cross. RC-2-3-d3: 18 shards per node, ring(2) = 1, ring(3) = 3.
  const ParallelismNotation n = parse_parallelism("RC-2-3-d3-p3");
  const SuperGraphCounts c = count_super_graph(skip_graph(), n);
  EXPECT_EQ(c.nodes, 72u);                          // 4 x 3 x 6
  EXPECT_EQ(edges(c, EdgeDim::kPipeline), 72u);     // 4 x 18
  EXPECT_EQ(edges(c, EdgeDim::kLocal), 18u);        // 1 x 18
  EXPECT_EQ(edges(c, EdgeDim::kData), 72u);         // 4 x 6 x 3
  EXPECT_EQ(edges(c, EdgeDim::kKernelRow), 36u);    // 4 x 3 x 3 columns x 1
  EXPECT_EQ(edges(c, EdgeDim::kKernelCol), 72u);    // 4 x 3 x 2 rows x 3
  // Shard level: stage pairs (0,1), (1,2), (0,2) -> 3 x 18 pipeline edges.
  size_t pipeline = 0;
  for (const ShardEdge& e : shard_edges(skip_graph(), n)) pipeline += e.dim == ParallelDim::kPipeline ? 1 : 0;
  EXPECT_EQ(pipeline, 54u);
}

TEST(PathfindSuperGraph, EmptyStagesHaveNoRings) {
  // Stages 0 and 4 hold nodes: data rings (ring(2) = 1) of 2 shards in 2 stages.
  const ParallelismNotation n = parse_parallelism("RC-2-1-d2-p5");
  std::array<size_t, 4> per_dim{};
  for (const ShardEdge& e : shard_edges(sparse_layers(), n)) ++per_dim[index_of(e.dim)];
  // kernel_row: 2 stages x 2 replicas x ring(2); pipeline: pair (0,4) x 4 shards.
  EXPECT_EQ(per_dim, (std::array<size_t, 4>{4, 0, 4, 4}));
}

TEST(PathfindSuperGraph, ClosedFormScalesWithoutBuilding) {
  const ComputeGraph g = feed_forward_chain(1000);
  const ParallelismNotation n = parse_parallelism("RC-64-64-d64-p8");
  const SuperGraphCounts c = count_super_graph(g, n);
  EXPECT_EQ(c.nodes, 262'144'000u);                          // 1000 x 64 x 4096
  EXPECT_EQ(edges(c, EdgeDim::kData), 262'144'000u);         // 1000 x 4096 x 64
  EXPECT_EQ(edges(c, EdgeDim::kKernelRow), 262'144'000u);    // 1000 x 64 x 64 x 64
  EXPECT_EQ(edges(c, EdgeDim::kKernelCol), 262'144'000u);
  EXPECT_EQ(edges(c, EdgeDim::kPipeline), 1'835'008u);       // 7 stage cuts x 262144
  EXPECT_EQ(edges(c, EdgeDim::kLocal), 260'046'848u);        // 992 x 262144
  const std::string err = error_of([&] { (void)build_super_graph(g, n); });
  EXPECT_NE(err.find("super-graph of RC-64-64-d64-p8: 262144000 nodes"), std::string::npos) << err;
}

TEST(PathfindSuperGraph, ErrorsNameTheField) {
  EXPECT_EQ(error_of([] { (void)count_super_graph(feed_forward_chain(3), parse_parallelism("d1-p4")); }),
            "pipeline: lp = 4 must be in 1..3 (the layers of the compute graph)");
  ComputeGraph g = feed_forward_chain(2);
  g.edges.emplace_back(1, 5);
  EXPECT_EQ(error_of([&] { g.validate(); }), "compute graph: edge 1 (1 -> 5) refers to a node outside 0..1");
  g.edges.back() = {1, 1};
  EXPECT_EQ(error_of([&] { g.validate(); }), "compute graph: edge 1 is a self-loop on node 'layer1'");
  EXPECT_EQ(error_of([] { (void)feed_forward_chain(0); }), "feed-forward chain: layers must be in 1..1048576, got 0");
  EXPECT_EQ(error_of([] { (void)count_super_graph(ComputeGraph{}, parse_parallelism("d1-p1")); }),
            "compute graph: no nodes to parallelise");
  ParallelismNotation bad;
  bad.dp = 0;
  EXPECT_EQ(error_of([&] { (void)count_super_graph(feed_forward_chain(2), bad); }),
            "parallelism d0-p1: dp must be in 1..1048576, got 0");
}

}  // namespace
}  // namespace snr::pathfind
