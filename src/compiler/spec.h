// The input of `snr compile`: what to compile (a decoder-only transformer
// step or a standalone collective), how it is parallelized, and the
// schedule knobs of the lowering. One schema table (spec.cc) drives the
// YAML reader, `--set key=value` overrides and the defaults listed in
// docs/compiler.md, so every key is declared once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace snr::compiler {

enum class WorkloadKind : uint8_t { kTransformer, kCollective };
enum class Phase : uint8_t { kDecode, kPrefill };
enum class Activation : uint8_t { kSilu, kGelu };
enum class CollectiveOp : uint8_t { kAllGather, kReduceScatter, kAllReduce, kAllToAll };
enum class AllocatorPolicy : uint8_t { kFirstFit, kBestFit, kSizeSegregated };
// How the all-gather finds its peers' buffer addresses (seed 000 §5.2.1).
enum class SetupMode : uint8_t {
  kChained,   // three groups of dependent HBM->SMEM DMAs, one group after the other
  kParallel,  // the three chain heads issued together, then the second level, ...
  kPinned,    // addresses resident in SMEM: no setup DMAs at all
};

// When attention issues the K/V-cache reads of a head group.
enum class KvPrefetch : uint8_t {
  kLate,   // each head group's keys at its start, its values after the softmax, each just before its WAIT
  kAhead,  // the next head group's keys and this one's values while this one computes
};

// How long the attention's K/V staging buffers live.
enum class KvStaging : uint8_t {
  kStep,  // reserved at the first attention, kept for the whole step
  kOp,    // allocated at each attention's start, freed at its end
};

std::string_view phase_name(Phase phase);
std::string_view collective_op_name(CollectiveOp op);
std::string_view allocator_policy_name(AllocatorPolicy policy);
std::string_view setup_mode_name(SetupMode mode);
std::string_view kv_prefetch_name(KvPrefetch mode);
std::string_view kv_staging_name(KvStaging mode);

struct TransformerShape {
  uint64_t hidden = 4096;
  uint64_t heads = 32;
  uint64_t kv_heads = 8;
  uint64_t head_dim = 128;
  uint64_t ffn = 14336;
  uint64_t layers = 2;
  Activation activation = Activation::kSilu;
  double norm_eps = 1e-5;
  double rope_theta = 10000.0;
};

struct ScheduleKnobs {
  // Weight / KV tiles whose DMA is issued ahead of the tile being computed;
  // 0 issues each DMA just before its WAIT.
  uint64_t prefetch_distance = 2;
  // VMEM slots per tile stream: 1 = single, 2 = double buffering, or more.
  // Must exceed prefetch_distance.
  uint64_t buffers = 3;
  AllocatorPolicy allocator = AllocatorPolicy::kFirstFit;
  SetupMode allgather_setup = SetupMode::kChained;
  KvPrefetch kv_prefetch = KvPrefetch::kLate;
  KvStaging kv_staging = KvStaging::kStep;
  // Vector-unit loops (norms, activations, residual adds, reductions):
  // tiles processed per loop iteration; 0 = fully unrolled straight-line code.
  uint64_t vector_unroll = 0;
};

struct Spec {
  std::string source_name;  // for messages
  WorkloadKind kind = WorkloadKind::kTransformer;
  TransformerShape model;
  Phase phase = Phase::kDecode;
  uint64_t batch = 8;
  uint64_t context = 2048;   // decode: tokens already in the KV cache
  uint64_t sequence = 128;   // prefill: tokens per sequence
  std::string dtype = "bf16";
  uint64_t tensor_parallel = 4;  // T chips
  std::string hardware = "tpu-v4-like";
  uint64_t seed = 1;
  CollectiveOp collective = CollectiveOp::kAllGather;
  uint64_t collective_bytes_per_chip = 64 * 1024;
  ScheduleKnobs schedule;

  // Sets one dotted key ("model.hidden", "schedule.prefetch_distance") from
  // text. Throws snr::Error naming the key on an unknown key or bad value.
  void set(std::string_view key, std::string_view value);
  [[nodiscard]] std::string get(std::string_view key) const;
  // Cross-key checks (divisibility by T, head_dim == 128, ...).
  void validate() const;
  // Canonical "key: value" lines of every key, for the manifest.
  [[nodiscard]] std::string to_text() const;
};

struct SpecKeyInfo {
  std::string_view key;
  std::string_view default_value;
  std::string_view doc;
};
const std::vector<SpecKeyInfo>& spec_schema();

// Parses YAML (nested maps become dotted keys). Errors name
// "source_name:line:" and the key. Does not validate (call validate()).
Spec parse_spec_yaml(std::string_view yaml_text, std::string_view source_name);
Spec load_spec_file(const std::string& path);
// "key=value" overrides, in order, then validate().
void apply_spec_overrides(Spec& spec, const std::vector<std::string>& assignments);

}  // namespace snr::compiler
