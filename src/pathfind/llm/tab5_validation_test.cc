// Validation against the measured Megatron iterations of Korthikanti et al.
// 2022, Table 5, read through Calculon's own input files and
// tab5_measured.csv. Nothing here is fitted to these rows (docs/pathfind.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pathfind/llm/calculon.h"

namespace snr::pathfind {
namespace {

struct Row {
  std::string model, mode;
  double measured_s = 0;
};

std::vector<Row> measured(const std::string& dir) {
  std::ifstream in(dir + "/tab5_measured.csv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "model,gpus,tp,pp,interleave,batch,microbatch,mode,measured_seconds");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string cell;
    std::vector<std::string> cells;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    EXPECT_EQ(cells.size(), 9u) << line;
    if (cells.size() != 9) continue;
    rows.push_back({cells[0], cells[7], std::stod(cells[8])});
  }
  return rows;
}

std::string calculon_dir() {
  const char* data = std::getenv("SNR_SHARED_DATA");
  return std::string(data ? data : "") + "/pathfinder/calculon";
}

IterationPrediction predict_row(const std::string& dir, const DeviceSpec& system, const Row& row,
                                const IterationConstants& constants = {}) {
  TransformerModel model = load_calculon_model(dir + "/models/" + row.model + ".json");
  // Korthikanti et al. 2022, section 5: all Table 5 runs use a 51,200-token
  // vocabulary; Calculon's model files leave the output layer out.
  model.vocab_size = 51200;
  CalculonExecution exec = load_calculon_execution(dir + "/validation/seqsel/tab5/" + row.model + "_" + row.mode + ".json");
  return predict_training_iteration(system, model, exec.parallelism, exec.job, constants);
}

TEST(PathfindTab5Validation, MegatronIterationsWithinGoal) {
  if (!std::filesystem::exists(calculon_dir())) GTEST_SKIP() << "SNR_SHARED_DATA/pathfinder/calculon not present";
  const std::string dir = calculon_dir();
  DeviceSpec system = load_calculon_system(dir + "/systems/a100_80g.json", device_preset("a100-80gb"));
  std::vector<Row> rows = measured(dir);
  ASSERT_EQ(rows.size(), 8u);
  double sum = 0, worst = 0;
  for (const Row& row : rows) {
    IterationPrediction p = predict_row(dir, system, row);
    double err = std::fabs(p.iteration_s - row.measured_s) / row.measured_s;
    std::printf("| %s | %s | %.2f | %.2f | %+.1f%% | %.1f | %.3f | %.3f | %.2f |\n", row.model.c_str(), row.mode.c_str(),
                p.iteration_s, row.measured_s, 100 * (p.iteration_s - row.measured_s) / row.measured_s,
                p.memory.total_bytes / (1024.0 * 1024 * 1024), p.block_forward_s * 1e3, p.block_backward_s * 1e3,
                p.bubble_s);
    EXPECT_LE(err, 0.10) << row.model << " " << row.mode << ": predicted " << p.iteration_s << " s, measured "
                         << row.measured_s << " s";
    EXPECT_TRUE(p.memory.fits) << row.model << " " << row.mode;
    sum += err;
    worst = std::max(worst, err);
  }
  EXPECT_LE(sum / static_cast<double>(rows.size()), 0.05);
  EXPECT_LE(worst, 0.10);
}

// The one fitted constant: a grid over the sustained compute fraction, on
// the full-recompute rows only, minimising their mean absolute error.
TEST(PathfindTab5Validation, SustainedComputeFractionIsTheFitOnFullRecomputeRows) {
  if (!std::filesystem::exists(calculon_dir())) GTEST_SKIP() << "SNR_SHARED_DATA/pathfinder/calculon not present";
  const std::string dir = calculon_dir();
  DeviceSpec system = load_calculon_system(dir + "/systems/a100_80g.json", device_preset("a100-80gb"));
  std::vector<Row> fit_rows;
  for (const Row& row : measured(dir)) {
    if (row.mode == "full") fit_rows.push_back(row);
  }
  ASSERT_EQ(fit_rows.size(), 4u);
  double best_fraction = 0, best_error = 1e9;
  for (int i = 0; i <= 40; ++i) {
    IterationConstants c;
    c.sustained_compute_fraction = 0.80 + 0.005 * i;
    double sum = 0;
    for (const Row& row : fit_rows) sum += std::fabs(predict_row(dir, system, row, c).iteration_s / row.measured_s - 1);
    if (sum < best_error) {
      best_error = sum;
      best_fraction = c.sustained_compute_fraction;
    }
  }
  EXPECT_NEAR(best_fraction, kSustainedComputeFraction, 1e-9);
}

}  // namespace
}  // namespace snr::pathfind
