#include "sim/paged_memory.h"

#include <algorithm>
#include <bit>
#include <new>

namespace snr::sim {
namespace {
// Keeps the page table at most this many entries (8 bytes each).
constexpr uint64_t kMaxPageTableEntries = 1u << 19;
}  // namespace

PagedMemory::PagedMemory(uint64_t size_bytes, uint64_t min_page_bytes) : size_bytes_(size_bytes) {
  uint64_t page = std::bit_ceil(std::max<uint64_t>(min_page_bytes, 64));
  while ((size_bytes + page - 1) / page > kMaxPageTableEntries) page *= 2;
  page_bytes_ = page;
  page_shift_ = static_cast<uint32_t>(std::countr_zero(page));
  page_mask_ = page - 1;
  page_count_ = (size_bytes + page - 1) / page;
  pages_.reset(static_cast<uint8_t**>(std::calloc(std::max<uint64_t>(page_count_, 1), sizeof(uint8_t*))));
  if (!pages_) throw std::bad_alloc();
}

void PagedMemory::read(uint64_t offset, std::span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const uint64_t at = offset + done;
    const uint64_t in_page = at & page_mask_;
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(page_bytes_ - in_page, out.size() - done));
    const uint8_t* p = pages_[at >> page_shift_];
    if (p != nullptr) {
      std::memcpy(out.data() + done, p + in_page, chunk);
      done += chunk;
      continue;
    }
    // Runs of pages never written are answered in one call: a DMA of a
    // weight tile across pages generates its bytes without a page each.
    size_t absent = chunk;
    while (done + absent < out.size() && pages_[(at + absent) >> page_shift_] == nullptr) {
      absent += static_cast<size_t>(std::min<uint64_t>(page_bytes_, out.size() - done - absent));
    }
    const std::span<uint8_t> piece = out.subspan(done, absent);
    std::memset(piece.data(), 0, piece.size());
    if (initializer_) initializer_(at, piece);
    done += absent;
  }
}

uint8_t* PagedMemory::allocate_page(uint64_t page) {
  auto* p = static_cast<uint8_t*>(std::calloc(page_bytes_, 1));
  if (p == nullptr) throw std::bad_alloc();
  pages_[page] = p;
  ++materialized_pages_;
  return p;
}

uint8_t* PagedMemory::initialize_page(uint64_t page) {
  uint8_t* p = allocate_page(page);
  if (initializer_) initializer_(page << page_shift_, std::span<uint8_t>(p, page_bytes_));
  return p;
}

void PagedMemory::write(uint64_t offset, std::span<const uint8_t> data) {
  size_t done = 0;
  while (done < data.size()) {
    const uint64_t at = offset + done;
    const uint64_t in_page = at & page_mask_;
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(page_bytes_ - in_page, data.size() - done));
    // A write of a whole page replaces its initial contents: they are never
    // generated.
    if (chunk == page_bytes_ && pages_[at >> page_shift_] == nullptr) allocate_page(at >> page_shift_);
    std::memcpy(page_for_write(at >> page_shift_) + in_page, data.data() + done, chunk);
    done += chunk;
  }
}

std::vector<uint64_t> PagedMemory::touched_page_offsets() const {
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < page_count_; ++i) {
    if (pages_[i] != nullptr) out.push_back(i << page_shift_);
  }
  return out;
}

void PagedMemory::clear_pages() {
  // Stops at the last page, not the end of a mostly untouched table.
  if (!pages_) return;
  for (uint64_t i = 0; i < page_count_ && materialized_pages_ > 0; ++i) {
    if (pages_[i] != nullptr) {
      std::free(pages_[i]);
      pages_[i] = nullptr;
      --materialized_pages_;
    }
  }
}

void PagedMemory::clear() {
  clear_pages();
  materialized_pages_ = 0;
  initializer_ = nullptr;
}

}  // namespace snr::sim
