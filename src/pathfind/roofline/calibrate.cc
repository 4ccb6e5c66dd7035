#include "pathfind/roofline/calibrate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"

namespace snr::pathfind {

GemmScore score_gemms(const DeviceSpec& device, std::span<const MeasuredGemm> rows, DType dtype) {
  GemmScore score;
  if (rows.empty()) throw Error("scoring GEMMs: no measured rows");
  double log_sum = 0;
  for (const MeasuredGemm& row : rows) {
    GemmRowResult r{row, predict_gemm(device, row.shape, dtype), 0};
    r.error = (r.prediction.time_s - row.measured_s) / row.measured_s;
    double abs_err = std::fabs(r.error);
    log_sum += std::log(std::max(abs_err, 1e-4));
    score.mean_abs_error += abs_err;
    score.max_abs_error = std::max(score.max_abs_error, abs_err);
    score.rows.push_back(r);
  }
  score.mean_abs_error /= static_cast<double>(rows.size());
  score.geomean_abs_error = std::exp(log_sum / static_cast<double>(rows.size()));
  return score;
}

namespace {

double objective(DeviceSpec& d, std::span<const MeasuredGemm> rows, DType dtype) {
  double sum = 0;
  for (const MeasuredGemm& row : rows) {
    sum += std::fabs(std::log(predict_gemm(d, row.shape, dtype).time_s / row.measured_s));
  }
  return sum / static_cast<double>(rows.size());
}

struct Axis {
  double min, max, step;
  [[nodiscard]] int points() const { return static_cast<int>(std::floor((max - min) / step + 1e-9)) + 1; }
  [[nodiscard]] double at(int i) const { return min + step * i; }
};

void grid_search(DeviceSpec& d, std::span<const MeasuredGemm> rows, DType dtype, Axis util, Axis overhead,
                 GemmCalibration& best) {
  for (int i = 0; i < util.points(); ++i) {
    for (int j = 0; j < overhead.points(); ++j) {
      d.max_utilization = util.at(i);
      d.kernel_overhead_s = overhead.at(j);
      double obj = objective(d, rows, dtype);
      if (obj < best.mean_abs_log_error) best = {d.max_utilization, d.kernel_overhead_s, obj};
    }
  }
}

}  // namespace

GemmCalibration fit_gemm_calibration(const DeviceSpec& device, std::span<const MeasuredGemm> rows, DType dtype,
                                     const CalibrationGrid& grid) {
  if (rows.empty()) throw Error("calibrating GEMMs: no measured rows");
  if (!(grid.utilization_min > 0 && grid.utilization_max <= 1 && grid.utilization_step > 0 &&
        grid.overhead_min_s >= 0 && grid.overhead_step_s > 0 && grid.overhead_max_s >= grid.overhead_min_s)) {
    throw Error("calibrating GEMMs: invalid grid");
  }
  DeviceSpec d = device;
  GemmCalibration best{1, 0, std::numeric_limits<double>::infinity()};
  grid_search(d, rows, dtype, {grid.utilization_min, grid.utilization_max, grid.utilization_step},
              {grid.overhead_min_s, grid.overhead_max_s, grid.overhead_step_s}, best);
  // Refine around the coarse optimum at a tenth of the step.
  Axis util{std::max(grid.utilization_min, best.max_utilization - grid.utilization_step),
            std::min(grid.utilization_max, best.max_utilization + grid.utilization_step), grid.utilization_step / 10};
  Axis overhead{std::max(grid.overhead_min_s, best.kernel_overhead_s - grid.overhead_step_s),
                best.kernel_overhead_s + grid.overhead_step_s, grid.overhead_step_s / 10};
  grid_search(d, rows, dtype, util, overhead, best);
  return best;
}

}  // namespace snr::pathfind
