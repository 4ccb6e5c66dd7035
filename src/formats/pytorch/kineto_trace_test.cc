#include "formats/pytorch/kineto_trace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.h"

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

}  // namespace
}  // namespace snr::pytorch
