#include "hw/topology.h"

#include <gtest/gtest.h>

namespace snr::hw {
namespace {

HwConfig with(std::string_view kind, uint64_t chips) {
  HwConfig c = preset("tpu-v4-like");
  c.set("topology.kind", kind);
  c.set("chips", std::to_string(chips));
  return c;
}

TEST(Topology, RingTakesShorterWay) {
  Topology t(with("ring", 8));
  EXPECT_EQ(t.route(0, 1).size(), 1u);
  EXPECT_EQ(t.route(0, 7).size(), 1u);
  EXPECT_EQ(t.route(0, 4).size(), 4u);  // tie goes forward
  const Link& first = t.links()[t.route(0, 4)[0]];
  EXPECT_EQ(first.to_chip, 1u);
  EXPECT_TRUE(t.route(3, 3).empty());
}

TEST(Topology, TorusRoutesXThenY) {
  Topology t(with("torus2d", 16));
  EXPECT_EQ(t.torus_width(), 4u);
  auto hops = t.route(0, 5);  // (0,0) -> (1,1)
  ASSERT_EQ(hops.size(), 2u);
  EXPECT_EQ(t.links()[hops[0]].to_chip, 1u);
  EXPECT_EQ(t.links()[hops[1]].to_chip, 5u);
  EXPECT_EQ(t.route(0, 3).size(), 1u);  // wraps
  EXPECT_EQ(t.route(0, 10).size(), 4u);
}

TEST(Topology, FullyConnectedIsOneHopAndChecksLinkCount) {
  Topology t(with("fully_connected", 4));
  EXPECT_EQ(t.route(2, 0).size(), 1u);
  EXPECT_EQ(t.links().size(), 12u);
  EXPECT_THROW(Topology(with("fully_connected", 16)), Error);
}

TEST(Topology, TorusWidthMustDivide) {
  HwConfig c = with("torus2d", 6);
  c.set("topology.torus_width", "4");
  EXPECT_THROW(Topology{c}, Error);
}

TEST(Topology, OutOfRangeChipIsAnError) {
  Topology t(with("ring", 2));
  EXPECT_THROW((void)t.route(0, 2), Error);
}

}  // namespace
}  // namespace snr::hw
