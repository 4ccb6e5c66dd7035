// Lowering of an MSCCL++ execution plan into the load-store representation
// for one message size (seed 003 §4.2). Every MSCCL++ op maps to GPU
// operations; an op that cannot be modelled is an error, never skipped.
#pragma once

#include <cstdint>

#include "dsim/loadstore/program.h"
#include "formats/mscclpp/plan.h"

namespace snr::dsim::loadstore {

struct MscclppLowering {
  // Per-GPU input buffer size as MSCCL++'s executor takes it (for a GPU
  // whose plan has no input chunks: its output buffer size). Must split into
  // the GPU's chunk count in whole buffer_alignment units.
  uint64_t input_bytes = 0;
  // Threads per wavefront (warp): a threadblock of the plan's
  // num_threads_per_block becomes a workgroup of this many wavefronts.
  uint32_t wavefront_threads = 32;
};

Program lower_mscclpp(const mscclpp::Plan& plan, const MscclppLowering& options);

// The smallest per-GPU input size for which every op of the plan, including
// threadblock-group slices, covers whole buffer_alignment units on every GPU
// (the data-movement checker's default size); 0 for a plan without buffers.
uint64_t smallest_exact_input_bytes(const mscclpp::Plan& plan);

}  // namespace snr::dsim::loadstore
