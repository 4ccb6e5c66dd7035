#include "common/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace snr {
namespace {
constexpr auto kFirstPrintAfter = std::chrono::milliseconds(1000);
constexpr auto kPrintInterval = std::chrono::milliseconds(250);

std::string short_rate(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.1f}M", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f}k", per_second / 1e3);
  return fmt::format("{:.1f}", per_second);
}

std::string short_duration(double seconds) {
  if (seconds >= 3600) return fmt::format("{:.0f} h {:02.0f} min", std::floor(seconds / 3600), std::floor(std::fmod(seconds, 3600) / 60));
  if (seconds >= 60) return fmt::format("{:.0f} min {:02.0f} s", std::floor(seconds / 60), std::fmod(seconds, 60));
  return fmt::format("{:.0f} s", seconds);
}
}  // namespace

ProgressMeter::ProgressMeter(std::string label, uint64_t total, std::string unit, bool force)
    : label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      enabled_(force || ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

ProgressMeter::~ProgressMeter() { finish(); }

std::string ProgressMeter::format_line(uint64_t done, uint64_t total, std::string_view unit, double elapsed_s) {
  const double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0.0;
  std::string line = fmt::format("{}/{} {}, {}/s", done, total, unit, short_rate(rate));
  if (rate > 0 && done < total) {
    line += ", ETA " + short_duration(static_cast<double>(total - done) / rate);
  }
  return line;
}

void ProgressMeter::update(uint64_t done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  // Short runs print nothing; long ones a few lines a second.
  if (now - start_ < kFirstPrintAfter || now - last_print_ < kPrintInterval) return;
  last_print_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  fmt::print(stderr, "\r{}: {}\033[K", label_, format_line(done, total_, unit_, elapsed));
  std::fflush(stderr);
  printed_ = true;
}

void ProgressMeter::finish() {
  if (!printed_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  printed_ = false;
}

}  // namespace snr
