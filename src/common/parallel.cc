#include "common/parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace snr {

size_t hardware_threads() { return std::max<size_t>(1, std::thread::hardware_concurrency()); }

std::vector<std::exception_ptr> run_jobs(const std::vector<std::function<void()>>& jobs, size_t max_threads) {
  std::vector<std::exception_ptr> errors(jobs.size());
  std::atomic<size_t> next = 0;
  const auto work = [&] {
    for (size_t k = next++; k < jobs.size(); k = next++) {
      try {
        jobs[k]();
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> workers;
    const size_t threads = std::min(jobs.size(), std::max<size_t>(1, max_threads));
    for (size_t t = 1; t < threads; ++t) workers.emplace_back(work);
    work();
  }
  return errors;
}

void rethrow_first(const std::vector<std::exception_ptr>& errors) {
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace snr
