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

// "compile 0.1 s, record 41.2 s, ..., total 57.3 s".
std::string format_stage_times(const std::vector<StageTime>& stages);

}  // namespace snr::workflow
