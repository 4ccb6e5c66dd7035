// Checks a Chrome trace-event JSON file the way a loader would see it:
// parseable JSON, events well-formed, complete ("X") and begin/end ("B"/"E")
// slices properly nested on each (pid, tid) track, and every flow start
// ("s") matched by a flow end ("f") with the same category and id.
// Times are compared at picosecond resolution.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace snr::perfetto {

struct TraceCheck {
  size_t events = 0;
  size_t slices = 0;
  size_t counters = 0;
  size_t flows = 0;  // matched s/f pairs
  size_t metadata = 0;
  size_t other = 0;  // phases not checked (async, object, sample events)
  size_t tracks = 0;
  // Human-readable problems naming the event index; at most kMaxProblems
  // are kept, `problem_count` counts all.
  std::vector<std::string> problems;
  size_t problem_count = 0;
  static constexpr size_t kMaxProblems = 50;

  [[nodiscard]] bool ok() const { return problem_count == 0; }
  // One line per problem, or "ok: N events ..." when there are none.
  [[nodiscard]] std::string summary() const;
};

// Never throws on bad input: parse errors are reported as problems.
TraceCheck check_chrome_trace(std::string_view json_text);
// Throws snr::Error when the file cannot be read.
TraceCheck check_chrome_trace_file(const std::filesystem::path& path);

}  // namespace snr::perfetto
