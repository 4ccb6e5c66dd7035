#include "pathfind/roofline/dataflow.h"

#include <gtest/gtest.h>

namespace snr::pathfind {
namespace {

// Equation 5 by hand on a 16x16 array, tile 64x128x32, 1e6 flops.
TEST(PathfindDataflow, Equation5ByHand) {
  const double f = 1e6;
  // WS: K = 64/16 = 4 -> (256 + 64 + 64) / (2*4*256) = 0.1875
  EXPECT_DOUBLE_EQ(reuse_factor(Dataflow::kWeightStationary, 64, 128, 32, 16, 16), 4);
  EXPECT_DOUBLE_EQ(register_accesses(f, 4, 16, 16), 0.1875e6);
  // AS: K = 128/16 = 8 -> (256 + 128 + 128) / 4096 = 0.125
  EXPECT_DOUBLE_EQ(reuse_factor(Dataflow::kActivationStationary, 64, 128, 32, 16, 16), 8);
  EXPECT_DOUBLE_EQ(register_accesses(f, 8, 16, 16), 0.125e6);
  // OS: K = 32/16 = 2 -> (256 + 32 + 32) / 1024 = 0.3125
  EXPECT_DOUBLE_EQ(reuse_factor(Dataflow::kOutputStationary, 64, 128, 32, 16, 16), 2);
  EXPECT_DOUBLE_EQ(register_accesses(f, 2, 16, 16), 0.3125e6);
  // No reuse below one array's worth: K = max(1, 8/16) -> (256 + 32) / 512 = 0.5625
  EXPECT_DOUBLE_EQ(reuse_factor(Dataflow::kWeightStationary, 8, 8, 8, 16, 16), 1);
  EXPECT_DOUBLE_EQ(register_accesses(f, 1, 16, 16), 0.5625e6);
  // Non-square array, 8x4, K = 3: (32 + 24 + 12) / (2*3*32) = 68/192
  EXPECT_DOUBLE_EQ(register_accesses(192, 3, 8, 4), 68);
}

TEST(PathfindDataflow, BestPicksFewestAccesses) {
  DataflowChoice c = choose_dataflow(Dataflow::kBest, 1e6, 64, 128, 32, 16, 16);
  EXPECT_EQ(c.dataflow, Dataflow::kActivationStationary);
  EXPECT_DOUBLE_EQ(c.accesses, 0.125e6);
  DataflowChoice fixed = choose_dataflow(Dataflow::kOutputStationary, 1e6, 64, 128, 32, 16, 16);
  EXPECT_EQ(fixed.dataflow, Dataflow::kOutputStationary);
  EXPECT_DOUBLE_EQ(fixed.accesses, 0.3125e6);
  // Tie (square tile, WS and AS equal): ws wins.
  EXPECT_EQ(choose_dataflow(Dataflow::kBest, 1e6, 64, 64, 16, 16, 16).dataflow, Dataflow::kWeightStationary);
}

}  // namespace
}  // namespace snr::pathfind
