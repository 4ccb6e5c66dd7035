// Megatron-style transformer training iteration (seed 004 §6.5 applied to
// an LLM layer stack): tensor parallelism (TP) with all-reduce or with
// sequence parallelism (reduce-scatter + all-gather), pipeline parallelism
// (PP) with 1F1B and interleaving, data parallelism (DP), activation
// recomputation (none, full, selective = attention core only), and the
// memory footprint per device with an out-of-memory verdict.
//
// Every kernel of a block is predicted by the GEMM roofline (matrix
// products) or the streaming model (elementwise ops); collectives are timed
// on the network tier the parallel dimension is mapped to. The pipeline is
// the resource-constrained critical path of 1F1B: (m*v + p - 1) chunk
// slots of forward+backward, so the bubble is (p-1)/(v*m) of the steady state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pathfind/inputs/device.h"

namespace snr::pathfind {

// How a block normalizes its input: LayerNorm (GPT, Megatron: a gain and a
// bias per feature) or RMSNorm (Llama: a gain only).
enum class NormKind : uint8_t { kLayerNorm, kRmsNorm };
// Which linear layers add a bias: all of them (GPT, Megatron), only the
// query/key/value projection (Qwen2), none (Llama).
enum class LinearBiases : uint8_t { kAll, kQkv, kNone };

struct TransformerModel {
  std::string name;
  uint64_t hidden = 0;
  uint64_t feedforward = 0;
  uint64_t seq_size = 0;
  uint64_t attn_heads = 0;
  uint64_t attn_size = 0;  // per head
  uint64_t num_blocks = 0;
  // Vocabulary of the embedding and the output layer (0: no embedding/head).
  // The output layer runs on the last pipeline stage, making it the slowest.
  uint64_t vocab_size = 0;
  // Key/value heads (grouped-query attention); 0 means attn_heads. Training
  // splits them over the tensor-parallel ranks (its stored activations stay
  // Korthikanti et al.'s multi-head figures, an upper bound); inference
  // replicates them when there are fewer than ranks.
  uint64_t kv_heads = 0;
  // Gated MLP (SwiGLU: gate and up projections, then down) instead of two
  // matrices around a GeLU: the first GEMM is twice as wide.
  bool gated_mlp = false;
  // The input embedding and the output layer share one vocab x hidden
  // matrix (GPT, Megatron) or have one each (Llama).
  bool tied_embeddings = true;
  NormKind norm = NormKind::kLayerNorm;
  LinearBiases biases = LinearBiases::kAll;
  void validate() const;
  // Weights of one block: the query/key/value projection (key_value_heads()
  // of them for K and V), the output projection, the MLP matrices, the
  // biases the model has and two norms.
  [[nodiscard]] double block_parameters() const;
  // One norm's weights (the final norm after the last block is one more).
  [[nodiscard]] double norm_parameters() const {
    return (norm == NormKind::kLayerNorm ? 2.0 : 1.0) * static_cast<double>(hidden);
  }
  // The whole model: blocks, the embedding (and an untied output layer) and
  // the final norm. Learned position embeddings (GPT-2/3: sequence x hidden)
  // are not modelled and not counted.
  [[nodiscard]] double total_parameters() const;
  // Embedding and output-layer weights on the device that holds the most of
  // them: the first stage holds the embedding, the last the output layer
  // (Megatron keeps a copy of a tied matrix on both), so only an untied
  // model that is not pipelined holds two matrices.
  [[nodiscard]] double embedding_parameters_per_stage(uint64_t pipeline_stages) const {
    const double matrices = tied_embeddings || pipeline_stages > 1 ? 1.0 : 2.0;
    return matrices * static_cast<double>(vocab_size) * static_cast<double>(hidden);
  }
  [[nodiscard]] uint64_t key_value_heads() const { return kv_heads == 0 ? attn_heads : kv_heads; }
};

enum class Recompute { kNone, kFull, kSelective };
std::string_view recompute_name(Recompute r);

// What the user called each field of Parallelism, so that a refusal names
// the input that was given: the --parallelism names by default, a Calculon
// execution file's own keys (with the file as `where`) for pathfind train.
struct ParallelismNames {
  std::string where = "parallelism";
  std::string devices = "devices", tp = "tp", pp = "pp", dp = "dp", interleave = "interleave";
  std::string sequence_parallel = "sequence_parallel", redo_all_gather = "redo_all_gather";
  std::string tp_tier = "tp_tier", pp_tier = "pp_tier", dp_tier = "dp_tier";
};

struct Parallelism {
  uint64_t devices = 1;
  uint64_t tp = 1;
  uint64_t pp = 1;
  uint64_t dp = 1;
  uint64_t interleave = 1;       // virtual pipeline stages per device
  bool sequence_parallel = false;  // TP comms as reduce-scatter + all-gather, norms/dropout sharded
  bool redo_all_gather = false;    // sequence parallel: repeat the all-gathers in backward instead of keeping them
  Recompute recompute = Recompute::kNone;
  bool optimizer_sharding = false;
  // The MLP activation fused into the first MLP GEMM (Calculon's
  // fused_activation): its input is not kept for backward, so the stored
  // activations lose the activation's input (f/h · 2sbh/t bytes per block).
  bool fused_activation = false;
  // Network tier (index into DeviceSpec::network) each dimension communicates over.
  size_t tp_tier = 0, pp_tier = 1, dp_tier = 1;
  ParallelismNames names;
  // Throws naming the field (by `names`) when the product differs from
  // `devices`, a tier does not exist or is too small, dimensions sharing a
  // tier need more devices than it reaches, or the layers do not split.
  void validate(const TransformerModel& model, const DeviceSpec& device) const;
};

struct TrainingJob {
  uint64_t global_batch = 1;  // sequences per iteration
  uint64_t microbatch = 1;
  DType dtype = DType::kFp16;
  bool training = true;
};

inline constexpr double kSustainedComputeFraction = 0.88;

// Constants of the iteration model that are not hardware figures; the
// values used for validation and how they were obtained are in docs/pathfind.md.
struct IterationConstants {
  // Fraction of the single-kernel matrix rate a device sustains through a
  // long multi-device training run (clock and power limits under continuous
  // load). Fitted on the four full-recompute rows of Korthikanti et al.
  // Table 5; the four sequence-parallel rows are held out (docs/pathfind.md).
  double sustained_compute_fraction = kSustainedComputeFraction;
  // Backward of an elementwise kernel moves this many times the forward bytes.
  double elementwise_backward_ratio = 2.0;
  // Optimizer step: bytes read+written per parameter (fp16 weight and grad, fp32 master, Adam moments).
  double optimizer_bytes_per_parameter = 36;
};

enum class KernelKind { kGemm, kStream, kComm };
std::string_view kernel_kind_name(KernelKind kind);  // "gemm", "stream", "comm"

// One kernel of one block, for one microbatch on one device.
enum class CollectiveKind { kNone, kAllReduce, kAllGather, kReduceScatter };
std::string_view collective_kind_name(CollectiveKind kind);  // "", "all_reduce", "all_gather", "reduce_scatter"

struct KernelTime {
  std::string name;
  KernelKind kind = KernelKind::kGemm;
  std::string bound;   // "compute", a memory level or a network tier
  double forward_s = 0;
  double backward_s = 0;
  double recompute_s = 0;
  // Communication kernels: the collective run forward and the one run
  // backward (recompute repeats the forward one), over the whole tensor of
  // `comm_bytes`; what a trace writer needs to replay the kernel.
  CollectiveKind forward_collective = CollectiveKind::kNone;
  CollectiveKind backward_collective = CollectiveKind::kNone;
  double comm_bytes = 0;
  // The device's fixed per-kernel cost (kernel_overhead_s per launch)
  // within forward_s + backward_s + recompute_s: launch and
  // synchronisation, not the kernel's bound.
  double overhead_s = 0;
};

struct MemoryFootprint {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double total_bytes = 0;
  double capacity_bytes = 0;
  bool fits = true;
};

struct IterationPrediction {
  double iteration_s = 0;
  double block_forward_s = 0;    // one block, one microbatch
  double block_backward_s = 0;   // incl. recompute
  double pipeline_s = 0;         // (m*v + p - 1) chunk slots
  double bubble_s = 0;
  double pipeline_p2p_s = 0;     // per microbatch, per stage, included in the slots
  double pipeline_message_bytes = 0;  // one boundary transfer (activation or its gradient)
  double head_s = 0;             // output layer + loss, one microbatch, forward + backward (last stage)
  double dp_allreduce_s = 0;
  double dp_allreduce_bytes = 0;  // gradients of one device
  double optimizer_s = 0;
  uint64_t microbatches = 0;
  uint64_t blocks_per_device = 0;
  // Forward (x3 in training) GEMM flops of a device's blocks, plus 1/p of
  // the output layer's; no recompute (docs/pathfind.md, "MFU").
  double model_flops_per_device = 0;
  double mfu = 0;                     // model flops / (iteration * peak)
  std::vector<KernelTime> kernels;    // one block
  std::vector<KernelTime> head_kernels;  // output layer and loss (last stage)
  MemoryFootprint memory;
};

IterationPrediction predict_training_iteration(const DeviceSpec& device, const TransformerModel& model,
                                               const Parallelism& par, const TrainingJob& job,
                                               const IterationConstants& constants = {});

// Ring collectives over `n` devices of a tier: all-reduce moves 2(n-1)/n of
// the bytes, reduce-scatter and all-gather (n-1)/n, each step paying the latency.
double all_reduce_s(const NetworkTier& tier, uint64_t n, double bytes);
double reduce_scatter_s(const NetworkTier& tier, uint64_t n, double bytes);
double all_gather_s(const NetworkTier& tier, uint64_t n, double bytes);
double send_recv_s(const NetworkTier& tier, double bytes);

}  // namespace snr::pathfind
