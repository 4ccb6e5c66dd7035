#include "common/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace snr {
namespace {

TEST(RunJobs, RunsEveryJobOnceAndReturnsEachError) {
  std::vector<std::atomic<int>> runs(7);
  std::vector<std::function<void()>> jobs;
  for (size_t k = 0; k < runs.size(); ++k) {
    jobs.emplace_back([&runs, k] {
      ++runs[k];
      if (k % 3 == 1) throw std::runtime_error("job " + std::to_string(k));
    });
  }
  const auto errors = run_jobs(jobs, 3);
  ASSERT_EQ(errors.size(), jobs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    EXPECT_EQ(runs[k].load(), 1) << k;
    EXPECT_EQ(errors[k] != nullptr, k % 3 == 1) << k;
  }
  try {
    rethrow_first(errors);
    FAIL() << "expected job 1's error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "job 1");
  }
}

TEST(RunJobs, NeverRunsMoreThanAskedAtOnce) {
  std::atomic<int> running = 0;
  std::atomic<int> most = 0;
  std::vector<std::function<void()>> jobs(6, [&] {
    const int now = ++running;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --running;
  });
  (void)run_jobs(jobs, 2);
  EXPECT_LE(most.load(), 2);
  if (hardware_threads() > 1) {
    EXPECT_EQ(most.load(), 2);
  }
  most = 0;
  (void)run_jobs(jobs, 0);  // 0 counts as one thread
  EXPECT_EQ(most.load(), 1);
}

TEST(RunJobs, NoJobsAndNoErrors) {
  EXPECT_TRUE(run_jobs({}, 4).empty());
  rethrow_first({nullptr, nullptr});
}

}  // namespace
}  // namespace snr
