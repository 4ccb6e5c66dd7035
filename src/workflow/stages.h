// Progress and wall-time bookkeeping shared by the workflows: each stage
// reports one line when it ends, with its wall time, and the list of stage
// times is part of the result so callers can print or record it.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace snr::workflow {

// One line of progress ("compile: 36 ops ..."); may be empty.
using Progress = std::function<void(const std::string& line)>;

struct StageTime {
  std::string name;
  double wall_s = 0;
  bool background = false;  // ran beside the stages after it, on another thread
};

// Starts timing at construction; finish() appends the stage to `stages`,
// reports "<name>: <what> (<s> s)" and returns the seconds.
class StageTimer {
 public:
  StageTimer(std::vector<StageTime>& stages, std::string name, const Progress& progress);
  double finish(const std::string& what);

 private:
  std::vector<StageTime>& stages_;
  std::string name_;
  const Progress& progress_;
  std::chrono::steady_clock::time_point start_;
};

// Times a stage that runs on another thread: finish() records the stage's
// time and its line, and report() (on the calling thread, after the
// thread's result is in) appends the stage and reports the line, so two
// threads never report at once.
class BackgroundStage {
 public:
  // Timing starts here, or again at start() (a job that waited for its turn).
  explicit BackgroundStage(std::string name);
  void start() { start_ = std::chrono::steady_clock::now(); }
  void finish(const std::string& what);
  void report(std::vector<StageTime>& stages, const Progress& progress) const;

 private:
  std::string name_;
  std::string what_;
  double wall_s_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// Runs `jobs` in order on up to `threads` threads (no more than the
// machine's cores): a job starts when a thread is free. Returns when all are
// done; the first job's exception, in job order, is rethrown then.
void run_at_most(const std::vector<std::function<void()>>& jobs, size_t threads);

// "compile 0.1 s, record 41.2 s, save snapshot 3.1 s (background), ...,
// total 57.3 s"; the total is `total_wall_s` when given (stages that ran
// beside others make the sum longer than the run), else the sum.
std::string format_stage_times(const std::vector<StageTime>& stages, double total_wall_s = -1);

}  // namespace snr::workflow
