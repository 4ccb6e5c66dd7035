// End-to-end properties of fit -> sample: the synthesized traces follow the
// inputs' collective mix and size distribution at a larger NPU count, and
// replay without violating process-group constraints.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "et/generate/feeder_replay.h"
#include "et/generate/patterns.h"
#include "et/generate/workload_check.h"
#include "et/synth/comm_model.h"
#include "et/synth/sampler.h"
#include "et/synth/trace_stats.h"

namespace snr::et::synth {
namespace {

// Stated tolerances (docs/synthesis.md): on 20,000 sampled collectives the
// type mix is within total variation 0.05 of the input and the KS statistic
// of log2 sizes is at most 0.05 (0.06 for continuous sizes fitted by a
// mixture, which must also absorb the mixture's approximation error).
constexpr double kMaxTypeMixDistance = 0.05;
constexpr double kMaxSizeKs = 0.05;
constexpr double kMaxContinuousSizeKs = 0.06;
constexpr uint64_t kSampleLength = 20000;

std::vector<std::pair<std::string, Workload>> realistic_inputs() {
  std::vector<std::pair<std::string, Workload>> inputs;
  const auto add = [&](const std::string& pattern, Rank npus, uint32_t layers, uint64_t size) {
    PatternOptions o;
    o.pattern = pattern;
    o.npus = npus;
    o.layers = layers;
    o.size_bytes = size;
    o.tp_size = 2;
    inputs.emplace_back(pattern, generate_pattern(o));
  };
  add("hybrid", 8, 12, 64 << 20);
  add("hybrid", 8, 24, 16 << 20);
  add("dp", 8, 10, 32 << 20);
  add("tp", 8, 6, 4 << 20);
  add("allgather", 8, 5, 1 << 20);
  return inputs;
}

CommSummary input_summary(const std::vector<std::pair<std::string, Workload>>& inputs) {
  std::vector<MasterTrace> masters;
  for (const auto& [name, w] : inputs) masters.push_back(extract_master_trace(w));
  return summarize(masters);
}

TEST(Synthesis, MatchesTypeMixAndSizesAtLargerScale) {
  const auto inputs = realistic_inputs();
  const CommModel model = fit_comm_model(inputs);
  const MasterTrace sampled = sample_master_trace(model, {.npus = 32, .seed = 11, .length = kSampleLength});
  const CommSummary in = input_summary(inputs);
  const CommSummary out = summarize(std::span<const MasterTrace>(&sampled, 1));
  EXPECT_LE(total_variation_distance(in.type_counts, out.type_counts), kMaxTypeMixDistance);
  EXPECT_LE(ks_statistic(in.log2_sizes, out.log2_sizes), kMaxSizeKs);
  // Per type as well: sizes are conditioned on the type.
  for (const auto& t : model.types) {
    std::vector<double> a, b;
    std::vector<MasterTrace> masters;
    for (const auto& [name, w] : inputs) masters.push_back(extract_master_trace(w));
    for (const auto& m : masters) {
      for (const auto& r : m.records) {
        if (r.comm_type == t.comm_type) a.push_back(std::log2(static_cast<double>(r.size_bytes)));
      }
    }
    for (const auto& r : sampled.records) {
      if (r.comm_type == t.comm_type) b.push_back(std::log2(static_cast<double>(r.size_bytes)));
    }
    ASSERT_FALSE(b.empty()) << "type " << t.comm_type << " never sampled";
    EXPECT_LE(ks_statistic(a, b), kMaxSizeKs) << "type " << t.comm_type;
  }
}

TEST(Synthesis, SampledTracesReplayOnEveryProcessGroup) {
  const CommModel model = fit_comm_model(realistic_inputs());
  ASSERT_EQ(model.scopes.size(), 3u);  // world, tensor-parallel blocks, data-parallel stride
  for (Rank npus : {16u, 64u}) {
    const MasterTrace master = sample_master_trace(model, {.npus = npus, .seed = 5, .length = 300});
    const Workload w = project_master_trace(master, npus);
    ASSERT_EQ(w.ranks.size(), npus);
    const WorkloadCheck check = check_workload(w);
    EXPECT_TRUE(check.ok()) << check.summary();
    EXPECT_EQ(check.collectives, 300u * npus);
    const ReplayResult replay = replay_with_feeders(w);
    EXPECT_TRUE(replay.completed) << replay.stuck;
    EXPECT_EQ(replay.collectives_completed * 1, [&] {
      uint64_t group_ops = 0;  // one operation per group per master record
      for (const auto& r : master.records) {
        group_ops += r.scope.kind == GroupScope::Kind::kWorld ? 1
                     : r.scope.kind == GroupScope::Kind::kBlock ? npus / r.scope.width
                                                                : r.scope.width;
      }
      return group_ops;
    }());
  }
  const MasterTrace master = sample_master_trace(model, {.npus = 7, .seed = 5, .length = 300});
  EXPECT_THROW(project_master_trace(master, 7), Error);  // tensor-parallel blocks of 2 need an even count
}

TEST(Synthesis, ContinuousSizesFollowTheFittedMixture) {
  // Two collective types whose sizes come from known log-normal mixtures.
  Random random(2024);
  GaussianMixture reduce_sizes{{{0.4, 12.0, 0.7}, {0.6, 22.0, 1.2}}};
  GaussianMixture gather_sizes{{{1.0, 16.0, 1.0}}};
  WorkloadBuilder w(4);
  for (int i = 0; i < 3000; ++i) {
    const bool reduce = random.uniform() < 0.65;
    const double log_size = reduce ? reduce_sizes.sample(random) : gather_sizes.sample(random);
    const auto size = static_cast<uint64_t>(std::llround(std::exp2(log_size)));
    for (Rank r = 0; r < 4; ++r) {
      w.collective(r, "c", reduce ? ChakraProtoMsg::ALL_REDUCE : ChakraProtoMsg::ALL_GATHER, size,
                   ProcessGroups::world());
    }
  }
  const std::vector<std::pair<std::string, Workload>> inputs = {{"mixture", w.workload()}};
  const CommModel model = fit_comm_model(inputs);
  ASSERT_EQ(model.types.size(), 2u);
  const TypeModel& reduce_model = model.types[0];
  ASSERT_EQ(reduce_model.comm_type, ChakraProtoMsg::ALL_REDUCE);
  EXPECT_TRUE(reduce_model.sizes_bytes.atoms.empty());
  ASSERT_EQ(reduce_model.sizes_bytes.mixture.components.size(), 2u);
  EXPECT_NEAR(reduce_model.sizes_bytes.mixture.components[0].mean, 12.0, 0.15);
  EXPECT_NEAR(reduce_model.sizes_bytes.mixture.components[1].mean, 22.0, 0.15);
  EXPECT_NEAR(reduce_model.sizes_bytes.mixture.components[0].weight, 0.4, 0.04);

  const MasterTrace sampled = sample_master_trace(model, {.npus = 16, .seed = 3, .length = kSampleLength});
  const CommSummary in = input_summary(inputs);
  const CommSummary out = summarize(std::span<const MasterTrace>(&sampled, 1));
  EXPECT_LE(total_variation_distance(in.type_counts, out.type_counts), kMaxTypeMixDistance);
  EXPECT_LE(ks_statistic(in.log2_sizes, out.log2_sizes), kMaxContinuousSizeKs);
}

TEST(Synthesis, RepeatedSizesKeepTheirAutocorrelation) {
  // Runs of four equal sizes drawn from eight buckets.
  Random random(77);
  WorkloadBuilder w(2);
  for (int run = 0; run < 1000; ++run) {
    const uint64_t size = uint64_t{1} << (10 + random.pick(std::vector<double>(8, 1.0)));
    for (int k = 0; k < 4; ++k) {
      for (Rank r = 0; r < 2; ++r) w.collective(r, "ar", ChakraProtoMsg::ALL_REDUCE, size, ProcessGroups::world());
    }
  }
  const auto repeat_fraction = [](const MasterTrace& m) {
    size_t same = 0;
    for (size_t i = 1; i < m.records.size(); ++i) same += m.records[i].size_bytes == m.records[i - 1].size_bytes;
    return static_cast<double>(same) / static_cast<double>(m.records.size() - 1);
  };
  const std::vector<std::pair<std::string, Workload>> inputs = {{"runs", w.workload()}};
  const CommModel model = fit_comm_model(inputs);
  // Within runs 3 of 4 neighbours repeat; run boundaries repeat by chance (1/8).
  EXPECT_NEAR(model.types[0].repeat_size_probability, 0.75, 0.03);
  const MasterTrace sampled = sample_master_trace(model, {.npus = 2, .seed = 1, .length = kSampleLength});
  EXPECT_NEAR(repeat_fraction(sampled), repeat_fraction(extract_master_trace(w.workload())), 0.03);
}

TEST(Synthesis, SamplingIsDeterministicPerSeed) {
  const CommModel model = fit_comm_model(realistic_inputs());
  const auto a = sample_master_trace(model, {.npus = 8, .seed = 9, .length = std::nullopt});
  const auto b = sample_master_trace(model, {.npus = 8, .seed = 9, .length = std::nullopt});
  const auto c = sample_master_trace(model, {.npus = 8, .seed = 10, .length = a.records.size()});
  ASSERT_EQ(a.records.size(), b.records.size());
  bool differs = false;
  for (size_t i = 0; i < a.records.size(); ++i) {
    EXPECT_EQ(a.records[i].size_bytes, b.records[i].size_bytes);
    EXPECT_EQ(a.records[i].comm_type, b.records[i].comm_type);
    differs = differs || a.records[i].size_bytes != c.records[i].size_bytes || a.records[i].comm_type != c.records[i].comm_type;
  }
  EXPECT_TRUE(differs);
}

TEST(Synthesis, FitsAstraSimMicrobenchmarks) {
  const char* data = std::getenv("SNR_SHARED_DATA");
  const std::filesystem::path root = data ? std::filesystem::path(data) / "astra-sim/workload/microbenchmarks" : "";
  if (root.empty() || !std::filesystem::exists(root)) GTEST_SKIP() << "SNR_SHARED_DATA/astra-sim microbenchmarks not present";
  std::vector<std::pair<std::string, Workload>> inputs;
  for (const char* collective : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}) {
    for (const char* scale : {"4npus_1MB", "8npus_1MB", "16npus_1MB"}) {
      const auto prefix = root / collective / scale / collective;
      inputs.emplace_back(prefix.string(), read_workload(prefix));
    }
  }
  const CommModel model = fit_comm_model(inputs);
  ASSERT_EQ(model.types.size(), 4u);
  for (const auto& t : model.types) {
    EXPECT_EQ(t.count, 3u);
    ASSERT_EQ(t.sizes_bytes.atoms.size(), 1u);
    EXPECT_EQ(t.sizes_bytes.atoms[0].value, 1u << 20);
  }
  const MasterTrace master = sample_master_trace(model, {.npus = 64, .seed = 1, .length = 400});
  const CommSummary in = input_summary(inputs);
  const CommSummary out = summarize(std::span<const MasterTrace>(&master, 1));
  EXPECT_LE(total_variation_distance(in.type_counts, out.type_counts), 0.1);  // 400 draws of a uniform 4-way mix
  const WorkloadCheck check = check_workload(project_master_trace(master, 64));
  EXPECT_TRUE(check.ok()) << check.summary();
}

TEST(TraceStats, DistancesOnKnownInputs) {
  EXPECT_DOUBLE_EQ(total_variation_distance({{0, 1}, {1, 1}}, {{0, 1}, {1, 1}}), 0.0);
  EXPECT_DOUBLE_EQ(total_variation_distance({{0, 3}, {1, 1}}, {{0, 1}, {1, 1}}), 0.25);
  EXPECT_DOUBLE_EQ(total_variation_distance({{0, 1}}, {{1, 1}}), 1.0);
  const std::vector<double> a = {1, 2, 3, 4}, b = {1, 2, 3, 4}, c = {5, 6};
  EXPECT_DOUBLE_EQ(ks_statistic(a, b), 0.0);
  EXPECT_DOUBLE_EQ(ks_statistic(a, c), 1.0);
  EXPECT_DOUBLE_EQ(ks_statistic(std::vector<double>{1, 1, 2, 2}, std::vector<double>{1, 2, 2, 2}), 0.25);
  EXPECT_THROW(ks_statistic(a, std::vector<double>{}), Error);
}

}  // namespace
}  // namespace snr::et::synth
