#include "sim/state_access.h"

#include <gtest/gtest.h>

#include <cstring>

#include "common/error.h"
#include "sim/npu_math.h"
#include "sim/sim_test_util.h"

namespace snr::sim {
namespace {

std::span<const uint8_t> bytes_of_u64(const uint64_t& value) {
  return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&value), sizeof(value));
}

TEST(StateAccess, InstallingEitherCounterSetsInstretAndCycle) {
  ChipState chip(0, testing::round_number_config());
  const uint64_t count = 1234;
  install_state(chip, isa::StateKind::kCsr, isa::kCsrCycle, bytes_of_u64(count));
  EXPECT_EQ(chip.instret, count);
  EXPECT_EQ(chip.cycle, count);
  const uint64_t later = 5678;
  install_state(chip, isa::StateKind::kCsr, isa::kCsrInstret, bytes_of_u64(later));
  EXPECT_EQ(chip.instret, later);
  EXPECT_EQ(chip.cycle, later);
  uint64_t read = 0;
  std::memcpy(&read, state_bytes(chip, isa::StateKind::kCsr, isa::kCsrCycle).data(), sizeof(read));
  EXPECT_EQ(read, later);
  // The system's CSRs are not chip state: installing them changes nothing.
  install_state(chip, isa::StateKind::kCsr, isa::kCsrMhartid, bytes_of_u64(count));
  EXPECT_EQ(chip.instret, later);
  EXPECT_THROW((void)state_bytes(chip, isa::StateKind::kCsr, isa::kCsrMhartid), Error);
}

TEST(StateAccess, WeightWritesKeepTheF32CacheInStep) {
  ChipState chip(0, testing::round_number_config());
  const uint16_t one_and_a_half = bf16_from_f32(1.5f);
  // A partial write (a debugger's) of the third weight only.
  const std::span<const uint8_t> piece(reinterpret_cast<const uint8_t*>(&one_and_a_half), 2);
  ASSERT_TRUE(write_state_bytes(chip, isa::StateKind::kMxuWeights, 0, 2 * 2, piece));
  EXPECT_EQ(chip.mxu[0].weights_f32[2], 1.5f);
  EXPECT_EQ(chip.mxu[0].weights_f32[1], 0.0f);
  // Past the end of the tile: refused, nothing written.
  const uint64_t tile_bytes = chip.mxu[0].weights_bf16.size() * 2;
  EXPECT_FALSE(write_state_bytes(chip, isa::StateKind::kMxuWeights, 0, tile_bytes - 1, piece));
}

TEST(StateAccess, InstallChecksSizeAndExistence) {
  ChipState chip(3, testing::round_number_config());
  const uint64_t value = 7;
  install_state(chip, isa::StateKind::kX, 5, bytes_of_u64(value));
  EXPECT_EQ(chip.x[5], 7u);
  install_state(chip, isa::StateKind::kX, 0, bytes_of_u64(value));  // x0 stays zero
  EXPECT_EQ(chip.x[0], 0u);
  EXPECT_THROW(install_state(chip, isa::StateKind::kX, 5, bytes_of_u64(value).first(4)), Error);
  EXPECT_THROW(install_state(chip, isa::StateKind::kMxuWeights, 99, bytes_of_u64(value)), Error);
}

// A window recorded with more matrix units than the replay's hardware says
// which unit and which key (it said only "mxuacc2 does not exist").
TEST(StateAccess, AMissingMatrixUnitNamesTheCountToGive) {
  hw::HwConfig config = testing::round_number_config();
  config.set("mxu.count", "2");
  const ChipState chip(0, config);
  try {
    (void)state_bytes(chip, isa::StateKind::kMxuAccumulator, 2);
    ADD_FAILURE() << "matrix unit 2 of 2 was read";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("which has 2 ("), std::string::npos) << what;
    EXPECT_NE(what.find("give mxu.count 3 or more"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace snr::sim
