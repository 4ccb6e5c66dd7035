#include "formats/perfetto/trace_validator.h"

#include <gtest/gtest.h>

namespace snr::perfetto {
namespace {

bool mentions(const TraceCheck& check, std::string_view text) {
  for (const auto& p : check.problems) {
    if (p.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(CheckChromeTrace, AcceptsWellFormedTrace) {
  const TraceCheck check = check_chrome_trace(R"({"traceEvents":[
    {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","name":"b","pid":1,"tid":1,"ts":2.5,"dur":7.5},
    {"ph":"B","name":"c","pid":1,"tid":2,"ts":0},{"ph":"E","pid":1,"tid":2,"ts":4},
    {"ph":"s","name":"f","cat":"x","id":7,"pid":1,"tid":1,"ts":3},
    {"ph":"f","name":"f","cat":"x","id":7,"pid":1,"tid":2,"ts":3,"bp":"e"}]})");
  EXPECT_TRUE(check.ok()) << check.summary();
  EXPECT_EQ(check.slices, 3u);
  EXPECT_EQ(check.flows, 1u);
  EXPECT_EQ(check.tracks, 2u);
}

TEST(CheckChromeTrace, CatchesOverlappingSlices) {
  const TraceCheck check = check_chrome_trace(R"([
    {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":10},
    {"ph":"X","name":"c","pid":1,"tid":2,"ts":5,"dur":10}])");
  EXPECT_FALSE(check.ok());
  EXPECT_EQ(check.problem_count, 1u);
  EXPECT_TRUE(mentions(check, "event 1: slice partially overlaps event 0")) << check.summary();
}

TEST(CheckChromeTrace, CatchesOverlapBetweenBeginEndAndComplete) {
  const TraceCheck check = check_chrome_trace(R"([
    {"ph":"B","name":"a","pid":1,"tid":1,"ts":0},
    {"ph":"X","name":"b","pid":1,"tid":1,"ts":1,"dur":10},
    {"ph":"E","pid":1,"tid":1,"ts":5}])");
  EXPECT_FALSE(check.ok());
  EXPECT_TRUE(mentions(check, "partially overlaps")) << check.summary();
}

TEST(CheckChromeTrace, CatchesUnmatchedFlows) {
  const TraceCheck check = check_chrome_trace(R"([
    {"ph":"s","name":"f","cat":"x","id":1,"pid":1,"tid":1,"ts":3},
    {"ph":"f","name":"f","cat":"y","id":1,"pid":1,"tid":1,"ts":4},
    {"ph":"s","name":"g","cat":"x","id":2,"pid":1,"tid":1,"ts":9},
    {"ph":"f","name":"g","cat":"x","id":2,"pid":1,"tid":1,"ts":8}])");
  EXPECT_EQ(check.problem_count, 3u) << check.summary();
  EXPECT_TRUE(mentions(check, "event 1: flow end with id 1 has no earlier start"));
  EXPECT_TRUE(mentions(check, "event 3: flow id 2 ends before it starts"));
  EXPECT_TRUE(mentions(check, "event 0: flow start id 1 has no matching end"));
}

TEST(CheckChromeTrace, ReportsMalformedInput) {
  EXPECT_TRUE(mentions(check_chrome_trace(""), "not valid JSON: line 1, column 1 (byte 0)"));
  EXPECT_TRUE(mentions(check_chrome_trace("{\"traceEvents\":[{\"ph\":\"X\""), "not valid JSON"));
  EXPECT_TRUE(mentions(check_chrome_trace("{}"), "no 'traceEvents' array"));
  EXPECT_TRUE(mentions(check_chrome_trace("42"), "neither an object nor an array"));
  const TraceCheck check = check_chrome_trace(R"([{"ph":"X","name":"a","pid":1,"ts":0,"dur":-1},
    {"name":"no phase"}, 5, {"ph":"C","name":"c","pid":1,"ts":0,"args":{"v":"high"}},
    {"ph":"E","pid":1,"tid":1,"ts":0}, {"ph":"B","pid":1,"tid":3,"ts":0}])");
  EXPECT_TRUE(mentions(check, "event 0: missing or non-integer 'tid'")) << check.summary();
  EXPECT_TRUE(mentions(check, "event 1: missing phase"));
  EXPECT_TRUE(mentions(check, "event 2: not a JSON object"));
  EXPECT_TRUE(mentions(check, "counter series 'v' is not a number"));
  EXPECT_TRUE(mentions(check, "'E' without a matching 'B'"));
  EXPECT_TRUE(mentions(check, "never ended"));
}

}  // namespace
}  // namespace snr::perfetto
