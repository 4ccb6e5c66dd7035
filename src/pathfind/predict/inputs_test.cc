#include <gtest/gtest.h>

#include "common/error.h"
#include "pathfind/predict/strategy.h"
#include "pathfind/predict/workload.h"

namespace snr::pathfind {
namespace {

std::string strategy_error(std::string_view text) {
  try {
    (void)parse_strategy(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PathfindPredictInputs, MegatronNamesBecomeTheNotation) {
  Strategy s = parse_strategy("tp=8,pp=4,dp=2,interleave=2,sp,recompute=selective,zero1");
  EXPECT_EQ(s.notation.to_string(), "CR-8-d2-p4");
  EXPECT_EQ(s.devices(), 64u);
  EXPECT_EQ(s.interleave, 2u);
  EXPECT_TRUE(s.sequence_parallel);
  EXPECT_TRUE(s.optimizer_sharding);
  EXPECT_EQ(s.recompute, Recompute::kSelective);
  EXPECT_EQ(s.to_string(), "CR-8-d2-p4 interleave=2 sp recompute=selective zero1");
  EXPECT_EQ(parse_strategy("dp=8").notation.to_string(), "d8-p1");
  EXPECT_EQ(parse_strategy("RC-K4-K2-d3-p2").devices(), 48u);
}

TEST(PathfindPredictInputs, StrategyErrorsQuoteThePart) {
  EXPECT_NE(strategy_error("tp=0").find("tp=0"), std::string::npos);
  EXPECT_NE(strategy_error("tp=8,ep=2").find("unknown part 'ep=2'"), std::string::npos);
  EXPECT_NE(strategy_error("tp=8,recompute=some").find("recompute=some"), std::string::npos);
  EXPECT_NE(strategy_error("RC-4-d3-p2").find("RC"), std::string::npos);
  // A part given twice is refused, not silently its last value.
  EXPECT_NE(strategy_error("tp=2,tp=4").find("'tp' is given more than once"), std::string::npos);
  EXPECT_NE(strategy_error("tp=2,sp,sp").find("'sp' is given more than once"), std::string::npos);
}

constexpr std::string_view kWorkload = R"(workload:
  name: gpt3-175B
  kind: transformer
  model: {hidden: 12288, heads: 96, head_dim: 128, ffn: 49152, layers: 96, vocab: 51200}
  phase: training
  batch: 1536
  microbatch: 1
  sequence: 2048
  dtype: fp16
)";

TEST(PathfindPredictInputs, WorkloadReads) {
  Workload w = parse_workload_yaml(kWorkload, "w.yaml");
  EXPECT_EQ(w.model.num_blocks, 96u);
  EXPECT_EQ(w.model.seq_size, 2048u);
  EXPECT_EQ(w.model.key_value_heads(), 96u);
  EXPECT_EQ(w.batch, 1536u);
  EXPECT_EQ(w.dtype, DType::kFp16);
  EXPECT_TRUE(w.model.tied_embeddings);
  Workload untied = parse_workload_yaml(
      std::string(kWorkload).replace(std::string(kWorkload).find("vocab: 51200"), 12,
                                     "vocab: 51200, tied_embeddings: false"),
      "w.yaml");
  EXPECT_FALSE(untied.model.tied_embeddings);
  // Norms and biases follow the family of the activation unless given.
  EXPECT_EQ(w.model.norm, NormKind::kLayerNorm);
  EXPECT_EQ(w.model.biases, LinearBiases::kAll);
  auto model_with = [&](std::string_view extra) {
    std::string text(kWorkload);
    text.replace(text.find("vocab: 51200"), 12, "vocab: 51200, " + std::string(extra));
    return parse_workload_yaml(text, "w.yaml").model;
  };
  const TransformerModel llama = model_with("activation: silu");
  EXPECT_EQ(llama.norm, NormKind::kRmsNorm);
  EXPECT_EQ(llama.biases, LinearBiases::kNone);
  const TransformerModel qwen = model_with("activation: silu, biases: qkv");
  EXPECT_EQ(qwen.biases, LinearBiases::kQkv);
  EXPECT_EQ(model_with("norm: rmsnorm").norm, NormKind::kRmsNorm);
  EXPECT_DOUBLE_EQ(workload_parameters(w), w.model.total_parameters());
  Workload g = parse_workload_yaml("workload: {name: g, kind: gemm, gemm: {m: 8, n: 16, k: 32}}", "g.yaml");
  EXPECT_EQ(g.gemm.k, 32u);
}

TEST(PathfindPredictInputs, WorkloadErrorsNameTheField) {
  auto error = [](std::string text) {
    try {
      (void)parse_workload_yaml(text, "w.yaml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string base(kWorkload);
  auto with = [&](std::string_view from, std::string_view to) {
    std::string t = base;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_NE(error(with("phase: training", "phase: serving")).find("phase"), std::string::npos);
  EXPECT_NE(error(with("heads: 96", "heads: 0")).find("heads"), std::string::npos);
  EXPECT_NE(error(with("dtype: fp16", "dtype: fp8")).find("dtype"), std::string::npos);
  EXPECT_NE(error(with("layers: 96", "layer: 96")).find("layer"), std::string::npos);
  EXPECT_NE(error(with("kind: transformer", "kind: rnn")).find("kind"), std::string::npos);
  EXPECT_NE(error(with("kind: transformer", "kind: lstm")).find("model.heads"), std::string::npos);
  EXPECT_NE(error(with("vocab: 51200", "vocab: 51200, tied_embeddings: no")).find("tied_embeddings"),
            std::string::npos);
  EXPECT_NE(error(with("vocab: 51200", "vocab: 51200, norm: batchnorm")).find("model.norm: 'batchnorm' is not"),
            std::string::npos);
  EXPECT_NE(error(with("vocab: 51200", "vocab: 51200, biases: some")).find("model.biases: 'some' is not all, qkv"),
            std::string::npos);
  // A decode step's cache and new token must fit the sequence (a context of
  // 17 on a sequence of 16 was predicted as given).
  const std::string decode = with("phase: training\n  batch: 1536\n  microbatch: 1\n  sequence: 2048",
                                  "phase: decode\n  batch: 8\n  sequence: 2048\n  context: 2048");
  EXPECT_NE(error(decode).find("w.yaml:8: workload.context: 2048 cached tokens and the new one exceed the sequence "
                               "of 2048"),
            std::string::npos)
      << error(decode);
  std::string fits = decode;
  fits.replace(fits.find("context: 2048"), 13, "context: 2047");
  EXPECT_EQ(error(fits), "");
}

}  // namespace
}  // namespace snr::pathfind
