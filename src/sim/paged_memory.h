// Sparse, lazily allocated byte-addressable memory: pages come into being on
// first write and read as zero before that, so a 32 GiB HBM costs only what a
// program touches. An optional initializer gives memory its initial contents
// (a model's generated weights, a snapshot's saved regions) without holding
// them: reads of a page never written are answered by the initializer
// directly, and only a write materializes a page (initializer, then the
// write). Weights are read, not written, so they cost no page at all. A flat
// page table (not a hash map) keeps the hot path of scalar loads and stores
// to a shift, an index and a copy.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace snr::sim {

class PagedMemory {
 public:
  // `size_bytes` of address space; backing pages of at least
  // `min_page_bytes` (a power of two), grown so the page table stays small.
  PagedMemory(uint64_t size_bytes, uint64_t min_page_bytes);
  ~PagedMemory() { clear_pages(); }
  PagedMemory(PagedMemory&& other) noexcept { *this = std::move(other); }
  PagedMemory& operator=(PagedMemory&& other) noexcept {
    if (this != &other) {
      clear_pages();
      size_bytes_ = other.size_bytes_;
      page_bytes_ = other.page_bytes_;
      page_shift_ = other.page_shift_;
      page_mask_ = other.page_mask_;
      page_count_ = other.page_count_;
      pages_ = std::move(other.pages_);
      materialized_pages_ = other.materialized_pages_;
      initializer_ = std::move(other.initializer_);
      other.page_count_ = 0;
      other.materialized_pages_ = 0;
    }
    return *this;
  }

  [[nodiscard]] uint64_t size_bytes() const { return size_bytes_; }
  [[nodiscard]] bool contains(uint64_t offset, uint64_t length) const {
    return offset <= size_bytes_ && length <= size_bytes_ - offset;
  }

  // Fills `out`, zero-filled by the caller, with the initial contents of
  // [offset, offset + out.size()): for every read of memory no write has
  // materialized yet, and once for a whole page on its first write. It must
  // give the same bytes for the same offset every time; pages already
  // present are left as they are. The span may extend past size_bytes() on
  // the last page. clear() drops the initializer.
  using PageInitializer = std::function<void(uint64_t offset, std::span<uint8_t> out)>;
  void set_initializer(PageInitializer initializer) { initializer_ = std::move(initializer); }

  // Caller guarantees contains(offset, out.size()).
  void read(uint64_t offset, std::span<uint8_t> out) const;
  void write(uint64_t offset, std::span<const uint8_t> data);

  template <typename T>
  T load(uint64_t offset) const {
    const uint64_t page = offset >> page_shift_;
    const uint64_t in_page = offset & page_mask_;
    T value{};
    if (in_page + sizeof(T) <= page_bytes_) [[likely]] {
      const uint8_t* p = pages_[page];
      if (p != nullptr) [[likely]] {
        std::memcpy(&value, p + in_page, sizeof(T));
      } else if (initializer_) {
        initializer_(offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&value), sizeof(T)));
      }
      return value;
    }
    read(offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&value), sizeof(T)));
    return value;
  }
  template <typename T>
  void store(uint64_t offset, T value) {
    const uint64_t page = offset >> page_shift_;
    const uint64_t in_page = offset & page_mask_;
    if (in_page + sizeof(T) <= page_bytes_) [[likely]] {
      std::memcpy(page_for_write(page) + in_page, &value, sizeof(T));
      return;
    }
    write(offset, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&value), sizeof(T)));
  }

  // Pages that exist (written), in address order (for tests).
  [[nodiscard]] std::vector<uint64_t> touched_page_offsets() const;
  [[nodiscard]] uint64_t materialized_page_count() const { return materialized_pages_; }
  [[nodiscard]] uint64_t page_bytes() const { return page_bytes_; }
  void clear();

 private:
  // calloc, not new[], for pages and the page table: large blocks come
  // straight from the kernel already zeroed, so a page filled by a snapshot
  // region is not written twice, and the parts of the table no page uses
  // (most of a 32 GiB HBM's) cost no memory.
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };

  uint8_t* page_for_write(uint64_t page) {
    uint8_t* slot = pages_[page];
    if (slot == nullptr) [[unlikely]] return initialize_page(page);
    return slot;
  }
  // Allocates page `page`, zero-filled.
  uint8_t* allocate_page(uint64_t page);
  void clear_pages();
  // Allocates page `page` and runs the initializer on it (before its first write).
  uint8_t* initialize_page(uint64_t page);

  uint64_t size_bytes_ = 0;
  uint64_t page_bytes_ = 0;
  uint32_t page_shift_ = 0;
  uint64_t page_mask_ = 0;
  uint64_t page_count_ = 0;
  std::unique_ptr<uint8_t*[], FreeDeleter> pages_;  // page_count_ entries, null until materialized
  uint64_t materialized_pages_ = 0;
  PageInitializer initializer_;
};

}  // namespace snr::sim
