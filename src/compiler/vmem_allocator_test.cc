#include <gtest/gtest.h>

#include "common/error.h"
#include "compiler/vmem_allocator.h"

namespace snr::compiler {
namespace {

TEST(VmemAllocator, FirstFitReusesTheLowestHole) {
  VmemAllocator a(0x1000, 64 * 1024, 512, AllocatorPolicy::kFirstFit);
  const uint64_t x = a.allocate(4096, "x"), y = a.allocate(8192, "y"), z = a.allocate(1024, "z");
  EXPECT_EQ(x, 0x1000u);
  EXPECT_EQ(y, 0x1000u + 4096);
  a.release(x);
  EXPECT_EQ(a.allocate(1000, "w"), 0x1000u);  // rounded to 1024, first hole
  a.release(y);
  a.release(z);
  EXPECT_THROW(a.release(0x1234), Error);
}

TEST(VmemAllocator, BestFitPicksTheTightestHole) {
  VmemAllocator a(0, 64 * 1024, 512, AllocatorPolicy::kBestFit);
  const uint64_t big = a.allocate(8192, "big");
  a.allocate(512, "sep1");
  const uint64_t small = a.allocate(2048, "small");
  a.allocate(512, "sep2");
  a.release(big);
  a.release(small);
  EXPECT_EQ(a.allocate(2048, "fits small"), small);
}

TEST(VmemAllocator, FragmentationIsMeasuredAndFailureExplains) {
  VmemAllocator a(0, 16 * 512, 512, AllocatorPolicy::kFirstFit);
  std::vector<uint64_t> blocks;
  for (int i = 0; i < 16; ++i) blocks.push_back(a.allocate(512, "page"));
  for (int i = 0; i < 16; i += 2) a.release(blocks[static_cast<size_t>(i)]);
  EXPECT_EQ(a.largest_free_bytes(), 512u);
  try {
    a.allocate(1024, "two pages");
    FAIL() << "expected failure";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4096 bytes free, largest free extent 512"), std::string::npos) << e.what();
  }
  a.allocate(512, "one page");
  EXPECT_LT(a.stats().largest_free_samples.back(), a.stats().free_bytes_samples.back());
}

TEST(VmemAllocator, SizeSegregatedRoundsToPowersOfTwo) {
  VmemAllocator a(0, 1 << 20, 512, AllocatorPolicy::kSizeSegregated);
  a.allocate(3000, "x");
  EXPECT_EQ(a.used_bytes(), 4096u);
  const uint64_t large = a.allocate(300 * 1024, "large");
  EXPECT_EQ(large + 512 * 1024, uint64_t{1} << 20);  // large classes come from the top
}

}  // namespace
}  // namespace snr::compiler
