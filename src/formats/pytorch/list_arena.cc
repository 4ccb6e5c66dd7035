#include "formats/pytorch/list_arena.h"

#include <algorithm>
#include <cstdint>
#include <new>

#include "formats/pytorch/json_input.h"

namespace snr::pytorch {

namespace {

// Blocks this large start on a huge-page boundary, so that all of one can
// be backed by huge pages.
constexpr size_t kHugePageBytes = size_t{2} << 20;

std::align_val_t block_alignment(size_t bytes) {
  return std::align_val_t{bytes >= 2 * kHugePageBytes ? kHugePageBytes : alignof(std::max_align_t)};
}

}  // namespace

ListArena::~ListArena() {
  for (const Block& block : blocks_) ::operator delete(block.data, block_alignment(block.bytes));
}

void ListArena::adopt(ListArena&& other) {
  // Ahead of the block being filled, which stays last.
  const auto at = blocks_.empty() ? blocks_.end() : blocks_.end() - 1;
  blocks_.insert(at, other.blocks_.begin(), other.blocks_.end());
  reserved_bytes_ += other.reserved_bytes_;
  other.blocks_.clear();
  other.next_ = other.end_ = nullptr;
  other.reserved_bytes_ = 0;
}

void ListArena::add_block(size_t at_least) {
  const size_t bytes = std::max(next_block_bytes_, at_least);
  auto* data = static_cast<std::byte*>(::operator new(bytes, block_alignment(bytes)));
  advise_huge_pages(data, bytes);
  blocks_.push_back({data, bytes});
  reserved_bytes_ += bytes;
  next_ = data;
  end_ = data + bytes;
  next_block_bytes_ = std::min(next_block_bytes_ * 2, kLargestBlockBytes);
}

void* ListArena::allocate(size_t bytes, size_t alignment) {
  const auto aligned = [&] {
    const auto address = reinterpret_cast<uintptr_t>(next_);
    return next_ + ((alignment - address % alignment) % alignment);
  };
  std::byte* at = next_ == nullptr ? nullptr : aligned();
  if (at == nullptr || static_cast<size_t>(end_ - at) < bytes) {
    add_block(bytes + alignment);
    at = aligned();
  }
  next_ = at + bytes;
  return at;
}

}  // namespace snr::pytorch
