// Fitting the two GEMM calibration constants of a device - the MCU
// utilization derate (§4.2.1) and the fixed kernel overhead - on measured
// kernels, and scoring a device against measurements. A deterministic grid
// search (coarse, then fine around the best point) minimising the mean
// absolute log error, so one badly-off row cannot dominate.
#pragma once

#include <span>
#include <vector>

#include "pathfind/inputs/measured_gemm.h"
#include "pathfind/roofline/gemm.h"

namespace snr::pathfind {

struct GemmRowResult {
  MeasuredGemm row;
  GemmPrediction prediction;
  double error = 0;  // (predicted - measured) / measured
};

struct GemmScore {
  std::vector<GemmRowResult> rows;
  double geomean_abs_error = 0;  // geometric mean of |error| (|error| floored at 1e-4)
  double mean_abs_error = 0;
  double max_abs_error = 0;
};

GemmScore score_gemms(const DeviceSpec& device, std::span<const MeasuredGemm> rows, DType dtype);

struct GemmCalibration {
  double max_utilization = 1;
  double kernel_overhead_s = 0;
  double mean_abs_log_error = 0;  // objective at the optimum, on the fitted rows
};

struct CalibrationGrid {
  double utilization_min = 0.5, utilization_max = 1.0, utilization_step = 0.01;
  double overhead_min_s = 0, overhead_max_s = 50e-6, overhead_step_s = 1e-6;
};

GemmCalibration fit_gemm_calibration(const DeviceSpec& device, std::span<const MeasuredGemm> rows, DType dtype,
                                     const CalibrationGrid& grid = {});

}  // namespace snr::pathfind
