// The parallelism of a prediction, written either in seed 004's notation
// (RC-4-2-d3-p2, CR-8-d4-p2, d8-p1) or with the Megatron names users know
// (tp=8,pp=4,dp=2,interleave=2,sp,recompute=selective,zero1). Megatron's
// tensor parallelism splits each column-parallel / row-parallel GEMM pair
// along the reduced dimension of the second one: it is CR-{TP}. Both
// spellings end in the same four parallel dimensions for the mapper.
#pragma once

#include <string>
#include <string_view>

#include "pathfind/llm/transformer.h"
#include "pathfind/mapping/notation.h"
#include "pathfind/mapping/placement.h"

namespace snr::pathfind {

struct Strategy {
  ParallelismNotation notation;
  uint64_t interleave = 1;
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  bool optimizer_sharding = false;

  [[nodiscard]] uint64_t devices() const { return notation.devices(); }
  // Tensor parallelism of a transformer: kp1 of CR (RC is refused there).
  [[nodiscard]] uint64_t tensor_parallel() const { return notation.kp1 * notation.kp2; }
  // "CR-8-d2-p4 interleave=2 sp recompute=selective".
  [[nodiscard]] std::string to_string() const;
};

// Throws snr::Error quoting the text and naming the bad part.
Strategy parse_strategy(std::string_view text);

// The order of the parallel dimensions on the system, fastest first:
// "kernel_row,kernel_col,pipeline,data" or "r,c,p,d", each dimension once.
// Throws snr::Error quoting the text after `what` ("mapping 'r,c': ...").
DimOrder parse_dimension_order(std::string_view text, std::string_view what = "mapping");

}  // namespace snr::pathfind
