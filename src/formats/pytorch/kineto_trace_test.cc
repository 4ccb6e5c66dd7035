#include "formats/pytorch/kineto_trace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "formats/pytorch/kineto_trace_fast.h"

namespace snr::pytorch {
namespace {

std::filesystem::path corpus(const std::string& name) {
  return std::filesystem::path(SNR_PYTORCH_FORMATS_DIR) / "fuzz_corpus" / name;
}

TEST(KinetoTrace, ReadsEventsAndIgnoresFlows) {
  const auto trace = read_kineto_trace(corpus("kineto/basic.json"));
  EXPECT_EQ(trace.rank, 1);
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.ignored_events, 3u);  // two ac2g flow ends and one metadata event
  const auto& kernel = trace.events[2];
  EXPECT_EQ(kernel.category, KinetoCategory::kKernel);
  EXPECT_EQ(kernel.ts_ns, 130500);
  EXPECT_EQ(kernel.dur_ns, 2250);
  EXPECT_EQ(kernel.stream, 7);
  EXPECT_EQ(kernel.correlation, 77);
  EXPECT_EQ(trace.events[0].record_function_id, 1);
  EXPECT_EQ(trace.events[0].external_id, 3);
}

TEST(KinetoTrace, NanosecondBaseVariant) {
  const auto trace = read_kineto_trace(corpus("kineto/ns_base.json"));
  EXPECT_EQ(trace.base_time_ns, 1727743122000000000);
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events[1].ts_ns, 1727743122000000000 + 2413669097444592);
  EXPECT_EQ(trace.events[1].dur_ns, 1760);
  EXPECT_EQ(trace.events[0].dur_ns, 13805);
  ASSERT_EQ(trace.skipped.size(), 1u);  // the cpu_op with a string pid
  EXPECT_EQ(trace.skipped[0].index, 2u);
}

TEST(KinetoTrace, MicrosecondConversion) {
  int64_t ns = 0;
  ASSERT_TRUE(microseconds_to_ns(nlohmann::json(1689180448563241), ns));
  EXPECT_EQ(ns, 1689180448563241000);
  ASSERT_TRUE(microseconds_to_ns(nlohmann::json(2.001), ns));
  EXPECT_EQ(ns, 2001);
  EXPECT_FALSE(microseconds_to_ns(nlohmann::json("12"), ns));
  EXPECT_FALSE(microseconds_to_ns(nlohmann::json(1e300), ns));
}

TEST(KinetoTrace, StructuralErrors) {
  EXPECT_THROW(parse_kineto_trace_text(R"({"nodes": []})", "x.json"), Error);
  EXPECT_THROW(parse_kineto_trace_text(R"({"traceEvents": [)", "x.json"), Error);
  EXPECT_THROW(parse_kineto_trace_text(R"({"traceEvents": [], "baseTimeNanoseconds": "a"})", "x.json"),
               Error);
}

// The rank becomes the linked trace's own (see HostTrace.RootRankIsARankOrAnError).
TEST(KinetoTrace, DistributedRankIsARank) {
  const auto with_info = [](const std::string& info) {
    return parse_kineto_trace_text(R"({"distributedInfo": )" + info + R"(, "traceEvents": []})", "k.json");
  };
  EXPECT_EQ(with_info(R"({"rank": 1048575})").rank, 1048575);
  for (const std::string rank : {"-1", "4294967296", "18446744073709551615", "1.5", R"("0")"}) {
    try {
      with_info(R"({"rank": )" + rank + "}");
      FAIL() << "rank " << rank << " was accepted";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("k.json: line 1"), std::string::npos) << message;
      EXPECT_NE(message.find("distributedInfo.rank is "), std::string::npos) << message;
      EXPECT_NE(message.find("valid 0 .. 1048575"), std::string::npos) << message;
    }
  }
}

TEST(KinetoTrace, RealParamTrace) {
  const char* data = std::getenv("SNR_SHARED_DATA");
  const auto path = data ? std::filesystem::path(data) / "pytorch/param/linear_kineto.json.gz"
                         : std::filesystem::path();
  if (path.empty() || !std::filesystem::exists(path)) {
    GTEST_SKIP() << "shared data (../shared/data/pytorch/param) not present";
  }
  const auto trace = read_kineto_trace(path);
  // 86,859 traceEvents: 61,950 "X" events of which 1 is the "Trace" span
  // (category not used); everything else (ac2g flows, metadata, instants) is ignored.
  EXPECT_EQ(trace.events.size(), 61949u);
  EXPECT_EQ(trace.ignored_events, 86859u - 61949u);
  EXPECT_TRUE(trace.skipped.empty());
}

std::vector<detail::KinetoRawEvent> read_fast(std::string_view elements, bool& accepted) {
  std::vector<detail::KinetoRawEvent> events;
  accepted = detail::read_kineto_events_fast(elements, [&](const detail::KinetoRawEvent& e) { events.push_back(e); });
  return events;
}

TEST(KinetoTraceFastPath, ReadsPlainEvents) {
  bool accepted = false;
  const auto events = read_fast(
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 12.5, "dur": 3, "args": )"
      R"({"correlation": 9, "grid": [1, 2, {"a": null}], "stream": 7, "x": true}},)"
      "\n  {\"ph\": \"M\", \"name\": 5, \"pid\": \"str\", \"args\": [], \"ts\": -2.5e3}",
      accepted);
  ASSERT_TRUE(accepted);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].cat, "kernel");
  EXPECT_EQ(events[0].ts.real, 12.5);
  EXPECT_EQ(events[0].dur.as_int64(), 3);
  EXPECT_EQ(events[0].correlation.as_int64(), 9);
  EXPECT_EQ(events[0].stream.as_int64(), 7);
  EXPECT_FALSE(events[1].name.has_value());
  EXPECT_TRUE(events[1].name_seen);
  EXPECT_TRUE(events[1].pid.present);
  EXPECT_FALSE(events[1].pid.numeric);
  EXPECT_EQ(events[1].ts.real, -2500.0);
}

TEST(KinetoTraceFastPath, LeavesUnusualTextToTheWalker) {
  for (const std::string_view elements : {
           R"({"name": "a\"b"})",           // escape
           R"({"ts": -0})",                 // -0: simdjson's double
           R"({"ts": 1e400})",              // beyond a double
           R"({"ts": 1e-400})",             // below a double
           R"({"ts": 12345678901234567890})",  // beyond int64_t
           R"({"ts": 241366909609017241203200001.76})",  // more than 19 digits
           R"({"ts": 01})",                 // leading zero
           R"({"ts": 1x})",                 // bad literal
           R"({"ph": "X", "ph": "X"})",     // duplicate key
           "{\"name\": \"a\tb\"}",         // control character
           "{\"name\": \"\xff\"}",         // invalid UTF-8
           R"({"a": tru})",                 // bad literal
           R"({"a": 1} {"b": 2})",          // missing comma
           R"([1])",                        // not an object
           R"({"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]})",
       }) {
    bool accepted = true;
    (void)read_fast(elements, accepted);
    EXPECT_FALSE(accepted) << elements;
  }
}

// The fast path must give what the simdjson walk gives, errors included.
TEST(KinetoTraceFastPath, MatchesTheWalk) {
  const std::string events = R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 2, "ts": 1.0015,)"
                             R"( "dur": 2, "args": {"External id": 4, "Record function id": 5}},)"
                             R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 3, "dur": -1},)"
                             R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": "p", "tid": 2, "ts": 1})";
  for (const std::string& middle : {
           std::string(""),
           std::string(R"(,{"ph": "X", "name": "a\"b", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 1})"),
           std::string(R"(,{"ph": "X", "ph": "X"})"),
           std::string(R"(,{"ts": 1e400})"),
           std::string(R"(,{"ts": -0, "ph": "X", "cat": "kernel", "name": "k"})"),
           std::string(R"(,{"ts": 01})"),
           std::string(R"(,7)"),
           std::string(",{\"name\": \"\xc3\"}"),
       }) {
    const std::string text = R"({"traceEvents": [)" + events + middle + R"(], "baseTimeNanoseconds": 10})";
    std::string fast_error, walked_error;
    KinetoTrace fast, walked;
    try {
      fast = parse_kineto_trace_text(text, "x.json");
    } catch (const Error& e) {
      fast_error = e.what();
    }
    try {
      walked = detail::parse_kineto_trace_text_walked(text, "x.json");
    } catch (const Error& e) {
      walked_error = e.what();
    }
    EXPECT_EQ(fast_error, walked_error) << middle;
    EXPECT_EQ(fast.events, walked.events) << middle;
    EXPECT_EQ(fast.ignored_events, walked.ignored_events) << middle;
    ASSERT_EQ(fast.skipped.size(), walked.skipped.size()) << middle;
    for (size_t i = 0; i < fast.skipped.size(); ++i) {
      EXPECT_EQ(fast.skipped[i].index, walked.skipped[i].index);
      EXPECT_EQ(fast.skipped[i].reason, walked.skipped[i].reason);
    }
  }
}

// Events read while the windows are found, then window by window from the
// first the fast path leaves: the same as the walk for every window size.
TEST(KinetoTraceFastPath, MatchesTheWalkAcrossWindows) {
  std::string events;
  for (int i = 0; i < 40; ++i) {
    if (i != 0) events += ",\n";
    events += R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(i) + R"(", "pid": 0, "tid": 7, "ts": )" +
              std::to_string(i) + R"(.5, "dur": 1, "args": {"correlation": )" + std::to_string(i) + "}}";
  }
  const std::string good = R"({"schemaVersion": 1, "traceEvents": [)" + events + R"(], "baseTimeNanoseconds": 10})";
  std::vector<std::string> documents = {good};
  for (const std::string& damage : {std::string(R"("name": "a\"b", )"), std::string(R"("ts": 1e400, )"),
                                    std::string(R"("ph": "M", "ph": "M", )"), std::string("\"x\": \"\xff\", ")}) {
    for (const size_t event : {size_t{0}, size_t{17}, size_t{39}}) {
      std::string document = good;
      size_t at = document.find("{\"ph\"");
      for (size_t i = 0; i < event; ++i) at = document.find("{\"ph\"", at + 1);
      document.insert(at + 1, damage);
      documents.push_back(document);
    }
  }
  documents.push_back(good.substr(0, good.size() - 200));  // cut near its end
  for (const std::string& document : documents) {
    for (const size_t window_bytes : {size_t{1}, size_t{150}, size_t{1000}, size_t{1} << 22}) {
      std::string fast_error, walked_error;
      KinetoTrace fast, walked;
      try {
        fast = detail::parse_kineto_trace_text_in_windows(document, "x.json", window_bytes, true);
      } catch (const Error& e) {
        fast_error = e.what();
      }
      try {
        walked = detail::parse_kineto_trace_text_in_windows(document, "x.json", window_bytes, false);
      } catch (const Error& e) {
        walked_error = e.what();
      }
      EXPECT_EQ(fast_error, walked_error) << window_bytes << " " << document;
      EXPECT_EQ(fast.events, walked.events) << window_bytes;
      EXPECT_EQ(fast.ignored_events, walked.ignored_events) << window_bytes;
      EXPECT_EQ(fast.skipped.size(), walked.skipped.size()) << window_bytes;
      EXPECT_EQ(fast.base_time_ns, walked.base_time_ns) << window_bytes;
    }
  }
}

}  // namespace
}  // namespace snr::pytorch
