// A plain C++ implementation of the math a compiled model performs, read
// from the same generated inputs (the model's HBM image), for checking the
// compiled code. Rounding follows the hardware where it changes results
// noticeably (bf16 matrix-unit inputs, bf16 KV cache); summation order does
// not, so comparisons use a bf16-sized tolerance.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/compiler.h"

namespace snr::compiler {

// The transformer step's output hidden states [real_rows x hidden] (row
// major), identical on every chip.
std::vector<float> reference_transformer(const CompiledModel& model);

// The output buffer a collective leaves on `chip`, as f32 values. Exact:
// sums are formed in chip order 0..T-1 like the compiled code.
std::vector<float> reference_collective(const CompiledModel& model, uint32_t chip);

}  // namespace snr::compiler
