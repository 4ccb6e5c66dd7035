#include "dsim/noc/link_timeline.h"

#include <algorithm>

namespace snr::dsim::noc {

void LinkTimeline::transmitted(int kind, gpu::TimePs start_ps, gpu::TimePs serialize_ps, uint32_t bytes) {
  bins_[index(start_ps)][kind].bytes += bytes;
  add_busy(kind, start_ps, start_ps + serialize_ps);
}

void LinkTimeline::enqueued(int kind, gpu::TimePs now_ps) {
  const uint32_t b = index(now_ps);
  Bin& bin = bins_[b][kind];
  ++bin.enqueued;
  bin.wait_to_end_ps += static_cast<int64_t>(bin_end_ps(b) - now_ps);
}

void LinkTimeline::dequeued(int kind, gpu::TimePs now_ps) {
  const uint32_t b = index(now_ps);
  Bin& bin = bins_[b][kind];
  ++bin.dequeued;
  bin.wait_to_end_ps -= static_cast<int64_t>(bin_end_ps(b) - now_ps);
}

void LinkTimeline::add_busy(int kind, gpu::TimePs start_ps, gpu::TimePs end_ps) {
  // A serialization can straddle bins (bins start at 1 ps): each bin gets
  // its own part, so a bin's busy time never exceeds its width per link.
  while (start_ps < end_ps) {
    const uint32_t b = index(start_ps);
    const gpu::TimePs part_end = std::min(end_ps, bin_end_ps(b));
    bins_[b][kind].busy_ps += part_end - start_ps;
    start_ps = part_end;
  }
}

void LinkTimeline::coarsen() {
  const auto width = static_cast<int64_t>(bin_width_ps());
  for (uint32_t i = 0; i < kMaxBins / 2; ++i) {
    for (int k = 0; k < kKinds; ++k) {
      const Bin lo = bins_[2 * i][k];
      const Bin& hi = bins_[2 * i + 1][k];
      Bin& merged = bins_[i][k];
      merged.busy_ps = lo.busy_ps + hi.busy_ps;
      merged.bytes = lo.bytes + hi.bytes;
      merged.enqueued = lo.enqueued + hi.enqueued;
      merged.dequeued = lo.dequeued + hi.dequeued;
      // The low half's events now count to the merged bin's end, one old
      // width further.
      merged.wait_to_end_ps = lo.wait_to_end_ps +
                              width * (static_cast<int64_t>(lo.enqueued) - static_cast<int64_t>(lo.dequeued)) +
                              hi.wait_to_end_ps;
    }
  }
  std::fill(bins_.begin() + kMaxBins / 2, bins_.end(), std::array<Bin, kKinds>{});
  ++shift_;
  used_ = (used_ + 1) / 2;
}

std::vector<gpu::TimePs> LinkTimeline::queued_ps(int kind) const {
  std::vector<gpu::TimePs> out(used_);
  const auto width = static_cast<int64_t>(bin_width_ps());
  int64_t waiting = 0;  // messages in the kind's queues when the bin begins
  for (uint32_t b = 0; b < used_; ++b) {
    const Bin& bin = bins_[b][kind];
    out[b] = static_cast<gpu::TimePs>(std::max<int64_t>(0, bin.wait_to_end_ps + width * waiting));
    waiting += static_cast<int64_t>(bin.enqueued) - static_cast<int64_t>(bin.dequeued);
  }
  return out;
}

}  // namespace snr::dsim::noc
