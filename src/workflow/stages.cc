#include "workflow/stages.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/parallel.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace snr::workflow {

StageTimer::StageTimer(std::vector<StageTime>& stages, std::string name, const Progress& progress)
    : stages_(stages), name_(std::move(name)), progress_(progress), start_(std::chrono::steady_clock::now()) {
#if defined(__GLIBC__)
  // glibc keeps what the previous stage freed (a recording's buffers, a
  // replay's pages: hundreds of MB) for reuse that rarely comes; `snr demo`
  // measured 0.6 GB of peak RSS that was free heap. A few ms per stage.
  malloc_trim(0);
#endif
}

double StageTimer::finish(const std::string& what) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  stages_.push_back({name_, seconds});
  if (progress_) progress_(fmt::format("{}: {} ({:.1f} s)", name_, what, seconds));
  return seconds;
}

BackgroundStage::BackgroundStage(std::string name)
    : name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

void BackgroundStage::finish(const std::string& what) {
  wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  what_ = what;
}

void BackgroundStage::report(std::vector<StageTime>& stages, const Progress& progress) const {
  stages.push_back({name_, wall_s_, true});
  if (progress) progress(fmt::format("{}: {} ({:.1f} s)", name_, what_, wall_s_));
}

void run_at_most(const std::vector<std::function<void()>>& jobs, size_t threads) {
  rethrow_first(run_jobs(jobs, std::max<size_t>(1, std::min<size_t>(threads, hardware_threads()))));
}

std::string format_stage_times(const std::vector<StageTime>& stages, double total_wall_s) {
  std::string out;
  double total = 0;
  for (const StageTime& stage : stages) {
    out += fmt::format("{}{} {:.1f} s{}", out.empty() ? "" : ", ", stage.name, stage.wall_s,
                       stage.background ? " (background)" : "");
    total += stage.wall_s;
  }
  return out + fmt::format("{}total {:.1f} s", out.empty() ? "" : ", ", total_wall_s >= 0 ? total_wall_s : total);
}

}  // namespace snr::workflow
