// Transformer inference, one step: prefill (the whole prompt of every
// sequence) or decode (one new token per sequence against a KV cache of
// `context` tokens), with tensor, pipeline and data parallelism. Decode
// attention streams the KV cache through main memory; prefill attention is
// two batched GEMMs. The batch passes the pipeline stages one after the
// other, so the step's latency is the sum of the stages (a serving system
// that keeps several batches in flight gets more throughput, not lower latency).
#pragma once

#include <cstdint>
#include <vector>

#include "pathfind/inputs/device.h"
#include "pathfind/llm/transformer.h"

namespace snr::pathfind {

enum class InferencePhase { kPrefill, kDecode };
std::string_view inference_phase_name(InferencePhase phase);

struct InferenceJob {
  InferencePhase phase = InferencePhase::kDecode;
  uint64_t batch = 1;    // sequences, over all data-parallel replicas
  uint64_t prompt = 1;   // prefill: tokens per sequence
  uint64_t context = 0;  // decode: tokens already in the KV cache
  DType dtype = DType::kBf16;
};

struct InferencePrediction {
  double step_s = 0;           // one prefill or one decode step, end to end
  double tokens_per_s = 0;     // tokens the step produces or consumes, whole system
  double block_s = 0;          // one block on one device
  double head_s = 0;           // output layer, last stage
  double pipeline_p2p_s = 0;   // per stage boundary
  double pipeline_message_bytes = 0;  // the activations handed to the next stage
  uint64_t blocks_per_device = 0;
  uint64_t sequences_per_replica = 0;
  std::vector<KernelTime> kernels;       // one block (forward_s only)
  std::vector<KernelTime> head_kernels;
  double kv_cache_bytes = 0;  // per device, after this step
  MemoryFootprint memory;     // weights, KV cache (as activations) and the step's working set
};

// Parallelism: tp, pp, dp and the network tiers (recompute, sequence
// parallelism and interleaving do not apply and must be off).
InferencePrediction predict_inference(const DeviceSpec& device, const TransformerModel& model, const Parallelism& par,
                                      const InferenceJob& job);

}  // namespace snr::pathfind
