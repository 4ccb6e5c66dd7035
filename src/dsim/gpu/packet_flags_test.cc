// PacketFlags against a brute-force reference of the same rule: a store
// merges its interval with the ones it touches; a parked load is answered
// once one merged interval covers it, in parking order.
#include "dsim/gpu/packet_flags.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace snr::dsim::gpu {
namespace {

struct Reference {
  struct Load {
    uint32_t area;
    uint64_t begin, end;
    uint32_t tag;
  };
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> arrived;
  std::vector<Load> parked;  // in parking order

  explicit Reference(uint32_t areas) : arrived(areas) {}
  bool covered(uint32_t area, uint64_t begin, uint64_t end) const {
    for (const auto& [b, e] : arrived[area]) {
      if (b <= begin && e >= end) return true;
    }
    return false;
  }
  std::vector<uint32_t> arrive(uint32_t area, uint64_t begin, uint64_t end) {
    auto& list = arrived[area];
    bool merged = true;
    while (merged) {
      merged = false;
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].first <= end && list[i].second >= begin) {  // touching or overlapping
          begin = std::min(begin, list[i].first);
          end = std::max(end, list[i].second);
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
          merged = true;
          break;
        }
      }
    }
    list.emplace_back(begin, end);
    std::vector<uint32_t> answered;
    std::erase_if(parked, [&](const Load& l) {
      if (l.area != area || !covered(area, l.begin, l.end)) return false;
      answered.push_back(l.tag);
      return true;
    });
    return answered;
  }
};

TEST(PacketFlags, StoreAnswersTheLoadsItCompletesInParkingOrder) {
  PacketFlags flags(2);
  std::vector<uint32_t> answered;
  EXPECT_FALSE(flags.covered(0, 0, 64));
  flags.park(0, 64, 128, 7);
  flags.park(0, 0, 64, 3);
  flags.park(1, 0, 64, 9);  // another area
  flags.arrive(0, 0, 100, answered);
  EXPECT_EQ(answered, std::vector<uint32_t>{3});
  flags.arrive(0, 100, 128, answered);  // merges into [0, 128)
  EXPECT_EQ(answered, std::vector<uint32_t>{7});
  EXPECT_TRUE(flags.covered(0, 10, 128));
  EXPECT_FALSE(flags.covered(1, 0, 64));
  EXPECT_EQ(flags.parked(), 1u);
}

TEST(PacketFlags, LoadSpanningTwoIntervalsWaitsForTheGapToClose) {
  PacketFlags flags(1);
  std::vector<uint32_t> answered;
  flags.arrive(0, 0, 60, answered);
  flags.arrive(0, 70, 200, answered);
  flags.park(0, 50, 80, 1);                // covered by neither alone
  flags.arrive(0, 300, 400, answered);     // elsewhere
  EXPECT_TRUE(answered.empty());
  flags.arrive(0, 60, 70, answered);       // closes the gap far from the load's first grain
  EXPECT_EQ(answered, std::vector<uint32_t>{1});
}

TEST(PacketFlags, MatchesTheReferenceOnRandomTraffic) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    constexpr uint32_t kAreas = 3;
    PacketFlags flags(kAreas);
    Reference ref(kAreas);
    std::vector<uint32_t> answered;
    uint32_t tag = 0;
    for (int step = 0; step < 3000; ++step) {
      const auto area = static_cast<uint32_t>(rng() % kAreas);
      // Lines of 64 or 120 bytes with odd offsets, and a few long loads.
      const uint64_t begin = (rng() % 400) * (rng() % 2 ? 64 : 120) + rng() % 3;
      const uint64_t length = rng() % 16 == 0 ? 1 + rng() % 700 : 1 + rng() % 128;
      if (rng() % 2 == 0) {
        ASSERT_EQ(flags.covered(area, begin, begin + length), ref.covered(area, begin, begin + length));
        if (!ref.covered(area, begin, begin + length)) {
          flags.park(area, begin, begin + length, tag);
          ref.parked.push_back({area, begin, begin + length, tag});
          ++tag;
        }
      } else {
        flags.arrive(area, begin, begin + length, answered);
        ASSERT_EQ(answered, ref.arrive(area, begin, begin + length)) << "seed " << seed << " step " << step;
      }
      ASSERT_EQ(flags.parked(), ref.parked.size());
    }
  }
}

}  // namespace
}  // namespace snr::dsim::gpu
