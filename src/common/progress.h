// Progress of long loops on a terminal: "label: 1234/100000 ranks, 2.1k/s,
// ETA 47 s". Prints only when stderr is a terminal (logs and pipes stay
// clean) and at most a few times per second, so calling update() on every
// item costs a clock read.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace snr {

class ProgressMeter {
 public:
  // `force` prints even when stderr is not a terminal (tests).
  ProgressMeter(std::string label, uint64_t total, std::string unit, bool force = false);
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  void update(uint64_t done);
  // Clears the line (called by the destructor too).
  void finish();

  // "1234/100000 ranks, 2.1k/s, ETA 47 s" for the given state (testable).
  static std::string format_line(uint64_t done, uint64_t total, std::string_view unit, double elapsed_s);

 private:
  std::string label_;
  uint64_t total_;
  std::string unit_;
  bool enabled_;
  bool printed_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
};

}  // namespace snr
