#include "sim/flat_memory.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace snr::sim {
namespace {

TEST(FlatMemory, MapsPagesAnywhereInTheSixtyFourBitSpace) {
  FlatMemory m;
  const uint64_t stack = 0x40008007b8;  // qemu-riscv64's default stack region
  EXPECT_FALSE(m.contains(stack, 8));
  m.map(stack - 16, 32);
  EXPECT_EQ(m.page_count(), 1u);
  EXPECT_TRUE(m.contains(stack, 8));
  EXPECT_FALSE(m.contains(stack + FlatMemory::kPageBytes, 1));
  EXPECT_EQ(m.load<uint64_t>(stack), 0u);  // new pages read as zero
  m.store<uint64_t>(stack, 0x1122334455667788);
  EXPECT_EQ(m.load<uint32_t>(stack + 4), 0x11223344u);
}

TEST(FlatMemory, AccessesCrossPageBoundaries) {
  FlatMemory m;
  const uint64_t boundary = 0x7fff'f000;
  m.map(boundary - 4, 8);
  EXPECT_EQ(m.page_count(), 2u);
  m.store<uint64_t>(boundary - 4, 0x0102030405060708);
  EXPECT_EQ(m.load<uint64_t>(boundary - 4), 0x0102030405060708u);
  EXPECT_EQ(m.load<uint32_t>(boundary), 0x01020304u);
  EXPECT_EQ(m.mapped_pages(), (std::vector<uint64_t>{(boundary >> 12) - 1, boundary >> 12}));
  // Mapping again keeps the bytes.
  m.map(boundary - 4, 8);
  EXPECT_EQ(m.load<uint64_t>(boundary - 4), 0x0102030405060708u);
}

TEST(FlatMemory, RejectsWrappingRanges) {
  FlatMemory m;
  EXPECT_THROW(m.map(UINT64_MAX - 2, 8), Error);
  EXPECT_FALSE(m.contains(UINT64_MAX - 2, 8));
}

}  // namespace
}  // namespace snr::sim
