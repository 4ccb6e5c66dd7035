// What `snr pathfind predict` runs: a transformer (training iteration,
// inference prefill or decode step) or one distributed GEMM. The model keys
// follow `snr compile`'s spec where they mean the same (model.hidden,
// model.heads, model.kv_heads, model.head_dim, model.ffn, model.layers,
// batch, sequence, context, dtype); docs/pathfind-predict.md lists them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pathfind/inputs/device.h"
#include "pathfind/inputs/shapes.h"
#include "pathfind/llm/transformer.h"
#include "pathfind/schedule/lstm.h"

namespace YAML {
class Node;
}

namespace snr::pathfind {

enum class WorkloadKind { kTransformer, kGemm, kLstm };
enum class WorkloadPhase { kTraining, kPrefill, kDecode };
std::string_view workload_phase_name(WorkloadPhase phase);

struct Workload {
  std::string name;
  WorkloadKind kind = WorkloadKind::kTransformer;
  WorkloadPhase phase = WorkloadPhase::kTraining;
  TransformerModel model;  // kind transformer (model.seq_size = sequence)
  GemmShape gemm;          // kind gemm
  LstmModel lstm;          // kind lstm (training only; batch and sequence copied in)
  uint64_t batch = 1;      // global: sequences per iteration or step
  uint64_t microbatch = 1; // training
  uint64_t context = 0;    // decode: tokens already in the KV cache
  DType dtype = DType::kBf16;
};

// The model's weights in parameters (a transformer's or an LSTM's); 0 for
// a GEMM, which has none of its own.
double workload_parameters(const Workload& w);

Workload parse_workload_yaml(std::string_view text, std::string_view source);
// The same from a document already parsed (snr sweep edits one per point).
Workload parse_workload_yaml(const YAML::Node& document, std::string_view source);
Workload load_workload(const std::string& path);

}  // namespace snr::pathfind
