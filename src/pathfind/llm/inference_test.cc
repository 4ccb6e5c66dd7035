#include "pathfind/llm/inference.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "pathfind/roofline/gemm.h"

namespace snr::pathfind {
namespace {

// A Llama-2-7B-like shape with grouped-query attention (8 KV heads).
TransformerModel llama() {
  TransformerModel m;
  m.name = "llama-like";
  m.hidden = 4096;
  m.feedforward = 11008;
  m.seq_size = 4096;
  m.attn_heads = 32;
  m.attn_size = 128;
  m.kv_heads = 8;
  m.num_blocks = 32;
  m.vocab_size = 32000;
  m.gated_mlp = true;
  m.norm = NormKind::kRmsNorm;
  m.biases = LinearBiases::kNone;
  return m;
}

Parallelism par(uint64_t tp, uint64_t pp, uint64_t dp) {
  Parallelism p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.devices = tp * pp * dp;
  p.tp_tier = 0;
  p.pp_tier = 0;
  p.dp_tier = 1;
  return p;
}

const KernelTime& kernel(const InferencePrediction& r, std::string_view name) {
  for (const KernelTime& k : r.kernels) {
    if (k.name == name) return k;
  }
  throw Error("no kernel");
}

TEST(PathfindInference, DecodeAttentionStreamsTheKvCache) {
  DeviceSpec a100 = device_preset("a100-80gb");
  InferenceJob job{InferencePhase::kDecode, 16, 1, 2047, DType::kBf16};
  InferencePrediction r = predict_inference(a100, llama(), par(2, 1, 1), job);
  // Per device: 4 KV heads x 128 x 2048 cached tokens x 16 sequences x K and V x 2 bytes,
  // plus the new keys/values and the queries read.
  const double kv_read = 16.0 * 4 * 128 * 2048 * 2 * 2;
  const double bytes = kv_read + 16.0 * 2 * 4 * 128 * 2 + 2 * 16.0 * 16 * 128 * 2;
  const double flops = 4.0 * 16 * 16 * 128 * 2048;
  EXPECT_DOUBLE_EQ(kernel(r, "attn.decode").forward_s, predict_streaming_s(a100, bytes, flops));
  // KV cache per device after the step: 32 blocks x 16 x 2 x 4 x 128 x 2048 x 2 B = 2 GiB.
  EXPECT_DOUBLE_EQ(r.kv_cache_bytes, 32.0 * 16 * 2 * 4 * 128 * 2048 * 2);
  EXPECT_EQ(r.blocks_per_device, 32u);
  EXPECT_NEAR(r.tokens_per_s, 16 / r.step_s, 1e-9);
  EXPECT_TRUE(r.memory.fits);
}

TEST(PathfindInference, DecodeIsBoundByReadingTheWeights) {
  DeviceSpec a100 = device_preset("a100-80gb");
  InferencePrediction r = predict_inference(a100, llama(), par(1, 1, 1), {InferencePhase::kDecode, 1, 1, 127, DType::kBf16});
  // One token reads every weight once: about 13.5 GB at 2039 GB/s x 0.9,
  // plus the preset's fixed cost per kernel; the step cannot be faster than
  // the weights, and the KV cache of 128 tokens adds little.
  const double weights_s = r.memory.weights_bytes / (2039e9 * 0.9);
  const double kernels = static_cast<double>(r.kernels.size() * 32 + r.head_kernels.size());
  EXPECT_GT(r.step_s, weights_s + kernels * a100.kernel_overhead_s);
  EXPECT_LT(r.step_s, weights_s * 1.1 + kernels * a100.kernel_overhead_s);
  EXPECT_EQ(kernel(r, "mlp.fc1").bound, "hbm");
}

TEST(PathfindInference, UntiedEmbeddingsAreASecondMatrixUnlessPipelined) {
  DeviceSpec a100 = device_preset("a100-80gb");
  const InferenceJob job{InferencePhase::kDecode, 1, 1, 127, DType::kBf16};
  TransformerModel untied = llama();
  untied.tied_embeddings = false;
  const double matrix_bytes = 32000.0 * 4096 * 2;
  const double tied_weights = predict_inference(a100, llama(), par(1, 1, 1), job).memory.weights_bytes;
  // Llama-2-7B unpipelined: its blocks plus the embedding and the output layer.
  EXPECT_DOUBLE_EQ(predict_inference(a100, untied, par(1, 1, 1), job).memory.weights_bytes,
                   tied_weights + matrix_bytes);
  EXPECT_DOUBLE_EQ(predict_inference(a100, untied, par(2, 1, 1), job).memory.weights_bytes -
                       predict_inference(a100, llama(), par(2, 1, 1), job).memory.weights_bytes,
                   matrix_bytes / 2);
  // Two stages: the first holds the embedding, the last the output layer.
  EXPECT_DOUBLE_EQ(predict_inference(a100, untied, par(1, 2, 1), job).memory.weights_bytes,
                   predict_inference(a100, llama(), par(1, 2, 1), job).memory.weights_bytes);
}

// With fewer key/value heads than ranks each rank keeps a whole copy of its
// head's K and V projections: 8 heads on 8 ranks and on 16 ranks hold the
// same K/V weights per rank. They used to be divided by tp like the rest
// (Llama shape, kv_heads 1 at tp 8: 58.7 MB of 1.48 GB missing).
TEST(PathfindInference, ReplicatedKeyValueHeadsAreWholeCopies) {
  DeviceSpec a100 = device_preset("a100-80gb");
  a100.network[0].size = 16;
  const InferenceJob job{InferencePhase::kDecode, 16, 1, 127, DType::kBf16};
  const double h = 4096, d = 128, layers = 32, e = 2;
  const double kv_head_bytes = layers * 2 * h * d * e;  // one head's K and V projections, every block
  for (uint64_t kv : {uint64_t{1}, uint64_t{4}, uint64_t{8}}) {
    TransformerModel m = llama();
    m.kv_heads = kv;
    const double at8 = predict_inference(a100, m, par(8, 1, 1), job).memory.weights_bytes;
    TransformerModel full = llama();
    full.kv_heads = 8;  // one head per rank at tp 8: nothing replicated
    const double one_head_each = predict_inference(a100, full, par(8, 1, 1), job).memory.weights_bytes;
    EXPECT_DOUBLE_EQ(at8, one_head_each) << kv;
  }
  TransformerModel m = llama();  // 8 heads: split over 8 ranks, copied over 16
  const double at8 = predict_inference(a100, m, par(8, 1, 1), job).memory.weights_bytes;
  const double at16 = predict_inference(a100, m, par(16, 1, 1), job).memory.weights_bytes;
  const double norm_bytes = (layers * 2 + 1) * h * e;  // RMSNorm gains, whole on every rank
  EXPECT_NEAR(at8 - at16, (at8 - kv_head_bytes - norm_bytes) / 2, 1.0);
}

// Published parameter counts: Llama-2-7B (RMSNorm, no biases, untied) is
// 6,738,415,616 (its 65 norms of 4096 were once missing from inference's
// weights); GPT-3 175B (LayerNorm, biases, tied; h = 12288, 96 blocks,
// vocabulary 50257) is 96 (12h^2 + 13h) + 50257 h + 2h without its learned
// position embeddings. Unsharded, inference holds exactly the model.
TEST(PathfindInference, WeightsAreThePublishedParameterCounts) {
  DeviceSpec a100 = device_preset("a100-80gb");
  TransformerModel l2 = llama();
  l2.kv_heads = 32;
  l2.tied_embeddings = false;
  EXPECT_DOUBLE_EQ(l2.total_parameters(), 6738415616.0);
  const InferenceJob job{InferencePhase::kDecode, 1, 1, 127, DType::kBf16};
  EXPECT_DOUBLE_EQ(predict_inference(a100, l2, par(1, 1, 1), job).memory.weights_bytes, 2 * 6738415616.0);

  TransformerModel gpt;
  gpt.name = "gpt3";
  gpt.hidden = 12288;
  gpt.feedforward = 4 * 12288;
  gpt.seq_size = 2048;
  gpt.attn_heads = 96;
  gpt.attn_size = 128;
  gpt.num_blocks = 96;
  gpt.vocab_size = 50257;
  const double h = 12288;
  EXPECT_DOUBLE_EQ(gpt.total_parameters(), 96 * (12 * h * h + 13 * h) + 50257 * h + 2 * h);
  // Qwen2-style: RMSNorm, biases on Q, K and V only (GQA: 512 wide for K and V together here).
  TransformerModel qwen = llama();
  qwen.biases = LinearBiases::kQkv;
  EXPECT_DOUBLE_EQ(qwen.block_parameters() - llama().block_parameters(), 4096 + 2 * 8 * 128);
}

// Each rank holds its share of the split matrices and column-parallel
// biases, and whole copies of the norms and of the row-parallel layers'
// biases (added after the all-reduce).
TEST(PathfindInference, NormsAndRowParallelBiasesAreWholeOnEveryRank) {
  DeviceSpec a100 = device_preset("a100-80gb");
  const InferenceJob job{InferencePhase::kDecode, 1, 1, 127, DType::kBf16};
  TransformerModel layer = llama();
  layer.biases = LinearBiases::kAll;
  layer.norm = NormKind::kLayerNorm;
  const double at1 = predict_inference(a100, layer, par(1, 1, 1), job).memory.weights_bytes;
  const double at2 = predict_inference(a100, layer, par(2, 1, 1), job).memory.weights_bytes;
  const double h = 4096, e = 2;
  const double whole = (32 * (2 * 2 * h + 2 * h) + 2 * h) * e;  // two LayerNorms, two row biases; the final norm
  EXPECT_NEAR(at2, (at1 - whole) / 2 + whole, 1.0);
}

TEST(PathfindInference, PrefillIsComputeBoundAndPipelineAddsStages) {
  DeviceSpec a100 = device_preset("a100-80gb");
  InferenceJob job{InferencePhase::kPrefill, 8, 2048, 0, DType::kBf16};
  InferencePrediction one = predict_inference(a100, llama(), par(1, 1, 1), job);
  EXPECT_EQ(kernel(one, "mlp.fc1").bound, "compute");
  InferencePrediction two = predict_inference(a100, llama(), par(1, 2, 1), job);
  EXPECT_EQ(two.blocks_per_device, 16u);
  // The batch goes through both stages in turn: no faster, plus one transfer.
  EXPECT_NEAR(two.step_s, one.step_s + two.pipeline_p2p_s, one.step_s * 1e-9);
  EXPECT_NEAR(one.tokens_per_s, 8.0 * 2048 / one.step_s, 1e-6);
}

TEST(PathfindInference, BadCombinationsNameTheField) {
  DeviceSpec a100 = device_preset("a100-80gb");
  Parallelism p = par(1, 1, 1);
  p.recompute = Recompute::kFull;
  EXPECT_THROW((void)predict_inference(a100, llama(), p, {}), Error);
  Parallelism sharded = par(1, 1, 1);
  sharded.optimizer_sharding = true;  // no optimizer in inference
  EXPECT_THROW((void)predict_inference(a100, llama(), sharded, {}), Error);
  try {
    (void)predict_inference(a100, llama(), par(1, 1, 2), {InferencePhase::kDecode, 3, 1, 10, DType::kBf16});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("batch"), std::string::npos) << e.what();
  }
  TransformerModel m = llama();
  m.kv_heads = 3;
  EXPECT_THROW((void)predict_inference(a100, m, par(1, 1, 1), {}), Error);
}

}  // namespace
}  // namespace snr::pathfind
