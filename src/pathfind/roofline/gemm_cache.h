// The GEMM predictions of one device and data type, each shape predicted
// once: a transformer block asks for the same few shapes many times, and a
// design search asks again for every design whose matrix units and memories
// did not change (a finite-difference step that moves only network budget).
#pragma once

#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "pathfind/roofline/gemm.h"

namespace snr::pathfind {

// Whether predict_gemm sees the same device in both: every field but the
// name and the network tiers. A field added to DeviceSpec or MemoryLevel
// that the GEMM model reads must be compared here too.
bool same_gemm_device(const DeviceSpec& a, const DeviceSpec& b);

class GemmCache {
 public:
  GemmCache(const DeviceSpec& device, DType dtype);

  // The reference stays valid for the cache's lifetime; names in it point
  // into the device the cache was made for.
  const GemmPrediction& get(GemmShape s);

  // How many predictions came from another device's cache (tests, benchmarks).
  [[nodiscard]] size_t reused() const { return reused_; }

 private:
  struct Shared;
  // Per thread, most recently used first: predict_gemm is a pure function
  // of (device, shape, dtype), so sharing its results changes no figure.
  static thread_local std::vector<std::shared_ptr<Shared>> recent_;

  const DeviceSpec* device_;
  // Predictions of devices the GEMM model cannot tell apart from this one,
  // kept for the few devices this thread used last.
  std::shared_ptr<Shared> shared_;
  std::deque<std::pair<GemmShape, GemmPrediction>> entries_;
  size_t reused_ = 0;
};

}  // namespace snr::pathfind
