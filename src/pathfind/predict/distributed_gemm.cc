#include "pathfind/predict/distributed_gemm.h"

#include <fmt/format.h>

#include "common/error.h"
#include "pathfind/llm/transformer.h"

namespace snr::pathfind {
namespace {
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

std::string idle_device_reason(GemmShape shape, const ParallelismNotation& n) {
  const bool rc = n.kind == KernelSplit::kRowColumn;
  const uint64_t row_ways = n.dp * (rc ? n.kp1 : 1);
  if (row_ways > shape.m) {
    return rc ? fmt::format("M = {} rows cannot be cut dp {} x KP1 {} = {} ways (dp x KP1 must be at most M)", shape.m,
                            n.dp, n.kp1, row_ways)
              : fmt::format("M = {} rows cannot be cut dp {} ways (dp must be at most M)", shape.m, n.dp);
  }
  if (rc && n.kp2 > shape.n) {
    return fmt::format("N = {} columns cannot be cut KP2 {} ways (KP2 must be at most N)", shape.n, n.kp2);
  }
  if (n.kind == KernelSplit::kColumnRow && n.kp1 > shape.k) {
    return fmt::format("K = {} cannot be cut KP1 {} ways (KP1 must be at most K)", shape.k, n.kp1);
  }
  return "";
}

DistributedGemmPrediction predict_distributed_gemm(const DeviceSpec& device, GemmShape shape,
                                                   const ParallelismNotation& notation, DType dtype,
                                                   const NetworkTier* kernel_row, const NetworkTier* kernel_col) {
  notation.validate();
  if (notation.lp != 1) {
    throw Error(fmt::format("parallelism {}: one GEMM has no layers to pipeline (p must be 1)", notation.to_string()));
  }
  if (const std::string idle = idle_device_reason(shape, notation); !idle.empty()) {
    throw Error(fmt::format("parallelism {} on the {}x{}x{} GEMM: {}; the rest of the devices would hold nothing",
                            notation.to_string(), shape.m, shape.n, shape.k, idle));
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
