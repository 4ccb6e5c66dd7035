#include "taskfarm/farm.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <stdexcept>

#include "common/error.h"

namespace snr::taskfarm {
namespace {

TEST(GuidedChunk, HalvesTheShareAndEndsWithSingles) {
  EXPECT_EQ(guided_chunk(0, 2), 0u);
  EXPECT_EQ(guided_chunk(1, 4), 1u);
  EXPECT_EQ(guided_chunk(3, 2), 1u);
  EXPECT_EQ(guided_chunk(2000, 2), 500u);
  EXPECT_EQ(guided_chunk(2000, 4), 250u);
  EXPECT_EQ(guided_chunk(10, 1), 5u);
  // Every id is handed out exactly once whatever the sizes.
  for (int ranks : {1, 2, 3, 4, 7}) {
    uint64_t remaining = 1234, handed = 0, chunks = 0;
    while (remaining > 0) {
      const uint64_t chunk = guided_chunk(remaining, ranks);
      ASSERT_GE(chunk, 1u);
      ASSERT_LE(chunk, remaining);
      remaining -= chunk;
      handed += chunk;
      ++chunks;
    }
    EXPECT_EQ(handed, 1234u);
    EXPECT_LT(chunks, 200u) << ranks;  // logarithmic-ish, not one message per id
  }
}

TEST(Farm, RunsEveryTaskOnceInThisProcess) {
  Session session;
  ASSERT_TRUE(session.is_writer());
  std::vector<uint64_t> ids(100);
  std::iota(ids.begin(), ids.end(), 7);
  std::map<uint64_t, std::string> results;
  run(session, ids, [](uint64_t id) { return std::to_string(id * id); },
      [&](uint64_t id, std::string result) { EXPECT_TRUE(results.emplace(id, std::move(result)).second); });
  ASSERT_EQ(results.size(), 100u);
  EXPECT_EQ(results.at(7), "49");
  EXPECT_EQ(results.at(106), "11236");
  EXPECT_EQ(broadcast(session, "same"), "same");
}

TEST(Farm, ATaskThatThrowsStopsTheFarmNamingTheTask) {
  Session session;
  const std::vector<uint64_t> ids{1, 2, 3};
  int stored = 0;
  try {
    run(session, ids,
        [](uint64_t id) -> std::string {
          if (id == 2) throw std::runtime_error("bad point");
          return "ok";
        },
        [&](uint64_t, std::string) { ++stored; });
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("task 2: bad point"), std::string::npos) << e.what();
  }
  EXPECT_EQ(stored, 1);
}

}  // namespace
}  // namespace snr::taskfarm
