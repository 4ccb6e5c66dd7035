// Compiled multi-chip programs must give the same bits however the chips
// interleave: real chips run at different speeds, so a program that is only
// correct when the chips advance in lockstep has a race. These tests step
// the chips in a seeded random order with random quanta and per-chip speed
// skews, and compare every chip's output bit for bit with the lockstep run
// (transformer steps) or the exact expected buffers (collectives).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "compiler/compiler.h"
#include "compiler/reference.h"
#include "metrics/model_run.h"
#include "compiler/test_specs.h"
#include "sim/executor.h"
#include "sim/system.h"
#include "sim/timing.h"

namespace snr::compiler {
namespace {

using metrics::install;
using metrics::read_hbm_f32;
using metrics::system_config;

constexpr uint64_t kInstructionLimit = 200'000'000;

// Runs every chip functionally in rounds: each round visits the running
// chips in a shuffled order and lets each retire up to a random quantum
// scaled by that chip's speed (1x..64x, fixed per seed), so one chip can run
// thousands of instructions ahead of another. Fails on deadlock.
void run_randomly_interleaved(sim::System& system, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t chips = system.chip_count();
  std::vector<uint64_t> speed(chips);
  for (auto& s : speed) s = uint64_t{1} << (rng() % 7);
  std::vector<uint32_t> order(chips);
  std::iota(order.begin(), order.end(), 0u);
  sim::Executor executor(system);
  uint64_t total = 0;
  while (true) {
    std::shuffle(order.begin(), order.end(), rng);
    bool progressed = false, all_finished = true;
    for (uint32_t c : order) {
      sim::ChipState& chip = system.chip(c);
      if (chip.status == sim::ChipStatus::kExited || chip.status == sim::ChipStatus::kBreak) continue;
      all_finished = false;
      const uint64_t quantum = 1 + rng() % (64 * speed[c]);
      uint64_t retired = 0;
      const sim::StepResult result = executor.run(chip, quantum, retired);
      if (result == sim::StepResult::kExited || result == sim::StepResult::kBreak) ++retired;
      total += retired;
      progressed = progressed || retired > 0;
    }
    if (all_finished) return;
    ASSERT_TRUE(progressed) << "deadlock: every running chip is blocked (seed " << seed << ")";
    ASSERT_LT(total, kInstructionLimit) << "no exit after " << total << " instructions (seed " << seed << ")";
  }
}

std::vector<uint32_t> as_bits(const std::vector<float>& values) {
  std::vector<uint32_t> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * 4);
  return bits;
}

// Every chip's output after one run; `seed` 0 = the simulator's lockstep run.
std::vector<std::vector<uint32_t>> outputs(const CompiledModel& model, uint64_t seed) {
  sim::System system(system_config(model.image));
  install(model.image, system);
  if (seed == 0) {
    sim::run_functional(system, kInstructionLimit);
  } else {
    run_randomly_interleaved(system, seed);
  }
  std::vector<std::vector<uint32_t>> out;
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    EXPECT_EQ(system.chip(c).exit_code, 0) << "chip " << c;
    const auto& region = model.image.hbm.at(c).output("output");
    out.push_back(as_bits(read_hbm_f32(system, c, region.address, region.bytes)));
  }
  return out;
}

// Three layers: three all-reduce pairs of each parity reuse the receive regions.
Spec transformer_step(Phase phase, uint64_t chips) { return testing::small_transformer(phase, chips, 3, 11 + chips); }

constexpr uint64_t kSeeds[] = {1, 2, 3, 4, 5, 6};

class StepUnderInterleaving : public ::testing::TestWithParam<std::tuple<Phase, uint64_t>> {};

TEST_P(StepUnderInterleaving, BitIdenticalToLockstep) {
  const auto [phase, chips] = GetParam();
  const CompiledModel model = compile(transformer_step(phase, chips));
  const auto want = outputs(model, 0);
  for (uint64_t seed : kSeeds) {
    const auto got = outputs(model, seed);
    ASSERT_EQ(got.size(), want.size());
    for (size_t c = 0; c < got.size(); ++c) {
      ASSERT_EQ(got[c].size(), want[c].size());
      const auto first_difference = std::mismatch(got[c].begin(), got[c].end(), want[c].begin()).first;
      EXPECT_EQ(first_difference - got[c].begin(), got[c].end() - got[c].begin())
          << "seed " << seed << " chip " << c << ": the first differing element";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, StepUnderInterleaving,
                         ::testing::Values(std::tuple{Phase::kDecode, uint64_t{2}},
                                           std::tuple{Phase::kDecode, uint64_t{4}},
                                           std::tuple{Phase::kPrefill, uint64_t{2}}));

class CollectiveUnderInterleaving : public ::testing::TestWithParam<std::tuple<CollectiveOp, SetupMode>> {};

TEST_P(CollectiveUnderInterleaving, ExactForEverySeed) {
  const auto [op, mode] = GetParam();
  const CompiledModel model = compile(testing::small_collective(op, mode, 4 * 8192));
  std::vector<std::vector<uint32_t>> want;
  for (uint32_t chip = 0; chip < 4; ++chip) want.push_back(as_bits(reference_collective(model, chip)));
  for (uint64_t seed : kSeeds) {
    const auto got = outputs(model, seed);
    for (uint32_t chip = 0; chip < 4; ++chip) {
      EXPECT_EQ(got[chip], want[chip]) << "seed " << seed << " chip " << chip;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, CollectiveUnderInterleaving,
                         ::testing::Combine(::testing::Values(CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
                                                              CollectiveOp::kAllReduce, CollectiveOp::kAllToAll),
                                            ::testing::Values(SetupMode::kChained, SetupMode::kParallel,
                                                              SetupMode::kPinned)));

}  // namespace
}  // namespace snr::compiler
