// VMEM utilization and fragmentation (seed 000 §5.3.2, Figure 8): page
// liveness from run.db vmem_runs, sampled over time with the largest
// contiguous unused run, and span queries the suggestions need.
#pragma once

#include <cstdint>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/run_index.h"

namespace snr::analyze {

struct VmemGeometry {
  uint64_t page_bytes = 512;
  uint64_t pages_per_block = 256;
  uint64_t blocks = 128;
  [[nodiscard]] uint64_t pages() const { return pages_per_block * blocks; }
};

// Per chip: every page's access runs and the intervals in which it holds a
// value that is read later ("used"), both as [first, end) cycles.
class VmemTimeline {
 public:
  VmemTimeline(const RunIndex& index, const VmemGeometry& geometry);

  struct Span {
    uint64_t begin = 0;
    uint64_t end = 0;  // exclusive
  };

  [[nodiscard]] const VmemGeometry& geometry() const { return geometry_; }
  [[nodiscard]] uint32_t chips() const { return static_cast<uint32_t>(chips_.size()); }
  // Pages [first_page, last_page] of `chip` are neither accessed nor used
  // at any cycle of [begin, end): a DMA landing there earlier clobbers nothing.
  [[nodiscard]] bool pages_untouched(uint32_t chip, uint64_t first_page, uint64_t last_page, uint64_t begin,
                                     uint64_t end) const;
  // Longest run of pages of `chip` unused during all of [begin, end).
  [[nodiscard]] uint64_t largest_unused_run(uint32_t chip, uint64_t begin, uint64_t end) const;

  // Figure 8 for one chip: samples every `sample_cycles` over
  // [0, total_cycles), heatmap rows of `pages_per_row` pages.
  [[nodiscard]] VmemUsage usage(uint32_t chip, uint64_t total_cycles, uint64_t sample_cycles,
                                uint64_t pages_per_row) const;

 private:
  struct Chip {
    // CSR by page: runs_[run_begin[p] .. run_begin[p+1]) sorted by cycle.
    std::vector<uint32_t> run_begin;
    std::vector<Span> runs;
    std::vector<uint32_t> used_begin;
    std::vector<Span> used;
    uint64_t written_never_read = 0;   // pages with a value overwritten unread
    uint64_t unread_at_end = 0;        // pages whose last value was never read in the window
  };
  [[nodiscard]] static bool overlaps(const std::vector<Span>& spans, uint32_t from, uint32_t to, uint64_t begin,
                                     uint64_t end);

  VmemGeometry geometry_;
  std::vector<Chip> chips_;
};

// Pages [first, last] a DMA destination covers on its destination chip,
// false when the destination is not VMEM or lies outside it.
bool dma_destination_pages(const rundb::DmaRecord& dma, const VmemGeometry& geometry, uint64_t& first_page,
                           uint64_t& last_page);

double median(std::vector<double> values);

}  // namespace snr::analyze
