#include "compiler/vmem_liveness.h"

#include <algorithm>

#include "common/error.h"

namespace snr::compiler {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

double VmemLiveness::median_unused_fraction() const { return median(unused_fraction); }
double VmemLiveness::median_largest_unused_fraction() const { return median(largest_unused_fraction); }

VmemLivenessTracker::VmemLivenessTracker(uint64_t pages) : pages_(pages), page_(pages) {}

void VmemLivenessTracker::start(uint64_t cycle) {
  if (started_) return;
  started_ = recording_ = true;
  first_cycle_ = last_cycle_ = cycle;
}

void VmemLivenessTracker::stop(uint64_t cycle) {
  if (!recording_) return;
  recording_ = false;
  stopped_ = true;
  last_cycle_ = std::max(last_cycle_, cycle);
}

void VmemLivenessTracker::access(uint64_t cycle, uint64_t page, bool is_write) {
  if (!recording_) return;
  if (page >= pages_) throw Error("VMEM liveness: page outside VMEM");
  last_cycle_ = std::max(last_cycle_, cycle);
  Page& p = page_[page];
  if (is_write) {
    // A write ends the previous value's life at its last read; a value
    // never read again was never used.
    if (p.open && p.read) p.intervals.push_back(p.current);
    p.open = true;
    p.read = false;
    p.current = {cycle, cycle};
  } else if (p.open) {
    p.read = true;
    p.current.last_read_cycle = cycle;
  }
}

VmemLiveness VmemLivenessTracker::finish(uint64_t samples) const {
  VmemLiveness out;
  out.pages = pages_;
  out.first_cycle = first_cycle_;
  out.last_cycle = last_cycle_;
  if (!started_ || samples == 0 || pages_ == 0) return out;
  const uint64_t span = last_cycle_ - first_cycle_;
  for (uint64_t s = 0; s < samples; ++s) out.sample_cycle.push_back(first_cycle_ + span * s / samples);
  // Per page, its closed intervals in time order plus the open one; a
  // cursor per page walks them as the samples advance.
  std::vector<std::vector<Interval>> intervals(pages_);
  for (uint64_t i = 0; i < pages_; ++i) {
    intervals[i] = page_[i].intervals;
    if (page_[i].open && page_[i].read) intervals[i].push_back(page_[i].current);
  }
  std::vector<size_t> cursor(pages_, 0);
  for (const uint64_t cycle : out.sample_cycle) {
    uint64_t unused = 0, run = 0, longest = 0;
    for (uint64_t i = 0; i < pages_; ++i) {
      const std::vector<Interval>& list = intervals[i];
      size_t& c = cursor[i];
      while (c < list.size() && list[c].last_read_cycle < cycle) ++c;
      const bool used = c < list.size() && list[c].write_cycle <= cycle;
      if (used) {
        run = 0;
      } else {
        ++unused;
        longest = std::max(longest, ++run);
      }
    }
    out.unused_fraction.push_back(static_cast<double>(unused) / static_cast<double>(pages_));
    out.largest_unused_fraction.push_back(static_cast<double>(longest) / static_cast<double>(pages_));
  }
  return out;
}

}  // namespace snr::compiler
