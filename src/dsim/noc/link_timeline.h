// What the NoC's links carried over time, per link kind: the counter tracks
// of `snr collective --trace`. The network records into one only when a
// timeline was asked for (NocNetwork::record_timeline); otherwise a hop pays
// one never-taken branch.
//
// The run's length is unknown while it runs, so bins start one picosecond
// wide and double (neighbours merged) whenever an event falls past the last
// bin: a run of any length ends with between kMaxBins / 2 and kMaxBins bins
// of a power-of-two width, in fixed memory, and a recorded event costs a
// shift and a few adds.
//
// Queueing is kept exactly through the merges: per bin the messages that
// joined and left a queue and the signed sum, over those events, of the time
// from the event to the bin's end (+ for a join, − for a leave). The
// message-time spent waiting inside bin b is that sum plus the bin's width
// times the messages already waiting when it began (queued_ps()).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "dsim/gpu/memory_network.h"

namespace snr::dsim::noc {

class LinkTimeline {
 public:
  static constexpr int kKinds = 5;  // LinkKind::kCount (noc_network.h checks it)
  static constexpr uint32_t kMaxBins = 200;

  struct Bin {
    gpu::TimePs busy_ps = 0;  // link-busy time inside the bin, summed over the kind's links
    uint64_t bytes = 0;       // bytes of the messages that started crossing a link in the bin
    uint64_t enqueued = 0;    // messages that found their link busy and joined its queue
    uint64_t dequeued = 0;    // messages that left a queue for their link
    int64_t wait_to_end_ps = 0;  // see the file comment
  };

  LinkTimeline() : bins_(kMaxBins) {}

  // Out of line: the network's hop loop keeps only a call in a cold branch.
  // A message of `bytes` occupies a link of `kind` for [start_ps, start_ps + serialize_ps).
  void transmitted(int kind, gpu::TimePs start_ps, gpu::TimePs serialize_ps, uint32_t bytes);
  // A message joins (leaves) the queue before a link of `kind`.
  void enqueued(int kind, gpu::TimePs now_ps);
  void dequeued(int kind, gpu::TimePs now_ps);

  // Widens the bins until [0, end_ps) fits (a run may go on after its last
  // message) and counts them all as used.
  void cover(gpu::TimePs end_ps) {
    if (end_ps > 0) index(end_ps - 1);
  }

  [[nodiscard]] gpu::TimePs bin_width_ps() const { return gpu::TimePs{1} << shift_; }
  // Bins up to the last one an event touched.
  [[nodiscard]] uint32_t bins_used() const { return used_; }
  [[nodiscard]] const Bin& bin(uint32_t index, int kind) const { return bins_[index][kind]; }
  // Per bin (bins_used() of them): message-picoseconds spent waiting before
  // the kind's links inside the bin.
  [[nodiscard]] std::vector<gpu::TimePs> queued_ps(int kind) const;

 private:
  [[nodiscard]] gpu::TimePs bin_end_ps(uint32_t index) const { return (gpu::TimePs{index} + 1) << shift_; }
  uint32_t index(gpu::TimePs t) {
    while ((t >> shift_) >= kMaxBins) coarsen();
    const auto b = static_cast<uint32_t>(t >> shift_);
    if (b >= used_) used_ = b + 1;
    return b;
  }
  void add_busy(int kind, gpu::TimePs start_ps, gpu::TimePs end_ps);
  // Doubles the bin width, merging bins 2i and 2i + 1 into bin i.
  void coarsen();

  uint32_t shift_ = 0;
  uint32_t used_ = 0;
  std::vector<std::array<Bin, kKinds>> bins_;
};

}  // namespace snr::dsim::noc
