#include "pathfind/roofline/gemm_cache.h"

#include <algorithm>

namespace snr::pathfind {
namespace {

bool same_level(const MemoryLevel& a, const MemoryLevel& b) {
  return a.name == b.name && a.scope == b.scope && a.capacity_bytes == b.capacity_bytes &&
         a.bandwidth_bytes_per_s == b.bandwidth_bytes_per_s && a.efficiency == b.efficiency &&
         a.partial_sums == b.partial_sums;
}

bool same_shape(GemmShape a, GemmShape b) { return a.m == b.m && a.n == b.n && a.k == b.k; }

// A prediction's level names and `bound` point into the device it was made
// for; a prediction moved to another (equal for the model) device must
// point into that one, which may outlive the first.
GemmPrediction rebind(GemmPrediction p, const DeviceSpec& from, const DeviceSpec& to) {
  for (size_t i = 0; i < p.level_count; ++i) {
    if (p.bound.data() == from.levels[i].name.data()) p.bound = to.levels[i].name;
    p.levels[i].name = to.levels[i].name;
  }
  return p;
}

// Enough for a search's current design and the neighbours its gradient and
// line search visit; small, so a lookup is a short scan.
constexpr size_t kRecentDevices = 8;

}  // namespace

bool same_gemm_device(const DeviceSpec& a, const DeviceSpec& b) {
  return a.mcu_rows == b.mcu_rows && a.mcu_cols == b.mcu_cols && a.mcus_per_bundle == b.mcus_per_bundle &&
         a.bundles == b.bundles && a.frequency_hz == b.frequency_hz && a.fp32_rate_ratio == b.fp32_rate_ratio &&
         a.supports_bf16 == b.supports_bf16 && a.vector_flops_per_s == b.vector_flops_per_s &&
         a.dataflow == b.dataflow && a.max_utilization == b.max_utilization &&
         a.kernel_overhead_s == b.kernel_overhead_s &&
         std::equal(a.levels.begin(), a.levels.end(), b.levels.begin(), b.levels.end(), same_level);
}

struct GemmCache::Shared {
  DeviceSpec device;  // a copy without name and network: the names the predictions below point into
  DType dtype;
  std::deque<std::pair<GemmShape, GemmPrediction>> predictions;
};

thread_local std::vector<std::shared_ptr<GemmCache::Shared>> GemmCache::recent_;

GemmCache::GemmCache(const DeviceSpec& device, DType dtype) : device_(&device) {
  auto it = std::find_if(recent_.begin(), recent_.end(), [&](const std::shared_ptr<Shared>& s) {
    return s->dtype == dtype && same_gemm_device(s->device, device);
  });
  if (it != recent_.end()) {
    shared_ = *it;
    recent_.erase(it);
  } else {
    shared_ = std::make_shared<Shared>();
    shared_->device = device;
    shared_->device.name.clear();
    shared_->device.network.clear();
    shared_->dtype = dtype;
    if (recent_.size() == kRecentDevices) recent_.pop_back();
  }
  recent_.insert(recent_.begin(), shared_);
}

const GemmPrediction& GemmCache::get(GemmShape s) {
  for (const auto& [shape, p] : entries_) {
    if (same_shape(shape, s)) return p;
  }
  for (const auto& [shape, p] : shared_->predictions) {
    if (same_shape(shape, s)) {
      ++reused_;
      return entries_.emplace_back(s, rebind(p, shared_->device, *device_)).second;
    }
  }
  const GemmPrediction& made = entries_.emplace_back(s, predict_gemm(*device_, s, shared_->dtype)).second;
  shared_->predictions.emplace_back(s, rebind(made, *device_, shared_->device));
  return made;
}

}  // namespace snr::pathfind
