// Small specs shared by the compiler's tests: shapes that compile and run in
// well under a second yet exercise every lowering path (several column
// tiles, grouped KV heads, tensor parallelism, every collective).
#pragma once

#include <cstdint>

#include "compiler/spec.h"

namespace snr::compiler::testing {

// A decoder step with `layers` layers sharded over `chips`; the FFN grows
// with the chip count so every chip keeps a non-empty shard.
inline Spec small_transformer(Phase phase, uint64_t chips, uint64_t layers, uint64_t seed) {
  Spec s;
  s.source_name = "test";
  s.model.hidden = 256;
  s.model.heads = 8;
  s.model.kv_heads = 4;
  s.model.ffn = 512 * chips;
  s.model.layers = layers;
  s.phase = phase;
  s.batch = 2;
  s.context = 130;
  s.sequence = 16;
  s.tensor_parallel = chips;
  s.seed = seed;
  return s;
}

// A standalone collective on `chips` chips.
inline Spec small_collective(CollectiveOp op, SetupMode setup, uint64_t bytes_per_chip, uint64_t chips = 4) {
  Spec s;
  s.source_name = "test";
  s.kind = WorkloadKind::kCollective;
  s.collective = op;
  s.tensor_parallel = chips;
  s.collective_bytes_per_chip = bytes_per_chip;
  s.schedule.allgather_setup = setup;
  return s;
}

}  // namespace snr::compiler::testing
