// Fuzz entry point: the Kineto reader with its fast path against the same
// reader walking every window with simdjson. Both must give the same trace,
// or the same snr::Error message; a difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"
#include "formats/pytorch/kineto_trace.h"
#include "formats/pytorch/kineto_trace_fast.h"

namespace {

struct Outcome {
  std::optional<snr::pytorch::KinetoTrace> trace;
  std::string error;
};

template <typename Parse>
Outcome outcome_of(Parse&& parse) {
  Outcome outcome;
  try {
    outcome.trace = parse();
  } catch (const snr::Error& e) {
    outcome.error = e.what();
  }
  return outcome;
}

bool same(const snr::pytorch::KinetoTrace& a, const snr::pytorch::KinetoTrace& b) {
  if (a.events != b.events || a.rank != b.rank || a.base_time_ns != b.base_time_ns ||
      a.ignored_events != b.ignored_events || a.skipped.size() != b.skipped.size()) {
    return false;
  }
  for (size_t i = 0; i < a.skipped.size(); ++i) {
    if (a.skipped[i].index != b.skipped[i].index || a.skipped[i].id != b.skipped[i].id ||
        a.skipped[i].reason != b.skipped[i].reason) {
      return false;
    }
  }
  return true;
}

void expect_same(const Outcome& fast, const Outcome& walked) {
  if (fast.error != walked.error || fast.trace.has_value() != walked.trace.has_value() ||
      (fast.trace && !same(*fast.trace, *walked.trace))) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  expect_same(outcome_of([&] { return snr::pytorch::parse_kineto_trace_text(text, "fuzz-input"); }),
              outcome_of([&] { return snr::pytorch::detail::parse_kineto_trace_text_walked(text, "fuzz-input"); }));
  // Windows of a few bytes to a few hundred (the last byte picks): window
  // boundaries fall between any two events.
  const size_t window_bytes = size == 0 ? 1 : 1 + data[size - 1] % 256;
  const auto in_windows = [&](bool fast) {
    return outcome_of([&] {
      return snr::pytorch::detail::parse_kineto_trace_text_in_windows(text, "fuzz-input", window_bytes, fast);
    });
  };
  expect_same(in_windows(true), in_windows(false));
  return 0;
}
