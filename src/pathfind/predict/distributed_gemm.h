// One GEMM C[M,N] = A[M,K] B[K,N] spread over devices (seed 004 §3.3):
// RC-{KP1}-{KP2} shards A by rows KP1 ways and B by columns KP2 ways, so
// each device computes a [M/KP1, N/KP2] block over the full K, and the
// row groups all-gather their blocks into whole rows; CR-{KP1} cuts K, so
// each device computes a partial [M, N] over K/KP1 and the partials are
// all-reduced. Data parallelism splits M into independent shards.
#pragma once

#include <string>

#include "pathfind/inputs/device.h"
#include "pathfind/inputs/shapes.h"
#include "pathfind/llm/transformer.h"
#include "pathfind/mapping/notation.h"
#include "pathfind/roofline/gemm.h"

namespace snr::pathfind {

struct DistributedGemmPrediction {
  GemmShape local;            // one device's GEMM (ceil of each split)
  GemmPrediction kernel;      // its roofline prediction
  double comm_s = 0;
  double comm_bytes = 0;      // the collective's whole buffer
  CollectiveKind collective = CollectiveKind::kNone;  // all-gather (RC), all-reduce (CR)
  double time_s = 0;          // kernel + collective
};

// Why `notation` leaves a device of `shape` without work, or "" when every
// device gets some: rows are cut dp x KP1 ways (RC; dp ways otherwise),
// columns KP2 ways (RC), K KP1 ways (CR). A device without a row would be
// one the design pays for and never uses, as a pipeline stage without a
// layer would; predict_distributed_gemm refuses such a split.
std::string idle_device_reason(GemmShape shape, const ParallelismNotation& notation);

// `kernel_row` / `kernel_col`: the tiers the two kernel dimensions
// communicate over (after mapping); unused ones may be null. Throws
// snr::Error for p > 1 and for a split that idles devices.
DistributedGemmPrediction predict_distributed_gemm(const DeviceSpec& device, GemmShape shape,
                                                   const ParallelismNotation& notation, DType dtype,
                                                   const NetworkTier* kernel_row, const NetworkTier* kernel_col);

}  // namespace snr::pathfind
