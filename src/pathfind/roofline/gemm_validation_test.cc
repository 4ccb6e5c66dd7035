// Validation against measured A100 80GB GEMMs (LLMCompass, 20 rows). The
// preset's two calibration constants are fitted on the N = K sweep at
// M = 8192; the M sweep at N = K = 12288 is held out.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "pathfind/roofline/calibrate.h"

namespace snr::pathfind {
namespace {

struct Sweeps {
  std::vector<MeasuredGemm> fit;       // M = 8192, N = K varies
  std::vector<MeasuredGemm> held_out;  // N = K = 12288, M varies
};

// The measured sweep, or "" when the shared inputs are not beside the tree.
std::string measured_csv() {
  const char* data = std::getenv("SNR_SHARED_DATA");
  const std::string path = std::string(data ? data : "") + "/pathfinder/llmcompass/matmul_A100.csv";
  return data != nullptr && std::filesystem::exists(path) ? path : "";
}

Sweeps load() {
  Sweeps s;
  for (const MeasuredGemm& r : load_llmcompass_gemm_csv(measured_csv())) {
    bool m_sweep = r.shape.n == 12288 && r.shape.k == 12288;
    (m_sweep ? s.held_out : s.fit).push_back(r);
  }
  return s;
}

TEST(PathfindGemmValidation, A100MeetsTheErrorGoals) {
  if (measured_csv().empty()) GTEST_SKIP() << "SNR_SHARED_DATA/pathfinder/llmcompass not present";
  Sweeps s = load();
  ASSERT_EQ(s.fit.size(), 10u);
  ASSERT_EQ(s.held_out.size(), 10u);
  DeviceSpec d = device_preset("a100-80gb");
  GemmScore held = score_gemms(d, s.held_out, DType::kFp16);
  GemmScore fitted = score_gemms(d, s.fit, DType::kFp16);
  EXPECT_LE(held.geomean_abs_error, 0.10);
  EXPECT_LE(held.max_abs_error, 0.25);
  EXPECT_LE(fitted.geomean_abs_error, 0.10);
  EXPECT_LE(fitted.max_abs_error, 0.25);
  for (const GemmScore* score : {&fitted, &held}) {
    for (const GemmRowResult& r : score->rows) {
      std::printf("| %s | %llu | %llu | %llu | %.4f | %.4f | %+.1f%% | %s |\n", score == &fitted ? "fit" : "held out",
                  static_cast<unsigned long long>(r.row.shape.m), static_cast<unsigned long long>(r.row.shape.n),
                  static_cast<unsigned long long>(r.row.shape.k), r.prediction.time_s * 1e3, r.row.measured_s * 1e3,
                  100 * r.error, std::string(r.prediction.bound).c_str());
    }
    std::printf("geomean %.2f%% mean %.2f%% max %.2f%%\n", 100 * score->geomean_abs_error, 100 * score->mean_abs_error,
                100 * score->max_abs_error);
  }
  for (const GemmRowResult& r : held.rows) {
    EXPECT_LE(std::abs(r.error), 0.25) << r.row.shape.m << "x" << r.row.shape.n << "x" << r.row.shape.k;
  }
}

TEST(PathfindGemmValidation, PresetConstantsAreTheFitOnTheFitSweep) {
  if (measured_csv().empty()) GTEST_SKIP() << "SNR_SHARED_DATA/pathfinder/llmcompass not present";
  Sweeps s = load();
  ASSERT_EQ(s.fit.size(), 10u);
  DeviceSpec d = device_preset("a100-80gb");
  CalibrationGrid grid;
  grid.utilization_min = 0.80;
  GemmCalibration cal = fit_gemm_calibration(d, s.fit, DType::kFp16, grid);
  EXPECT_NEAR(cal.max_utilization, d.max_utilization, 0.0005);  // half a fine grid step
  EXPECT_NEAR(cal.kernel_overhead_s, d.kernel_overhead_s, 0.05e-6);
}

}  // namespace
}  // namespace snr::pathfind
