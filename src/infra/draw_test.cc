#include "infra/draw.h"

#include <gtest/gtest.h>

#include "infra/blueprints/blueprint.h"

namespace snr::infra {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(Draw, LevelsClusterDevicesAndCollapseTiers) {
  const Graph g = expand(build_blueprint("clos-fat-tree", {{"k", "4"}, {"tier1_gbps", "400"}}));
  const Annotations a = annotate(g);
  DrawOptions o;
  EXPECT_EQ(resolve_draw_level(g, o), DrawLevel::kComponent);  // 8 x 3 + 6 x 5 = 54 nodes
  const std::string comp = to_dot(g, a, o);
  EXPECT_EQ(count(comp, "subgraph \"cluster_"), 14u);        // one cluster per device instance
  EXPECT_EQ(count(comp, " -- "), g.edge_count());
  EXPECT_NE(comp.find("tier_1_link (#"), std::string::npos);  // legend with bandwidth
  EXPECT_NE(comp.find("400 Gb/s"), std::string::npos);
  EXPECT_NE(comp.find("penwidth=5.00"), std::string::npos);   // the fastest class is the widest
  EXPECT_NE(comp.find("penwidth=1.00"), std::string::npos);

  o.level = DrawLevel::kTier;
  const std::string tiers = to_dot(g, a, o);
  EXPECT_NE(tiers.find("host (host, host)\\n×8"), std::string::npos);
  EXPECT_NE(tiers.find("tier_0 (switch, switch)\\n×4, tier 1"), std::string::npos);
  EXPECT_NE(tiers.find("label=\"×8\""), std::string::npos);  // 8 host links collapsed into one edge
  EXPECT_EQ(count(tiers, " -- "), 2u);

  o.level = DrawLevel::kDevice;
  EXPECT_EQ(count(to_dot(g, a, o), " -- "), 16u);  // 8 host links + 8 leaf-spine links

  // Large fabrics collapse on their own.
  const Graph big = expand(build_blueprint("clos-fat-tree", {{"k", "16"}, {"levels", "3"}}));
  EXPECT_EQ(resolve_draw_level(big, DrawOptions{}), DrawLevel::kTier);
}

TEST(Draw, RendersSvgWhenGraphvizIsInstalled) {
  if (!graphviz_available()) GTEST_SKIP() << "Graphviz 'dot' not installed";
  const Graph g = expand(build_blueprint("single-tier", {{"hosts", "3"}}));
  const std::string svg = render_svg(to_dot(g, annotate(g), DrawOptions{}));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("host.2"), std::string::npos);
}

}  // namespace
}  // namespace snr::infra
