#include "pathfind/mapping/placement.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/error.h"
#include "common/error_of.h"

namespace snr::pathfind {
namespace {

using snr::testing::error_of;

constexpr ParallelDim R = ParallelDim::kKernelRow;
constexpr ParallelDim C = ParallelDim::kKernelCol;
constexpr ParallelDim P = ParallelDim::kPipeline;
constexpr ParallelDim D = ParallelDim::kData;
constexpr DimOrder kFigureFiveOrder{R, C, P, D};

ParallelDims figure_five_dims() { return parallel_dims(parse_parallelism("RC-K4-K2-d3-p2")); }

const DimensionTraffic& of(const Mapping& m, ParallelDim d) { return m.dims[index_of(d)]; }

TEST(PathfindPlacement, TwentyFourOrderingsFromTheSortedOne) {
  const std::vector<DimOrder> orders = all_orderings();
  ASSERT_EQ(orders.size(), 24u);
  EXPECT_EQ(orders.front(), kFigureFiveOrder);
  EXPECT_EQ(orders[1], (DimOrder{R, C, D, P}));
  EXPECT_EQ(orders.back(), (DimOrder{D, P, C, R}));
  EXPECT_EQ(std::set<DimOrder>(orders.begin(), orders.end()).size(), 24u);
  EXPECT_EQ(order_name(orders.front()), "kernel_row,kernel_col,pipeline,data");
}

// Figure 5, middle: order kernel(R), kernel(C), pipeline, data on an 8 x 6
// torus. Linear index r + 4c + 8p + 16d, so x = r + 4c and y = p + 2d.
TEST(PathfindPlacement, FigureFiveWalk) {
  const DeviceMapper mapper(figure_five_dims(), torus({8, 6}));
  const SystemGraph& s = mapper.system();
  for (uint64_t r = 0; r < 4; ++r) {
    EXPECT_EQ(s.coordinate(mapper.node_of({r, 0, 0, 0}, kFigureFiveOrder)), (std::vector<uint64_t>{r, 0}));
    EXPECT_EQ(s.coordinate(mapper.node_of({r, 1, 0, 0}, kFigureFiveOrder)), (std::vector<uint64_t>{r + 4, 0}));
  }
  EXPECT_EQ(s.coordinate(mapper.node_of({0, 0, 1, 0}, kFigureFiveOrder)), (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(s.coordinate(mapper.node_of({0, 0, 0, 1}, kFigureFiveOrder)), (std::vector<uint64_t>{0, 2}));
  EXPECT_EQ(mapper.node_of({3, 1, 1, 2}, kFigureFiveOrder), 47u);
  // The bold edge: a kernel-column neighbour is 4 positions away in x.
  const uint64_t a = mapper.node_of({0, 0, 0, 0}, kFigureFiveOrder);
  const uint64_t b = mapper.node_of({0, 1, 0, 0}, kFigureFiveOrder);
  EXPECT_EQ(s.route(a, b).size(), 4u);
  // A dimension larger than the hardware one it starts in wraps: order
  // D, R, C, P gives index d + 3r + 12c + 24p, so r = 3 lands on x = 1, y = 1.
  EXPECT_EQ(s.coordinate(mapper.node_of({3, 0, 0, 0}, DimOrder{D, R, C, P})), (std::vector<uint64_t>{1, 1}));
}

// Hand-routed, unit link bandwidth, one row y of the torus:
//   kernel_row  rings 0-1-2-3 and 4-5-6-7: three +1 hops, the closing edge
//               3->0 goes 3 hops negative (forward 5 > 3). Hops 1,1,1,3:
//               max 3, mean 1.5; no directed link used twice -> bandwidth 1.
//   kernel_col  (r,0)->(r,1) is x r -> r+4, a tie, 4 hops positive; the +x
//               link leaving x = 3 carries all four rows' edges -> 1/4.
//   pipeline    y p -> p+1 inside each data block: 1 hop, no sharing.
//   data        y 2d+p -> 2(d+1)+p, 2 hops positive (4+p -> p wraps forward
//               by 2); the two pipeline stages' rings interleave, so every +y
//               link carries 2 edges -> 1/2.
TEST(PathfindPlacement, FigureFiveTrafficOnTorus) {
  const DeviceMapper mapper(figure_five_dims(), torus({8, 6}));
  const Mapping m = mapper.evaluate(kFigureFiveOrder, {1, 1, 1, 1});
  EXPECT_EQ(of(m, R).edges, 48u);
  EXPECT_EQ(of(m, R).max_hops, 3u);
  EXPECT_DOUBLE_EQ(of(m, R).mean_hops, 1.5);
  EXPECT_EQ(of(m, R).max_sharing, 1u);
  EXPECT_DOUBLE_EQ(of(m, R).effective_bandwidth_bytes_per_s, 1.0);
  EXPECT_EQ(of(m, C).edges, 24u);
  EXPECT_EQ(of(m, C).max_hops, 4u);
  EXPECT_DOUBLE_EQ(of(m, C).mean_hops, 4.0);
  EXPECT_EQ(of(m, C).max_sharing, 4u);
  EXPECT_DOUBLE_EQ(of(m, C).effective_bandwidth_bytes_per_s, 0.25);
  EXPECT_EQ(mapper.system().link_name(of(m, C).bottleneck_link), "node 3 (3,0) dim 0 +");
  EXPECT_EQ(of(m, P).edges, 24u);
  EXPECT_EQ(of(m, P).max_hops, 1u);
  EXPECT_EQ(of(m, P).max_sharing, 1u);
  EXPECT_DOUBLE_EQ(of(m, P).effective_bandwidth_bytes_per_s, 1.0);
  EXPECT_EQ(of(m, D).edges, 48u);
  EXPECT_EQ(of(m, D).max_hops, 2u);
  EXPECT_DOUBLE_EQ(of(m, D).mean_hops, 2.0);
  EXPECT_EQ(of(m, D).max_sharing, 2u);
  EXPECT_DOUBLE_EQ(of(m, D).effective_bandwidth_bytes_per_s, 0.5);
  EXPECT_EQ(m.time_s, (std::array<double, 4>{1, 4, 1, 2}));
  EXPECT_DOUBLE_EQ(m.score_s, 8.0);

  // Per-link report: the +x link at (2,0) carries kernel_row 2->3 and the
  // kernel_col edges of rows 0, 1, 2; the one at (3,0) the four kernel_col edges.
  const uint64_t at_2 = mapper.system().link_id({mapper.system().node({2, 0}), 0, LinkDirection::kPositive});
  const uint64_t at_3 = mapper.system().link_id({mapper.system().node({3, 0}), 0, LinkDirection::kPositive});
  int found = 0;
  for (const LinkLoad& l : m.links) {
    if (l.link == at_2) {
      EXPECT_EQ(l.edges, (std::array<uint32_t, 4>{1, 3, 0, 0}));
      ++found;
    }
    if (l.link == at_3) {
      EXPECT_EQ(l.edges, (std::array<uint32_t, 4>{0, 4, 0, 0}));
      ++found;
    }
  }
  EXPECT_EQ(found, 2);
}

// Same walk on an 8 x 6 mesh: x traffic is unchanged (no edge wrapped in x);
// the data ring's closing edge y 4+p -> p now goes 4 hops negative.
TEST(PathfindPlacement, FigureFiveTrafficOnMesh) {
  const Mapping m = DeviceMapper(figure_five_dims(), mesh({8, 6})).evaluate(kFigureFiveOrder, {1, 1, 1, 1});
  EXPECT_EQ(of(m, R).max_hops, 3u);
  EXPECT_EQ(of(m, C).max_hops, 4u);
  EXPECT_EQ(of(m, C).max_sharing, 4u);
  EXPECT_EQ(of(m, D).max_hops, 4u);
  EXPECT_DOUBLE_EQ(of(m, D).mean_hops, 8.0 / 3.0);  // 2, 2, 4
  EXPECT_EQ(of(m, D).max_sharing, 2u);             // e.g. +y from y = 1: p0's 0->2 and p1's 1->3
  EXPECT_DOUBLE_EQ(of(m, D).effective_bandwidth_bytes_per_s, 0.5);
  EXPECT_DOUBLE_EQ(m.score_s, 8.0);
}

// All four steps at once: in a row, +x loads are kernel_row {1,1,1,0,1,1,1}
// plus kernel_col {1,2,3,4,3,2,1} for x = 0..6, so kernel_row's 2->3 edge
// sees 4; +y links carry 2 data edges and, at even y, 1 pipeline edge: 3.
TEST(PathfindPlacement, AllDimensionsContention) {
  const DeviceMapper mapper(figure_five_dims(), torus({8, 6}), MappingOptions{Contention::kAllDimensions});
  const Mapping m = mapper.evaluate(kFigureFiveOrder, {1, 1, 1, 1});
  EXPECT_EQ(of(m, R).max_sharing, 4u);
  EXPECT_DOUBLE_EQ(of(m, R).effective_bandwidth_bytes_per_s, 0.25);
  EXPECT_EQ(of(m, C).max_sharing, 4u);
  EXPECT_DOUBLE_EQ(of(m, C).effective_bandwidth_bytes_per_s, 0.25);
  EXPECT_EQ(of(m, P).max_sharing, 3u);
  EXPECT_DOUBLE_EQ(of(m, P).effective_bandwidth_bytes_per_s, 1.0 / 3.0);
  EXPECT_EQ(of(m, D).max_sharing, 3u);
  EXPECT_DOUBLE_EQ(of(m, D).effective_bandwidth_bytes_per_s, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.score_s, 4 + 4 + 3 + 3);
}

TEST(PathfindPlacement, LatencyAddsTheLongestPath) {
  std::vector<SystemDimension> dims = torus({8, 6}).dimensions();
  for (SystemDimension& d : dims) d.link_latency_s = 1e-6;
  const Mapping m = DeviceMapper(figure_five_dims(), SystemGraph(dims)).evaluate(kFigureFiveOrder, {1, 1, 1, 1});
  EXPECT_DOUBLE_EQ(of(m, R).max_path_latency_s, 3e-6);
  EXPECT_DOUBLE_EQ(of(m, C).max_path_latency_s, 4e-6);
  EXPECT_DOUBLE_EQ(m.score_s, 8.0 + 10e-6);  // 3 + 4 + 1 + 2 hops of latency
}

// A routing scored on a system of the same shape with other bandwidths and
// latencies gives what evaluating on that system gives.
TEST(PathfindPlacement, RoutedOrderScoresOtherBandwidthsExactly) {
  const SystemGraph slow = two_level({switch_dimension(8, 300e9)}, torus({2, 3}, 50e9).dimensions());
  std::vector<SystemDimension> dims = slow.dimensions();
  dims[0].link_bandwidth_bytes_per_s = 123e9;
  dims[1].link_latency_s = 2e-6;
  dims[2].link_bandwidth_bytes_per_s = 7e9;
  const SystemGraph other(dims);
  ASSERT_TRUE(same_shape(slow, other));
  const DeviceMapper mapper(figure_five_dims(), slow);
  const std::array<double, kParallelDimCount> bytes{3e9, 3e9, 1e9, 1e9};
  for (const DimOrder& order : all_orderings()) {
    const Mapping expected = DeviceMapper(figure_five_dims(), other).evaluate(order, bytes);
    const Mapping scored = DeviceMapper::score(mapper.route(order), other, bytes);
    EXPECT_EQ(scored.score_s, expected.score_s) << order_name(order);
    EXPECT_EQ(scored.time_s, expected.time_s) << order_name(order);
    for (ParallelDim d : kAllParallelDims) {
      EXPECT_EQ(of(scored, d).effective_bandwidth_bytes_per_s, of(expected, d).effective_bandwidth_bytes_per_s);
      EXPECT_EQ(of(scored, d).bottleneck_link, of(expected, d).bottleneck_link);
      EXPECT_EQ(of(scored, d).max_path_latency_s, of(expected, d).max_path_latency_s);
      EXPECT_EQ(of(scored, d).mean_hops, of(expected, d).mean_hops);
    }
    EXPECT_EQ(scored.links.size(), expected.links.size());
  }
  EXPECT_FALSE(same_shape(slow, torus({8, 6})));
  std::vector<SystemDimension> switched = dims;
  switched[1].kind = SystemDimension::Kind::kLine;
  EXPECT_FALSE(same_shape(slow, SystemGraph(switched)));
}

// Two levels: R and C fill the 8-device package switch, pipeline and data
// the 2 x 3 package torus. Switch paths are up + down; each device sends and
// receives one edge per kernel dimension, so nothing is shared.
TEST(PathfindPlacement, TwoLevelSystemReportsTheBottleneckTier) {
  const SystemGraph s = two_level({switch_dimension(8, 300e9)}, torus({2, 3}, 50e9).dimensions());
  const Mapping m = DeviceMapper(figure_five_dims(), s).evaluate(kFigureFiveOrder, {3e9, 3e9, 1e9, 1e9});
  EXPECT_EQ(of(m, R).max_hops, 2u);
  EXPECT_EQ(of(m, R).max_sharing, 1u);
  EXPECT_DOUBLE_EQ(of(m, R).effective_bandwidth_bytes_per_s, 300e9);
  EXPECT_EQ(of(m, R).bottleneck_tier, 0u);
  EXPECT_EQ(of(m, C).max_hops, 2u);
  EXPECT_DOUBLE_EQ(of(m, C).effective_bandwidth_bytes_per_s, 300e9);
  EXPECT_EQ(of(m, P).max_hops, 1u);
  EXPECT_DOUBLE_EQ(of(m, P).effective_bandwidth_bytes_per_s, 50e9);
  EXPECT_EQ(of(m, D).max_hops, 1u);  // ring of 3 packages: every step is one hop
  EXPECT_DOUBLE_EQ(of(m, D).effective_bandwidth_bytes_per_s, 50e9);
  EXPECT_EQ(of(m, D).bottleneck_tier, 1u);
  EXPECT_DOUBLE_EQ(m.score_s, 0.01 + 0.01 + 0.02 + 0.02);
}

TEST(PathfindPlacement, BestOrderingIsDeterministic) {
  const OrderingSearch search = best_ordering(figure_five_dims(), torus({8, 6}), {1, 1, 1, 1});
  ASSERT_EQ(search.all.size(), 24u);
  const std::vector<DimOrder> orders = all_orderings();
  for (size_t i = 0; i < 24; ++i) {
    EXPECT_EQ(search.all[i].order, orders[i]);
    EXPECT_TRUE(search.all[i].links.empty());
  }
  // Hand-checked scores (unit bytes, unit links; time = 1 / effective bandwidth):
  //   [0]  R,C,P,D  1 + 4 + 1 + 2 = 8   (FigureFiveTrafficOnTorus)
  //   [1]  R,C,D,P  x = r + 4c, y = d + 3p: data steps 1, 1 and 2 back, no
  //                 sharing (1); pipeline y -> y+3, a tie, 3 hops, three edges
  //                 on +y at y = 2 (3): 1 + 4 + 3 + 1 = 9
  //   [6]  C,R,P,D  x = c + 2r: kernel_col 1 hop (1); kernel_row 2 hops
  //                 positive, the two columns' rings share every +x link (2):
  //                 2 + 1 + 1 + 2 = 6
  //   [7]  C,R,D,P  2 + 1 + 3 + 1 = 7
  //   [12] P,R,C,D  x = p + 2r, y = c + 2d: kernel_row as in [6], the rest one
  //                 hop or as in [0]: 2 + 1 + 1 + 2 = 6, a tie with [6]
  EXPECT_DOUBLE_EQ(search.all[0].score_s, 8.0);
  EXPECT_DOUBLE_EQ(search.all[1].score_s, 9.0);
  EXPECT_DOUBLE_EQ(search.all[6].score_s, 6.0);
  EXPECT_DOUBLE_EQ(search.all[7].score_s, 7.0);
  EXPECT_DOUBLE_EQ(search.all[12].score_s, 6.0);
  // No ordering beats 6, and the tie goes to the earlier one.
  EXPECT_EQ(search.best_index, 6u);
  EXPECT_EQ(search.best.order, (DimOrder{C, R, P, D}));
  EXPECT_DOUBLE_EQ(search.best.score_s, 6.0);
  for (size_t i = 0; i < 24; ++i) {
    if (i < search.best_index) {
      EXPECT_GT(search.all[i].score_s, search.best.score_s) << i;
    } else {
      EXPECT_GE(search.all[i].score_s, search.best.score_s) << i;
    }
  }
  EXPECT_EQ(search.best.order, search.all[search.best_index].order);
  EXPECT_DOUBLE_EQ(search.best.score_s, search.all[search.best_index].score_s);
  EXPECT_FALSE(search.best.links.empty());
  const OrderingSearch again = best_ordering(figure_five_dims(), torus({8, 6}), {1, 1, 1, 1});
  EXPECT_EQ(again.best_index, search.best_index);
}

TEST(PathfindPlacement, BytesWeightTheDimensions) {
  // Only data traffic counts: the first ordering whose data ring has a link
  // to itself is [1] R,C,D,P (see above), time 1; [0] has data at 1/2.
  const OrderingSearch search = best_ordering(figure_five_dims(), torus({8, 6}), {0, 0, 0, 1});
  EXPECT_EQ(search.best_index, 1u);
  EXPECT_EQ(search.best.order, (DimOrder{R, C, D, P}));
  EXPECT_DOUBLE_EQ(search.best.score_s, 1.0);
  EXPECT_DOUBLE_EQ(search.all[0].score_s, 2.0);
}

TEST(PathfindPlacement, ErrorsNameTheField) {
  EXPECT_EQ(error_of([] { DeviceMapper(figure_five_dims(), torus({8, 4})); }),
            "device mapping: parallel dimensions kernel_row 4 x kernel_col 2 x pipeline 2 x data 3 = 48 shards but "
            "the system has 32 nodes");
  const DeviceMapper mapper(figure_five_dims(), torus({8, 6}));
  EXPECT_EQ(error_of([&] { (void)mapper.evaluate(DimOrder{R, R, P, D}); }),
            "device mapping: order kernel_row,kernel_row,pipeline,data lists kernel_row twice");
  EXPECT_EQ(error_of([&] { (void)mapper.evaluate(kFigureFiveOrder, {1, -1, 1, 1}); }),
            "device mapping: bytes_per_dimension[kernel_col] must be finite and non-negative, got -1");
  EXPECT_EQ(error_of([&] { (void)mapper.node_of({4, 0, 0, 0}, kFigureFiveOrder); }),
            "device mapping: kernel_row coordinate 4 is not below 4");
  const std::vector<ShardEdge> diagonal{{{0, 0, 0, 0}, {1, 1, 0, 0}, R}};
  EXPECT_EQ(error_of([&] { DeviceMapper(figure_five_dims(), torus({8, 6}), diagonal); }),
            "device mapping: edge 0 of dimension kernel_row also changes kernel_col");
  const std::vector<ShardEdge> outside{{{0, 0, 0, 0}, {0, 0, 0, 3}, D}};
  EXPECT_EQ(error_of([&] { DeviceMapper(figure_five_dims(), torus({8, 6}), outside); }),
            "device mapping: edge 0 has data coordinate 0 -> 3 outside 0..2");
}

}  // namespace
}  // namespace snr::pathfind

namespace snr::pathfind {
namespace {

// The search evaluates each distinct order of the dimensions larger than 1
// once; every one of the 24 reported orderings must still score what
// evaluating it alone gives.
TEST(PathfindPlacement, SizeOneDimensionsShareTheirEvaluation) {
  ParallelDims dims;
  dims.size = {4, 1, 2, 1};  // kernel_row 4, pipeline 2
  const DeviceMapper mapper(dims, torus({2, 4}, 1e9));
  const std::array<double, kParallelDimCount> bytes{1e6, 0, 3e6, 0};
  OrderingSearch search = mapper.best_ordering(bytes);
  ASSERT_EQ(search.all.size(), 24u);
  for (size_t i = 0; i < search.all.size(); ++i) {
    Mapping alone = mapper.evaluate(search.all[i].order, bytes);
    EXPECT_EQ(search.all[i].score_s, alone.score_s) << i;
    EXPECT_EQ(search.all[i].dims[0].max_hops, alone.dims[0].max_hops) << i;
    EXPECT_EQ(search.all[i].dims[2].effective_bandwidth_bytes_per_s, alone.dims[2].effective_bandwidth_bytes_per_s)
        << i;
  }
  EXPECT_EQ(search.best.links.size(), mapper.evaluate(search.best.order, bytes).links.size());
}

}  // namespace
}  // namespace snr::pathfind
