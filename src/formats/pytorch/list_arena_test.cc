#include "formats/pytorch/list_arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace snr::pytorch {
namespace {

// Allocations of every alignment and of sizes past the largest block are
// aligned, writable and apart; what an adopted arena handed out stays put.
TEST(ListArena, AlignsSeparatesAndAdopts) {
  ListArena arena;
  std::byte* previous = nullptr;
  size_t previous_bytes = 0;
  for (size_t i = 0; i < 2000; ++i) {
    const size_t alignment = size_t{1} << (i % 5);
    const size_t bytes = i == 1000 ? (size_t{40} << 20) : 1 + i % 300;
    auto* data = static_cast<std::byte*>(arena.allocate(bytes, alignment));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % alignment, 0u);
    std::memset(data, 0x5a, bytes);
    if (previous != nullptr) {
      EXPECT_TRUE(data >= previous + previous_bytes || data + bytes <= previous);
    }
    previous = data;
    previous_bytes = bytes;
  }
  ListArena other;
  auto* kept = static_cast<char*>(other.allocate(6, 1));
  std::memcpy(kept, "kept!", 6);
  const size_t reserved = arena.reserved_bytes() + other.reserved_bytes();
  arena.adopt(std::move(other));
  EXPECT_EQ(arena.reserved_bytes(), reserved);
  EXPECT_EQ(other.reserved_bytes(), 0u);
  EXPECT_EQ(std::string_view(kept), "kept!");
}

// Lists copied from arena lists live on the heap; arena lists may go after
// their arena.
TEST(ListArena, CopiesUseTheHeapAndListsMayOutliveTheArena) {
  auto arena = std::make_unique<ListArena>();
  ArenaList<int> list{ListAllocator<int>(arena.get())};
  for (int i = 0; i < 100; ++i) list.push_back(i);
  const ArenaList<int> copy = list;
  EXPECT_EQ(copy.get_allocator().arena(), nullptr);
  EXPECT_EQ(copy, list);
  ArenaList<int> moved = std::move(list);
  EXPECT_EQ(moved.get_allocator().arena(), arena.get());
  arena.reset();
  EXPECT_EQ(copy.size(), 100u);
}

}  // namespace
}  // namespace snr::pytorch
