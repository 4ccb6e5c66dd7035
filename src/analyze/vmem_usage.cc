#include "analyze/vmem_usage.h"

#include <algorithm>
#include <tuple>

#include "isa/address_map.h"

namespace snr::analyze {
namespace {

struct PageRun {
  uint64_t page;
  uint64_t first;
  uint64_t last;
  bool is_write;
};

// Longest run of free pages under point updates (Figure 8a's "largest
// contiguous unused" at every sample without rescanning the pages).
class FreeRunTree {
 public:
  explicit FreeRunTree(uint64_t pages) : size_(1) {
    while (size_ < pages) size_ *= 2;
    node_.resize(2 * size_);
    for (uint64_t i = 0; i < size_; ++i) {
      const uint64_t free = i < pages ? 1 : 0;
      node_[size_ + i] = {free, free, free, 1};
    }
    for (uint64_t i = size_ - 1; i >= 1; --i) pull(i);
  }
  void set_free(uint64_t page, bool free) {
    uint64_t i = size_ + page;
    const uint64_t v = free ? 1 : 0;
    node_[i] = {v, v, v, 1};
    for (i /= 2; i >= 1; i /= 2) pull(i);
  }
  [[nodiscard]] uint64_t longest() const { return node_[1].best; }

 private:
  struct Node {
    uint64_t prefix, suffix, best, length;
  };
  void pull(uint64_t i) {
    const Node& l = node_[2 * i];
    const Node& r = node_[2 * i + 1];
    Node& n = node_[i];
    n.length = l.length + r.length;
    n.prefix = l.prefix == l.length ? l.length + r.prefix : l.prefix;
    n.suffix = r.suffix == r.length ? r.length + l.suffix : r.suffix;
    n.best = std::max({l.best, r.best, l.suffix + r.prefix});
  }
  uint64_t size_;
  std::vector<Node> node_;
};

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  if (values.size() % 2 == 1) return values[mid];
  const double upper = values[mid];
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

bool dma_destination_pages(const rundb::DmaRecord& dma, const VmemGeometry& geometry, uint64_t& first_page,
                           uint64_t& last_page) {
  if (dma.dst_space != "vmem" || dma.bytes == 0) return false;
  const uint64_t local = isa::split_global_address(dma.dst_address).local_address;
  if (local < isa::kVmemBase) return false;
  const uint64_t offset = local - isa::kVmemBase;
  first_page = offset / geometry.page_bytes;
  last_page = (offset + dma.bytes - 1) / geometry.page_bytes;
  return last_page < geometry.pages();
}

VmemTimeline::VmemTimeline(const RunIndex& index, const VmemGeometry& geometry) : geometry_(geometry) {
  const uint64_t pages = geometry.pages();
  std::vector<std::vector<PageRun>> per_chip(index.chip_count());
  for (const auto& row : index.data().vmem_runs) {
    if (row.chip >= per_chip.size()) continue;  // a chip that ran no instruction in the window
    for (uint64_t p = row.page; p <= row.last_page && p < pages; ++p) {
      per_chip[row.chip].push_back({p, row.first_cycle, row.last_cycle, row.is_write});
    }
  }
  chips_.resize(per_chip.size());
  for (size_t c = 0; c < per_chip.size(); ++c) {
    auto& runs = per_chip[c];
    std::sort(runs.begin(), runs.end(), [](const PageRun& a, const PageRun& b) {
      return std::tie(a.page, a.first, a.last, a.is_write) < std::tie(b.page, b.first, b.last, b.is_write);
    });
    Chip& chip = chips_[c];
    chip.run_begin.assign(pages + 1, 0);
    chip.used_begin.assign(pages + 1, 0);
    chip.runs.reserve(runs.size());
    size_t k = 0;
    for (uint64_t p = 0; p < pages; ++p) {
      chip.run_begin[p] = static_cast<uint32_t>(chip.runs.size());
      chip.used_begin[p] = static_cast<uint32_t>(chip.used.size());
      // Walk the page's runs: a write opens a value, the read run after it
      // (runs alternate kind) is its last use; a read with no write before
      // it in the window reads a value from before the window.
      bool open_write = false;
      uint64_t write_start = 0;
      bool unread = false;
      bool dead = false;
      for (; k < runs.size() && runs[k].page == p; ++k) {
        const PageRun& r = runs[k];
        chip.runs.push_back({r.first, r.last + 1});
        if (r.is_write) {
          if (open_write) dead = true;
          open_write = true;
          write_start = r.first;
        } else {
          chip.used.push_back({open_write ? write_start : 0, r.last + 1});
          open_write = false;
        }
      }
      unread = open_write;
      chip.written_never_read += dead ? 1 : 0;
      chip.unread_at_end += unread ? 1 : 0;
    }
    chip.run_begin[pages] = static_cast<uint32_t>(chip.runs.size());
    chip.used_begin[pages] = static_cast<uint32_t>(chip.used.size());
  }
}

bool VmemTimeline::overlaps(const std::vector<Span>& spans, uint32_t from, uint32_t to, uint64_t begin, uint64_t end) {
  // Spans of one page are disjoint and sorted: the first ending after
  // `begin` is the only candidate.
  auto it = std::partition_point(spans.begin() + from, spans.begin() + to,
                                 [begin](const Span& s) { return s.end <= begin; });
  return it != spans.begin() + to && it->begin < end;
}

bool VmemTimeline::pages_untouched(uint32_t chip, uint64_t first_page, uint64_t last_page, uint64_t begin,
                                   uint64_t end) const {
  if (chip >= chips_.size()) return true;
  const Chip& c = chips_[chip];
  for (uint64_t p = first_page; p <= last_page && p < geometry_.pages(); ++p) {
    if (overlaps(c.runs, c.run_begin[p], c.run_begin[p + 1], begin, end)) return false;
    if (overlaps(c.used, c.used_begin[p], c.used_begin[p + 1], begin, end)) return false;
  }
  return true;
}

uint64_t VmemTimeline::largest_unused_run(uint32_t chip, uint64_t begin, uint64_t end) const {
  if (chip >= chips_.size()) return geometry_.pages();
  const Chip& c = chips_[chip];
  uint64_t best = 0, run = 0;
  for (uint64_t p = 0; p < geometry_.pages(); ++p) {
    if (overlaps(c.used, c.used_begin[p], c.used_begin[p + 1], begin, end)) {
      run = 0;
    } else {
      best = std::max(best, ++run);
    }
  }
  return best;
}

VmemUsage VmemTimeline::usage(uint32_t chip, uint64_t total_cycles, uint64_t sample_cycles,
                              uint64_t pages_per_row) const {
  const uint64_t pages = geometry_.pages();
  sample_cycles = std::max<uint64_t>(sample_cycles, 1);
  pages_per_row = std::max<uint64_t>(pages_per_row, 1);
  VmemUsage u;
  u.chip = chip;
  u.page_bytes = geometry_.page_bytes;
  u.pages = pages;
  u.sample_cycles = sample_cycles;
  u.pages_per_block = pages_per_row;
  const uint64_t rows = (pages + pages_per_row - 1) / pages_per_row;
  u.used_pages_per_block.assign(rows, {});
  const uint64_t samples = std::max<uint64_t>((total_cycles + sample_cycles - 1) / sample_cycles, 1);
  // Transitions in cycle order: a page stops being used before another
  // use of it starts at the same cycle.
  struct Transition {
    uint64_t cycle;
    int delta;
    uint64_t page;
  };
  std::vector<Transition> transitions;
  if (chip < chips_.size()) {
    const Chip& c = chips_[chip];
    u.pages_written_never_read = c.written_never_read;
    u.pages_written_unread_at_end = c.unread_at_end;
    transitions.reserve(c.used.size() * 2);
    for (uint64_t p = 0; p < pages; ++p) {
      for (uint32_t i = c.used_begin[p]; i < c.used_begin[p + 1]; ++i) {
        transitions.push_back({c.used[i].begin, +1, p});
        transitions.push_back({c.used[i].end, -1, p});
      }
    }
  }
  std::sort(transitions.begin(), transitions.end(), [](const Transition& a, const Transition& b) {
    return std::tie(a.cycle, a.delta, a.page) < std::tie(b.cycle, b.delta, b.page);
  });
  FreeRunTree tree(pages);
  std::vector<uint32_t> use_count(pages, 0);
  std::vector<uint32_t> row_used(rows, 0);
  uint64_t used = 0;
  size_t next = 0;
  for (uint64_t s = 0; s < samples; ++s) {
    const uint64_t t = s * sample_cycles;
    for (; next < transitions.size() && transitions[next].cycle <= t; ++next) {
      const Transition& tr = transitions[next];
      uint32_t& count = use_count[tr.page];
      const bool was_used = count > 0;
      count = tr.delta > 0 ? count + 1 : count - 1;
      const bool is_used = count > 0;
      if (was_used == is_used) continue;
      tree.set_free(tr.page, !is_used);
      used = is_used ? used + 1 : used - 1;
      row_used[tr.page / pages_per_row] += is_used ? 1 : static_cast<uint32_t>(-1);
    }
    u.sample_cycle.push_back(t);
    u.unused_fraction.push_back(pages == 0 ? 0 : static_cast<double>(pages - used) / static_cast<double>(pages));
    u.largest_unused_fraction.push_back(pages == 0 ? 0 : static_cast<double>(tree.longest()) / static_cast<double>(pages));
    for (uint64_t r = 0; r < rows; ++r) u.used_pages_per_block[r].push_back(row_used[r]);
  }
  u.median_unused_fraction = median(u.unused_fraction);
  u.median_largest_unused_fraction = median(u.largest_unused_fraction);
  return u;
}

}  // namespace snr::analyze
