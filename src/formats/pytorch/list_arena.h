// Memory for the small lists every host-trace node carries (its arguments,
// tensors and unknown attributes). A large trace holds millions of them;
// as separate heap allocations each costs a malloc, a header and, for the
// heap's fresh pages, a page fault per 4 KiB. Here they are handed out one
// after another from large blocks (advised for transparent huge pages) and
// freed all at once with the arena, which the trace owns like its TextPool.
// Lists use it through ListAllocator (ArenaList).
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

namespace snr::pytorch {

class ListArena {
 public:
  ListArena() = default;
  ListArena(const ListArena&) = delete;
  ListArena& operator=(const ListArena&) = delete;
  ~ListArena();

  // `bytes` aligned to `alignment` (a power of two), valid as long as the
  // arena lives; never given back on its own.
  void* allocate(size_t bytes, size_t alignment);

  // Takes `other`'s blocks: what was allocated from it stays valid as long
  // as this arena lives.
  void adopt(ListArena&& other);

  [[nodiscard]] size_t reserved_bytes() const { return reserved_bytes_; }

 private:
  // Blocks grow from small (a small trace touches little) to the size at
  // which huge pages pay, and no further.
  static constexpr size_t kFirstBlockBytes = size_t{64} << 10;
  static constexpr size_t kLargestBlockBytes = size_t{16} << 20;

  struct Block {
    std::byte* data;
    size_t bytes;
  };

  void add_block(size_t at_least);

  std::vector<Block> blocks_;
  std::byte* next_ = nullptr;
  std::byte* end_ = nullptr;
  size_t next_block_bytes_ = kFirstBlockBytes;
  size_t reserved_bytes_ = 0;
};

// Allocates from a ListArena, or from the heap when made without one (and
// for every copy of a list: a copy does not depend on the arena). Giving
// arena memory back does nothing and does not touch the arena, so a list
// may be destroyed after its arena; a list that grows leaves its old
// storage in the arena, which is why the readers size lists up front.
template <typename T>
class ListAllocator {
 public:
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  using propagate_on_container_copy_assignment = std::false_type;

  ListAllocator() noexcept = default;
  explicit ListAllocator(ListArena* arena) noexcept : arena_(arena) {}
  template <typename U>
  ListAllocator(const ListAllocator<U>& other) noexcept : arena_(other.arena()) {}  // NOLINT: rebinding converts

  T* allocate(size_t count) {
    if (arena_ == nullptr) return std::allocator<T>().allocate(count);
    return static_cast<T*>(arena_->allocate(count * sizeof(T), alignof(T)));
  }
  void deallocate(T* data, size_t count) noexcept {
    if (arena_ == nullptr) std::allocator<T>().deallocate(data, count);
  }
  [[nodiscard]] ListAllocator select_on_container_copy_construction() const { return {}; }

  [[nodiscard]] ListArena* arena() const { return arena_; }
  friend bool operator==(const ListAllocator& a, const ListAllocator& b) { return a.arena_ == b.arena_; }

 private:
  ListArena* arena_ = nullptr;
};

template <typename T>
using ArenaList = std::vector<T, ListAllocator<T>>;

}  // namespace snr::pytorch
