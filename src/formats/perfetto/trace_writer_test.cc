#include "formats/perfetto/trace_writer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/perfetto/trace_validator.h"

namespace snr::perfetto {
namespace {

TEST(FormatMicroseconds, ExactDecimals) {
  EXPECT_EQ(format_microseconds(0), "0");
  EXPECT_EQ(format_microseconds(1), "0.000001");
  EXPECT_EQ(format_microseconds(1'000'000), "1");
  EXPECT_EQ(format_microseconds(1'500'000), "1.5");
  EXPECT_EQ(format_microseconds(123'456'789'012), "123456.789012");
  EXPECT_EQ(format_microseconds(-2'500), "-0.0025");
  EXPECT_EQ(format_microseconds(INT64_MIN), "-9223372036854.775808");
}

TEST(TimeBase, ConvertsUnitsWithIntegerRounding) {
  EXPECT_EQ(TimeBase::nanoseconds().to_picoseconds(7), 7000);
  EXPECT_EQ(TimeBase::picoseconds().to_picoseconds(7), 7);
  // 940 MHz: one cycle is 1063.829... ps.
  EXPECT_EQ(TimeBase::cycles(940'000'000).to_picoseconds(1), 1064);
  EXPECT_EQ(TimeBase::cycles(940'000'000).to_picoseconds(3), 3191);
  EXPECT_EQ(TimeBase::cycles(1'000'000'000).to_picoseconds(1'000'000'000'000), 1'000'000'000'000'000);
  EXPECT_THROW(TimeBase::cycles(0), Error);
  EXPECT_THROW((void)TimeBase::nanoseconds().to_picoseconds(INT64_MAX / 10), Error);
}

TEST(JsonString, EscapesControlAndInvalidUtf8) {
  std::string out;
  append_json_string(out, std::string_view("a\"b\\c\n\x01\xff\xc3\xa9", 10));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\"");
}

// The small trace checked in as testdata/small_trace.json.
TraceWriter small_trace() {
  TraceWriter writer(TimeBase::nanoseconds(), OverlapPolicy::kReject);
  TrackId compute = writer.add_track("npu 0", "compute");
  TrackId comm = writer.add_track("npu 0", "comm");
  TrackId remote = writer.add_track("npu 1", "comm");
  CounterId hbm = writer.add_counter("npu 0", "hbm bytes in use");
  writer.slice(compute, 0, 1500, "layer0", Args().add("num_ops", int64_t{4096}).add("kind", "matmul"), "compute");
  writer.slice(compute, 100, 400, "gemm");
  writer.slice(compute, 500, 1000, "softmax \"fused\"");
  writer.slice(comm, 1500, 2001, "all_reduce", Args().add("bytes", uint64_t{1} << 20).add("ratio", 0.25));
  writer.slice(remote, 1600, 1900, "all_reduce");
  writer.instant(comm, 1500, "issue");
  writer.counter(hbm, 0, 0);
  writer.counter(hbm, 1500, 1048576);
  writer.flow(comm, 1700, remote, 1700, "ring step");
  return writer;
}

TEST(TraceWriter, MatchesGoldenFile) {
  const auto golden = std::filesystem::path(SNR_PERFETTO_TESTDATA) / "small_trace.json";
  const std::string rendered = small_trace().render();
  if (std::getenv("SNR_UPDATE_GOLDEN") != nullptr) write_file_atomic(golden, rendered);
  EXPECT_EQ(rendered, read_file(golden));
  const TraceCheck check = check_chrome_trace(rendered);
  EXPECT_TRUE(check.ok()) << check.summary();
  EXPECT_EQ(check.slices, 5u);
  EXPECT_EQ(check.flows, 1u);
  EXPECT_EQ(check.counters, 2u);
}

TEST(TraceWriter, OutputIsDeterministic) {
  EXPECT_EQ(small_trace().render(), small_trace().render());
  const TraceWriter writer = small_trace();
  EXPECT_EQ(writer.render(), writer.render());
}

TEST(TraceWriter, RejectsPartialOverlapNamingBothSlices) {
  TraceWriter writer(TimeBase::nanoseconds(), OverlapPolicy::kReject);
  TrackId t = writer.add_track("npu 3", "dma");
  writer.slice(t, 0, 100, "first");
  writer.slice(t, 50, 100, "second");
  try {
    (void)writer.render();
    FAIL() << "overlap not rejected";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("npu 3/dma"), std::string::npos) << message;
    EXPECT_NE(message.find("'second'"), std::string::npos) << message;
    EXPECT_NE(message.find("'first'"), std::string::npos) << message;
  }
}

TEST(TraceWriter, AcceptsNestingInAnyCallOrderAndTouchingSlices) {
  TraceWriter writer(TimeBase::picoseconds(), OverlapPolicy::kReject);
  TrackId t = writer.add_track("p", "t");
  writer.slice(t, 10, 5, "child");    // emitted before its parent, as a simulator would
  writer.slice(t, 0, 20, "parent");
  writer.slice(t, 20, 10, "next");    // touches the parent's end
  writer.slice(t, 0, 20, "same span");  // identical span nests
  writer.slice(t, 30, 0, "empty");
  const TraceCheck check = check_chrome_trace(writer.render());
  EXPECT_TRUE(check.ok()) << check.summary();
}

TEST(TraceWriter, SpreadsOverlapsOntoLanes) {
  TraceWriter writer(TimeBase::nanoseconds(), OverlapPolicy::kSpreadToLanes);
  TrackId t = writer.add_track("npu 0", "dma");
  writer.slice(t, 0, 100, "a");
  writer.slice(t, 50, 100, "b");
  writer.slice(t, 60, 100, "c");
  writer.slice(t, 120, 10, "d");  // fits back in lane 0 after 'a' ends
  TrackId after = writer.add_track("npu 0", "compute");
  writer.slice(after, 0, 10, "x");
  writer.flow(after, 5, t, 70, "dep");  // binds into the lane holding 'b'
  const std::string json = writer.render();
  const TraceCheck check = check_chrome_trace(json);
  ASSERT_TRUE(check.ok()) << check.summary();
  EXPECT_EQ(check.tracks, 4u);

  const auto root = nlohmann::json::parse(json);
  std::map<std::string, int> tid_of_slice;
  std::map<int, std::string> thread_names;
  int flow_end_tid = -1;
  for (const auto& e : root["traceEvents"]) {
    if (e["ph"] == "X") tid_of_slice[e["name"]] = e["tid"];
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names[e["tid"]] = e["args"]["name"];
    if (e["ph"] == "f") flow_end_tid = e["tid"];
  }
  EXPECT_EQ(tid_of_slice["a"], 1);
  EXPECT_EQ(tid_of_slice["b"], 2);
  EXPECT_EQ(tid_of_slice["c"], 3);
  EXPECT_EQ(tid_of_slice["d"], 1);
  EXPECT_EQ(tid_of_slice["x"], 4);
  EXPECT_EQ(thread_names[1], "dma");
  EXPECT_EQ(thread_names[2], "dma #1");
  EXPECT_EQ(thread_names[3], "dma #2");
  EXPECT_EQ(thread_names[4], "compute");
  EXPECT_EQ(flow_end_tid, 1);  // 70 ns lies inside 'a' (lane 0), the first lane that encloses it
}

TEST(TraceWriter, CycleTimesStayNestedAfterRounding) {
  TraceWriter writer(TimeBase::cycles(940'000'000), OverlapPolicy::kReject);
  TrackId t = writer.add_track("core", "vector unit");
  for (int64_t i = 0; i < 200; ++i) {
    writer.slice(t, i * 3, 3, "outer");
    writer.slice(t, i * 3 + 1, 2, "inner");
  }
  const TraceCheck check = check_chrome_trace(writer.render());
  EXPECT_TRUE(check.ok()) << check.summary();
}

TEST(TraceWriter, RejectsBadCalls) {
  TraceWriter writer;
  TrackId t = writer.add_track("p", "t");
  EXPECT_THROW(writer.slice(TrackId{7}, 0, 1, "x"), Error);
  EXPECT_THROW(writer.slice(t, 0, -1, "x"), Error);
  EXPECT_THROW(writer.add_track("p", "t"), Error);
  EXPECT_THROW(writer.flow(t, 10, t, 5, "backwards"), Error);
  EXPECT_THROW(writer.counter(CounterId{3}, 0, 1.0), Error);
  EXPECT_THROW(Args().add("k", 1).add("k", 2), Error);
}

}  // namespace
}  // namespace snr::perfetto
