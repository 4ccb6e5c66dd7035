// For tests of the GPU model and what drives it: a Program of one GPU and
// one kernel whose one workgroup copies one local 128-byte line.
#pragma once

#include "dsim/loadstore/program.h"

namespace snr::dsim::gpu {

inline loadstore::Program one_line_copy() {
  namespace ls = loadstore;
  ls::Program p;
  p.gpus.assign(1, ls::GpuBuffers{1 << 20, 1 << 20, 0, 0});
  p.kernels.push_back(ls::Kernel{0, 0, 1, 0});
  p.workgroups.push_back(ls::Workgroup{0, 0, 1, 1, 0});
  ls::GpuOp op;
  op.kind = ls::OpKind::kMemcpy;
  op.bytes = 128;
  p.add_op(op, {ls::MemRange{0, ls::Space::kInput, 0, 0, 0}, ls::MemRange{0, ls::Space::kOutput, 0, 0, 0}},
           ls::OpOrigin{});
  return p;
}

}  // namespace snr::dsim::gpu
