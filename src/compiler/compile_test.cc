// Compiled decode / prefill steps and collectives against the reference
// implementation, run functionally on the simulator.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "compiler/compiler.h"
#include "compiler/reference.h"
#include "metrics/model_run.h"
#include "compiler/test_specs.h"
#include "isa/address_map.h"
#include "sim/system.h"
#include "sim/timing.h"

namespace snr::compiler {
namespace {

using metrics::install;
using metrics::read_hbm_f32;
using metrics::system_config;

using testing::small_collective;

// Two layers; the seed differs per chip count so each case draws fresh weights.
Spec small_transformer(Phase phase, uint64_t chips) { return testing::small_transformer(phase, chips, 2, 7 + chips); }

std::vector<float> run_functional(const CompiledModel& model, uint32_t chip, const std::string& output) {
  sim::System system(system_config(model.image));
  install(model.image, system);
  sim::run_functional(system, 100'000'000);
  for (uint32_t c = 0; c < system.chip_count(); ++c) EXPECT_EQ(system.chip(c).exit_code, 0);
  const auto& out = model.image.hbm.at(chip).output(output);
  return read_hbm_f32(system, chip, out.address, out.bytes);
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, uint64_t count) {
  double max_ref = 0, max_err = 0;
  for (uint64_t i = 0; i < count; ++i) {
    max_ref = std::max(max_ref, std::fabs(double(want[i])));
    max_err = std::max(max_err, std::fabs(double(got[i]) - double(want[i])));
    ASSERT_TRUE(std::isfinite(got[i])) << "element " << i;
  }
  // bf16 has 8 significant bits; errors of a few bf16 ulps of the largest
  // value are expected after two layers.
  ::testing::Test::RecordProperty("max_error_ratio", fmt::format("{:.3g} (max {:.3g})", max_err / max_ref, max_ref));
  EXPECT_LT(max_err, 2e-2 * max_ref) << "max error " << max_err << " of max " << max_ref;
}

class TransformerMatchesReference : public ::testing::TestWithParam<std::tuple<Phase, uint64_t>> {};

TEST_P(TransformerMatchesReference, OutputActivations) {
  const auto [phase, chips] = GetParam();
  const CompiledModel model = compile(small_transformer(phase, chips));
  const std::vector<float> want = reference_transformer(model);
  // The layers must change the hidden state noticeably, or agreement with
  // the reference would prove little.
  const GeneratedTensor& input = model.image.hbm[0].tensor("input");
  double max_change = 0;
  for (uint64_t i = 0; i < model.real_rows * model.spec.model.hidden; ++i) {
    const uint64_t cols = model.spec.model.hidden;
    max_change = std::max(max_change, std::fabs(double(want[i]) - input.value(model.spec.seed, i / cols, i % cols)));
  }
  ::testing::Test::RecordProperty("max_change", fmt::format("{:.3g}", max_change));
  EXPECT_GT(max_change, 0.1);
  for (uint32_t chip = 0; chip < chips; ++chip) {
    const std::vector<float> got = run_functional(model, chip, "output");
    expect_close(got, want, model.real_rows * model.spec.model.hidden);
  }
}

TEST(TransformerMatchesReference, VectorLoopsGiveTheSameResult) {
  Spec s = small_transformer(Phase::kDecode, 2);
  s.model.hidden = 640;  // 5 column tiles: loops of 2 plus a straight-line remainder
  s.schedule.vector_unroll = 2;
  const CompiledModel model = compile(s);
  const std::vector<float> want = reference_transformer(model);
  expect_close(run_functional(model, 1, "output"), want, model.real_rows * s.model.hidden);
}

// The K/V schedules move DMAs between head groups; timing mode (data lands
// when a DMA completes, not when it is issued) shows a broken ordering.
TEST(TransformerMatchesReference, KvSchedulesInTimingMode) {
  for (const KvPrefetch prefetch : {KvPrefetch::kLate, KvPrefetch::kAhead}) {
    for (const KvStaging staging : {KvStaging::kStep, KvStaging::kOp}) {
      Spec s = small_transformer(Phase::kDecode, 2);
      s.context = 300;  // three key tiles per head group
      s.schedule.kv_prefetch = prefetch;
      s.schedule.kv_staging = staging;
      SCOPED_TRACE(fmt::format("kv_prefetch {} kv_staging {}", kv_prefetch_name(prefetch), kv_staging_name(staging)));
      const CompiledModel model = compile(s);
      const std::vector<float> want = reference_transformer(model);
      sim::System system(system_config(model.image));
      install(model.image, system);
      sim::TimingSimulator(system).run(100'000'000);
      const auto& out = model.image.hbm.at(1).output("output");
      expect_close(read_hbm_f32(system, 1, out.address, out.bytes), want, model.real_rows * s.model.hidden);
    }
  }
}

// The installed HBM is generated on demand: reading a tensor gives the
// eager generator's bytes and materializes no page; a write materializes
// only its own page, whose other bytes stay the generator's.
TEST(Install, HbmIsGeneratedPerReadAndMaterializedPerWrittenPage) {
  const CompiledModel model = compile(small_transformer(Phase::kDecode, 2));
  sim::System system(system_config(model.image));
  install(model.image, system);
  sim::PagedMemory& hbm = system.chip(1).hbm;
  auto read = [&](uint64_t address, uint64_t bytes) {
    std::vector<uint8_t> out(bytes);
    hbm.read(address - isa::kHbmBase, out);
    return out;
  };
  const std::vector<GeneratedTensor>& tensors = model.image.hbm.at(1).tensors;
  ASSERT_FALSE(tensors.empty());
  for (const GeneratedTensor& t : tensors) {
    EXPECT_EQ(read(t.address, t.size_bytes()), t.materialize(model.image.seed)) << t.name;
  }
  for (const ExplicitRegion& r : model.image.hbm.at(1).regions) EXPECT_EQ(read(r.address, r.bytes.size()), r.bytes) << r.name;
  EXPECT_EQ(hbm.materialized_page_count(), 0u);

  const GeneratedTensor& t = tensors.front();
  const std::vector<uint8_t> want = t.materialize(model.image.seed);
  const uint64_t at = t.size_bytes() / 2;
  hbm.store<uint8_t>(t.address - isa::kHbmBase + at, static_cast<uint8_t>(want[at] ^ 0xFF));
  EXPECT_EQ(hbm.materialized_page_count(), 1u);
  std::vector<uint8_t> got = read(t.address, t.size_bytes());
  EXPECT_EQ(got[at], static_cast<uint8_t>(want[at] ^ 0xFF));
  got[at] = want[at];
  EXPECT_EQ(got, want) << "bytes around the write are the generator's";
  EXPECT_EQ(hbm.load<uint16_t>(t.address - isa::kHbmBase), static_cast<uint16_t>(want[0] | want[1] << 8));
  EXPECT_EQ(hbm.materialized_page_count(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Steps, TransformerMatchesReference,
                         ::testing::Combine(::testing::Values(Phase::kDecode, Phase::kPrefill),
                                            ::testing::Values(1, 2, 4)));

class CollectiveIsExact : public ::testing::TestWithParam<std::tuple<CollectiveOp, SetupMode>> {};

TEST_P(CollectiveIsExact, Buffers) {
  const auto [op, mode] = GetParam();
  const CompiledModel model = compile(small_collective(op, mode, 4 * 8192));
  for (uint32_t chip = 0; chip < 4; ++chip) {
    const std::vector<float> got = run_functional(model, chip, "output");
    const std::vector<float> want = reference_collective(model, chip);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "chip " << chip << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(All, CollectiveIsExact,
                         ::testing::Combine(::testing::Values(CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
                                                              CollectiveOp::kAllReduce, CollectiveOp::kAllToAll),
                                            ::testing::Values(SetupMode::kChained, SetupMode::kParallel,
                                                              SetupMode::kPinned)));

}  // namespace
}  // namespace snr::compiler
