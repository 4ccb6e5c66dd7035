// Measured GEMM times as LLMCompass publishes them (matmul_<gpu>.csv: no
// header, "M, N, K, <latency>ms, <rate>Tflops"). Strict: five fields per
// line, positive integer dimensions, a latency with a time unit, and a rate
// that agrees with 2*M*N*K / latency to 1% (a transposed or mistyped row is
// an error naming its line, not a silent outlier).
#pragma once

#include <string_view>
#include <vector>

#include <cstddef>
#include <string>

#include "pathfind/inputs/shapes.h"

namespace snr::pathfind {

struct MeasuredGemm {
  GemmShape shape;
  double measured_s = 0;
  size_t line = 0;  // 1-based line in the source
};

std::vector<MeasuredGemm> parse_llmcompass_gemm_csv(std::string_view text, std::string_view source);
std::vector<MeasuredGemm> load_llmcompass_gemm_csv(const std::string& path);

}  // namespace snr::pathfind
