#include "et/convert/flat_id_map.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <unordered_map>

namespace snr::et_convert {
namespace {

// Lookups agree with std::unordered_map::emplace (the first index kept),
// through growth, for consecutive, random and extreme ids.
TEST(FlatIdMap, AgreesWithUnorderedMap) {
  std::mt19937_64 random(3);
  for (const size_t reserved : {size_t{0}, size_t{5000}}) {
    FlatIdMap map(reserved);
    std::unordered_map<int64_t, size_t> expected;
    EXPECT_TRUE(map.empty());
    for (size_t i = 0; i < 5000; ++i) {
      const int64_t id = i % 3 == 0   ? static_cast<int64_t>(i / 2)
                         : i % 3 == 1 ? static_cast<int64_t>(random() % 2000) - 1000
                                      : static_cast<int64_t>(random());
      map.emplace(id, i);
      expected.emplace(id, i);
    }
    map.emplace(std::numeric_limits<int64_t>::min(), 1);
    expected.emplace(std::numeric_limits<int64_t>::min(), 1);
    EXPECT_FALSE(map.empty());
    for (const auto& [id, index] : expected) {
      const size_t* found = map.find(id);
      ASSERT_NE(found, nullptr) << id;
      EXPECT_EQ(*found, index) << id;
    }
    EXPECT_EQ(map.find(std::numeric_limits<int64_t>::max()), nullptr);
    EXPECT_EQ(map.find(123456789012345), nullptr);
  }
}

}  // namespace
}  // namespace snr::et_convert
