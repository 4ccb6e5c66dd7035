#include "pathfind/inputs/measured_gemm.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace snr::pathfind {
namespace {

TEST(PathfindMeasuredGemm, ParsesLlmcompassRows) {
  auto rows = parse_llmcompass_gemm_csv("64, 12288, 12288, 0.1900ms, 101.7124Tflops\n\n8192, 64, 64, 0.0296ms, 2.2700Tflops",
                                        "m.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].shape.m, 64u);
  EXPECT_EQ(rows[0].shape.n, 12288u);
  EXPECT_DOUBLE_EQ(rows[0].measured_s, 0.19e-3);
  EXPECT_EQ(rows[1].line, 3u);
}

std::string error_of(std::string_view text) {
  try {
    (void)parse_llmcompass_gemm_csv(text, "m.csv");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PathfindMeasuredGemm, RejectsBadRowsWithTheLine) {
  EXPECT_NE(error_of("64, 12288, 12288, 0.19ms\n").find("m.csv:1: 4 fields"), std::string::npos);
  EXPECT_NE(error_of("64, 12288, 12288, 0.1900ms, 101.7124Tflops\n0, 1, 1, 1ms, 1Tflops").find("m.csv:2: M '0'"), std::string::npos);
  EXPECT_NE(error_of("64, 12288, 12288, 0.19, 101.7Tflops").find("m.csv:1"), std::string::npos);
  // Rate and latency disagree (M and K swapped would show up like this).
  EXPECT_NE(error_of("64, 12288, 12288, 0.1900ms, 10.17Tflops").find("disagrees"), std::string::npos);
  EXPECT_NE(error_of("").find("no GEMM rows"), std::string::npos);
}

}  // namespace
}  // namespace snr::pathfind
