#include "pathfind/mapping/system_graph.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "common/error.h"
#include "common/error_of.h"

namespace snr::pathfind {
namespace {

using snr::testing::error_of;

using Dir = LinkDirection;

// The path as (node, dimension, direction) triples, for readable expectations.
std::vector<Link> links_of(const SystemGraph& s, uint64_t from, uint64_t to) {
  std::vector<Link> out;
  for (uint64_t id : s.route(from, to)) out.push_back(s.link(id));
  return out;
}

TEST(PathfindSystemGraph, CoordinatesRunFirstDimensionFastest) {
  const SystemGraph t = torus({8, 6});
  EXPECT_EQ(t.node_count(), 48u);
  EXPECT_EQ(t.coordinate(13), (std::vector<uint64_t>{5, 1}));
  EXPECT_EQ(t.node({5, 1}), 13u);
  EXPECT_EQ(t.node({7, 5}), 47u);
  EXPECT_EQ(t.link_count(), 48u * 2 * 2);
  const uint64_t id = t.link_id({13, 1, Dir::kNegative});
  EXPECT_EQ(id, (13u * 2 + 1) * 2 + 1);
  EXPECT_EQ(t.link(id), (Link{13, 1, Dir::kNegative}));
  EXPECT_EQ(t.link_name(id), "node 13 (5,1) dim 1 -");
}

TEST(PathfindSystemGraph, TorusTakesTheShorterWayAndTiesGoPositive) {
  const SystemGraph t = torus({8, 6});
  // (0,0) -> (5,3): x forward 5 > 8 - 5, so 3 hops negative through x = 7, 6;
  // then y forward 3 = 6 - 3, a tie, so 3 hops positive from (5,0).
  EXPECT_EQ(links_of(t, t.node({0, 0}), t.node({5, 3})),
            (std::vector<Link>{{t.node({0, 0}), 0, Dir::kNegative},
                               {t.node({7, 0}), 0, Dir::kNegative},
                               {t.node({6, 0}), 0, Dir::kNegative},
                               {t.node({5, 0}), 1, Dir::kPositive},
                               {t.node({5, 1}), 1, Dir::kPositive},
                               {t.node({5, 2}), 1, Dir::kPositive}}));
  // x distance 4 on a ring of 8: a tie, positive.
  EXPECT_EQ(links_of(t, t.node({2, 4}), t.node({6, 4})),
            (std::vector<Link>{{t.node({2, 4}), 0, Dir::kPositive},
                               {t.node({3, 4}), 0, Dir::kPositive},
                               {t.node({4, 4}), 0, Dir::kPositive},
                               {t.node({5, 4}), 0, Dir::kPositive}}));
  // Wrap-around positive: (7,5) -> (0,0) is one hop in each dimension.
  EXPECT_EQ(links_of(t, t.node({7, 5}), t.node({0, 0})),
            (std::vector<Link>{{t.node({7, 5}), 0, Dir::kPositive}, {t.node({0, 5}), 1, Dir::kPositive}}));
  EXPECT_TRUE(t.route(9, 9).empty());
}

TEST(PathfindSystemGraph, MeshNeverWraps) {
  const SystemGraph m = mesh({4, 2});
  EXPECT_EQ(m.node_count(), 8u);
  // (3,1) -> (0,0): 3 hops negative in x, then 1 negative in y.
  EXPECT_EQ(links_of(m, m.node({3, 1}), m.node({0, 0})),
            (std::vector<Link>{{m.node({3, 1}), 0, Dir::kNegative},
                               {m.node({2, 1}), 0, Dir::kNegative},
                               {m.node({1, 1}), 0, Dir::kNegative},
                               {m.node({0, 1}), 1, Dir::kNegative}}));
  const SystemGraph m86 = mesh({8, 6});
  EXPECT_EQ(m86.route(m86.node({0, 0}), m86.node({5, 3})).size(), 8u);  // 5 + 3, no shortcut
}

TEST(PathfindSystemGraph, SwitchCostsTwoLinksAndTwoLevelsStack) {
  // 8 devices on a package switch (tier 0), packages on a 2 x 2 torus (tier 1).
  const SystemGraph s = two_level({switch_dimension(8, 300e9)}, torus({2, 2}, 50e9).dimensions());
  EXPECT_EQ(s.node_count(), 32u);
  EXPECT_EQ(s.dimensions()[0].tier, 0u);
  EXPECT_EQ(s.dimensions()[1].tier, 1u);
  EXPECT_EQ(s.dimensions()[2].tier, 1u);
  // (1,0,0) -> (6,1,1): up from device 1, down to device 6, then one hop in
  // each package dimension (ring of 2: the tie goes positive).
  const uint64_t from = s.node({1, 0, 0});
  const uint64_t to = s.node({6, 1, 1});
  EXPECT_EQ(links_of(s, from, to), (std::vector<Link>{{from, 0, Dir::kPositive},
                                                     {s.node({6, 0, 0}), 0, Dir::kNegative},
                                                     {s.node({6, 0, 0}), 1, Dir::kPositive},
                                                     {s.node({6, 1, 0}), 2, Dir::kPositive}}));
  const std::vector<uint64_t> path = s.route(from, to);
  EXPECT_EQ(s.link_name(path[0]), "node 1 (1,0,0) dim 0 up");
  EXPECT_EQ(s.link_name(path[1]), "node 6 (6,0,0) dim 0 down");
  EXPECT_DOUBLE_EQ(s.dimension_of_link(path[1]).link_bandwidth_bytes_per_s, 300e9);
  EXPECT_DOUBLE_EQ(s.dimension_of_link(path[3]).link_bandwidth_bytes_per_s, 50e9);
  // Same device slot in another package: no switch hop.
  EXPECT_EQ(s.route(s.node({3, 0, 0}), s.node({3, 1, 0})).size(), 1u);
}

TEST(PathfindSystemGraph, ErrorsNameTheField) {
  EXPECT_EQ(error_of([] { (void)torus({8, 0}); }), "system dimension 1: size must be in 1..1048576, got 0");
  EXPECT_EQ(error_of([] { (void)mesh({2097152}); }), "system dimension 0: size must be in 1..1048576, got 2097152");
  EXPECT_EQ(error_of([] { (void)torus({4096, 4096, 2}); }),
            "system: more than 16777216 nodes (2^24) once dimension 2 (size 2) is included");
  EXPECT_EQ(error_of([] { (void)torus({4}, 0.0); }),
            "system dimension 0: link_bandwidth_bytes_per_s must be positive and finite, got 0");
  EXPECT_EQ(error_of([] { (void)torus({4}, std::numeric_limits<double>::infinity()); }),
            "system dimension 0: link_bandwidth_bytes_per_s must be positive and finite, got inf");
  EXPECT_EQ(error_of([] { (void)SystemGraph({{4, SystemDimension::Kind::kLine, 0, 1.0, -1.0}}); }),
            "system dimension 0: link_latency_s must be non-negative and finite, got -1");
  EXPECT_EQ(error_of([] { (void)SystemGraph({}); }), "system: needs 1..16 dimensions, got 0");
  const SystemGraph t = torus({8, 6});
  EXPECT_EQ(error_of([&] { (void)t.route(0, 48); }), "system: route 0 -> 48 leaves the 48 nodes");
  EXPECT_EQ(error_of([&] { (void)t.node({8, 0}); }), "system: coordinate 0 = 8 is not below the size 8");
  EXPECT_EQ(error_of([&] { (void)t.coordinate(48); }), "system: node 48 is not below the 48 nodes");
}

}  // namespace
}  // namespace snr::pathfind
