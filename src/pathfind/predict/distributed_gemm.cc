#include "pathfind/predict/distributed_gemm.h"

#include <fmt/format.h>

#include "common/error.h"
#include "pathfind/llm/transformer.h"

namespace snr::pathfind {
namespace {
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

DistributedGemmPrediction predict_distributed_gemm(const DeviceSpec& device, GemmShape shape,
                                                   const ParallelismNotation& notation, DType dtype,
                                                   const NetworkTier* kernel_row, const NetworkTier* kernel_col) {
  notation.validate();
  if (notation.lp != 1) {
    throw Error(fmt::format("parallelism {}: one GEMM has no layers to pipeline (p must be 1)", notation.to_string()));
  }
  const uint64_t m = ceil_div(shape.m, notation.dp);
  const double e = dtype_bytes(dtype);
  DistributedGemmPrediction r;
  switch (notation.kind) {
    case KernelSplit::kNone: r.local = {m, shape.n, shape.k}; break;
    case KernelSplit::kRowColumn:
      r.local = {ceil_div(m, notation.kp1), ceil_div(shape.n, notation.kp2), shape.k};
      if (notation.kp2 > 1) {
        if (!kernel_col) throw Error("distributed GEMM: RC needs the kernel_col network tier");
        r.collective = CollectiveKind::kAllGather;
        r.comm_bytes = static_cast<double>(r.local.m * shape.n) * e;
        r.comm_s = all_gather_s(*kernel_col, notation.kp2, r.comm_bytes);
      }
      break;
    case KernelSplit::kColumnRow:
      r.local = {m, shape.n, ceil_div(shape.k, notation.kp1)};
      if (notation.kp1 > 1) {
        if (!kernel_row) throw Error("distributed GEMM: CR needs the kernel_row network tier");
        r.collective = CollectiveKind::kAllReduce;
        r.comm_bytes = static_cast<double>(m * shape.n) * e;
        r.comm_s = all_reduce_s(*kernel_row, notation.kp1, r.comm_bytes);
      }
      break;
  }
  r.kernel = predict_gemm(device, r.local, dtype);
  r.time_s = r.kernel.time_s + r.comm_s;
  return r;
}

}  // namespace snr::pathfind
