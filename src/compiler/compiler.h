// The workload compiler: Spec -> ModelImage. A transformer step is lowered
// layer by layer (RMSNorm, QKV matmul, rotary embedding, KV-cache write,
// attention, output projection, all-reduce as reduce-scatter + all-gather,
// residual add, then the gated MLP the same way); a standalone collective
// gets an input load, the collective and an output store. The same code
// runs on every chip; shards and peer tables differ per chip.
#pragma once

#include "compiler/model_image.h"
#include "compiler/spec.h"
#include "compiler/vmem_allocator.h"

namespace snr::compiler {

struct CompiledModel {
  Spec spec;
  ModelImage image;
  VmemStats vmem;
  uint64_t rows = 0;       // tokens per step, padded to 8
  uint64_t real_rows = 0;  // tokens per step
};

// Throws snr::Error on an invalid spec or when buffers do not fit VMEM.
CompiledModel compile(const Spec& spec);

}  // namespace snr::compiler
