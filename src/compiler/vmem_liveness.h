// VMEM page liveness over a window of a timing run, measured the way seed
// 000 §5.3.2 (Figure 8) does it: at each sampled cycle a page is *used*
// when it lies inside a write -> last-read interval (written, and read
// again later), and unused otherwise (never written, or written and not
// read again). The fragmentation figure is the longest run of unused pages
// next to all unused pages. Accesses come from the simulator's VMEM page
// events (sim::VmemPageAccess): vector loads/stores, weight loads and DMA
// landings, so this is what a replay of the same window shows.
#pragma once

#include <cstdint>
#include <vector>

namespace snr::compiler {

struct VmemLiveness {
  uint64_t pages = 0;
  uint64_t first_cycle = 0;  // the window
  uint64_t last_cycle = 0;
  std::vector<uint64_t> sample_cycle;
  std::vector<double> unused_fraction;          // per sample, of all pages
  std::vector<double> largest_unused_fraction;  // per sample, of all pages

  [[nodiscard]] double median_unused_fraction() const;
  [[nodiscard]] double median_largest_unused_fraction() const;
};

// Collects one chip's page accesses between start() and stop(), then
// samples liveness. Accesses outside the window are ignored, as a
// recording of that window would not see them.
class VmemLivenessTracker {
 public:
  explicit VmemLivenessTracker(uint64_t pages);

  void start(uint64_t cycle);
  void stop(uint64_t cycle);
  [[nodiscard]] bool recording() const { return recording_; }
  void access(uint64_t cycle, uint64_t page, bool is_write);

  // `samples` evenly spaced cycles over the window (the whole window when
  // stop() was never called ends at the last access seen).
  [[nodiscard]] VmemLiveness finish(uint64_t samples) const;

 private:
  struct Interval {
    uint64_t write_cycle;
    uint64_t last_read_cycle;
  };
  struct Page {
    bool open = false;   // written in the window, interval not yet closed
    bool read = false;   // the open write has been read
    Interval current{};
    std::vector<Interval> intervals;
  };

  uint64_t pages_;
  std::vector<Page> page_;
  bool recording_ = false;
  bool started_ = false;
  uint64_t first_cycle_ = 0;
  uint64_t last_cycle_ = 0;
  bool stopped_ = false;
};

}  // namespace snr::compiler
