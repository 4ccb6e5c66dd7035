// The GEMM predictions of one device and data type, each shape predicted
// once: a transformer block asks for the same few shapes many times.
#pragma once

#include <utility>
#include <vector>

#include "pathfind/roofline/gemm.h"

namespace snr::pathfind {

class GemmCache {
 public:
  GemmCache(const DeviceSpec& device, DType dtype) : device_(&device), dtype_(dtype) { entries_.reserve(16); }

  const GemmPrediction& get(GemmShape s) {
    for (const auto& [shape, p] : entries_) {
      if (shape.m == s.m && shape.n == s.n && shape.k == s.k) return p;
    }
    entries_.emplace_back(s, predict_gemm(*device_, s, dtype_));
    return entries_.back().second;
  }

 private:
  const DeviceSpec* device_;
  DType dtype_;
  std::vector<std::pair<GemmShape, GemmPrediction>> entries_;
};

}  // namespace snr::pathfind
