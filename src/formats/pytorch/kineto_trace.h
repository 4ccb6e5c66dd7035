// Reader of Kineto device traces (the Chrome-trace JSON that
// torch.profiler exports): "traceEvents" with ph "X" events of categories
// cpu_op, user_annotation, cuda_runtime, cuda_driver, kernel, gpu_memcpy,
// gpu_memset and cuda_sync (newer profilers: "Stream Sync", "Event Sync",
// "Context Sync", "Wait Event" on the stream track, with the runtime call's
// "correlation" and, for events, the stream the event was recorded on).
// Timestamps become integer nanoseconds:
//   ts_ns = baseTimeNanoseconds + round(ts * 1000)
// where `ts` is microseconds with an optional fractional part (the
// nanosecond-precision variant writes ts relative to a root
// "baseTimeNanoseconds"; older traces have no base and absolute µs ts).
//
// The document is streamed (simdjson on-demand: no DOM) and "traceEvents"
// is indexed and walked a few megabytes at a time, so memory is the text plus
// the kept events; values the reader does not use are still
// walked, so it accepts exactly the valid JSON every other snr reader
// accepts (no duplicate keys, numbers within a double, nesting <= 512).
// Errors name the file, line, column, byte and key path.
//
// Only the fields the linker needs are kept. Flow events (ac2g), metadata
// (ph "M"), instant events and unknown categories are counted in
// `ignored_events`; a used event that is unusable (no numeric ts, a
// non-integer tid for a host event, a negative dur) is skipped and recorded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/pytorch/host_trace.h"

namespace snr::pytorch {

enum class KinetoCategory {
  kCpuOp,
  kUserAnnotation,
  kCudaRuntime,
  kCudaDriver,
  kKernel,
  kGpuMemcpy,
  kGpuMemset,
  kCudaSync,  // "cuda_sync": a synchronisation seen on the GPU's stream track
};

std::string_view kineto_category_name(KinetoCategory category);

struct KinetoEvent {
  KinetoCategory category = KinetoCategory::kCpuOp;
  std::string name;
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  std::optional<int64_t> external_id;          // args "External id"
  std::optional<int64_t> record_function_id;   // args "Record function id"
  std::optional<int64_t> correlation;          // args "correlation"
  int64_t stream = -1;                         // args "stream" (device events)
  int64_t device = -1;                         // args "device"
  int64_t wait_on_stream = -1;                 // cuda_sync: args "wait_on_stream"
  size_t source_index = 0;                     // position in traceEvents

  friend bool operator==(const KinetoEvent&, const KinetoEvent&) = default;
};

struct KinetoTrace {
  std::vector<KinetoEvent> events;  // in file order
  std::optional<int64_t> rank;      // "distributedInfo": {"rank"}
  int64_t base_time_ns = 0;         // "baseTimeNanoseconds", 0 when absent
  size_t ignored_events = 0;
  std::vector<SkippedRecord> skipped;
};

KinetoTrace parse_kineto_trace(const nlohmann::json& document, const std::string& source_name);
KinetoTrace parse_kineto_trace_text(std::string_view text, const std::string& source_name);
KinetoTrace read_kineto_trace(const std::filesystem::path& path);

// Microseconds (integer or fractional JSON number) to integer nanoseconds;
// false when the value is not a finite number in range.
bool microseconds_to_ns(const nlohmann::json& value, int64_t& ns);

}  // namespace snr::pytorch
