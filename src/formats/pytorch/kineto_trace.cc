#include "formats/pytorch/kineto_trace.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"
#include "formats/pytorch/json_input.h"

namespace snr::pytorch {

namespace {

using nlohmann::json;

const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::optional<KinetoCategory> category_from(std::string_view cat) {
  if (cat == "cpu_op") return KinetoCategory::kCpuOp;
  if (cat == "user_annotation") return KinetoCategory::kUserAnnotation;
  if (cat == "cuda_runtime") return KinetoCategory::kCudaRuntime;
  if (cat == "cuda_driver") return KinetoCategory::kCudaDriver;
  if (cat == "kernel") return KinetoCategory::kKernel;
  if (cat == "gpu_memcpy") return KinetoCategory::kGpuMemcpy;
  if (cat == "gpu_memset") return KinetoCategory::kGpuMemset;
  if (cat == "cuda_sync") return KinetoCategory::kCudaSync;
  return std::nullopt;
}

bool is_host_category(KinetoCategory c) {
  return c == KinetoCategory::kCpuOp || c == KinetoCategory::kUserAnnotation ||
         c == KinetoCategory::kCudaRuntime || c == KinetoCategory::kCudaDriver;
}

std::optional<int64_t> optional_int(const json& value) {
  int64_t out = 0;
  if (json_to_int64(value, out)) return out;
  return std::nullopt;
}

// Returns "" on success or why the event was skipped.
std::string read_event(const json& object, KinetoCategory category, int64_t base_time_ns,
                       KinetoEvent& event) {
  event.category = category;
  const json& name = member(object, "name");
  if (!name.is_string()) return "no string \"name\"";
  event.name = name.get<std::string>();
  int64_t ts_ns = 0;
  if (!microseconds_to_ns(member(object, "ts"), ts_ns)) return "no numeric \"ts\"";
  event.ts_ns = base_time_ns + ts_ns;
  const json& dur = member(object, "dur");
  if (!dur.is_null()) {
    if (!microseconds_to_ns(dur, event.dur_ns) || event.dur_ns < 0) return "bad \"dur\"";
  }
  // Device events may carry string pids/tids in exotic exporters; host events
  // need integer threads because runtime calls are attributed per thread.
  const auto pid = optional_int(member(object, "pid"));
  const auto tid = optional_int(member(object, "tid"));
  if (is_host_category(category) && (!pid || !tid)) return "non-integer \"pid\"/\"tid\"";
  event.pid = pid.value_or(-1);
  event.tid = tid.value_or(-1);
  const json& args = member(object, "args");
  event.external_id = optional_int(member(args, "External id"));
  event.record_function_id = optional_int(member(args, "Record function id"));
  event.correlation = optional_int(member(args, "correlation"));
  event.stream = optional_int(member(args, "stream")).value_or(-1);
  event.device = optional_int(member(args, "device")).value_or(-1);
  event.wait_on_stream = optional_int(member(args, "wait_on_stream")).value_or(-1);
  return "";
}

}  // namespace

std::string_view kineto_category_name(KinetoCategory category) {
  switch (category) {
    case KinetoCategory::kCpuOp: return "cpu_op";
    case KinetoCategory::kUserAnnotation: return "user_annotation";
    case KinetoCategory::kCudaRuntime: return "cuda_runtime";
    case KinetoCategory::kCudaDriver: return "cuda_driver";
    case KinetoCategory::kKernel: return "kernel";
    case KinetoCategory::kGpuMemcpy: return "gpu_memcpy";
    case KinetoCategory::kGpuMemset: return "gpu_memset";
    case KinetoCategory::kCudaSync: return "cuda_sync";
  }
  return "unknown";
}

bool microseconds_to_ns(const json& value, int64_t& ns) {
  constexpr int64_t kMaxMicros = INT64_MAX / 1000 - 1;
  if (value.is_number_integer()) {
    int64_t micros = 0;
    if (!json_to_int64(value, micros) || micros > kMaxMicros || micros < -kMaxMicros) return false;
    ns = micros * 1000;
    return true;
  }
  if (!value.is_number_float()) return false;
  const double micros = value.get<double>();
  if (!std::isfinite(micros) || std::fabs(micros) > static_cast<double>(kMaxMicros)) return false;
  // Whole and fractional parts separately: the whole part is exact in the
  // double, and the fraction carries the nanoseconds.
  const double whole = std::trunc(micros);
  ns = static_cast<int64_t>(whole) * 1000 + std::llround((micros - whole) * 1000.0);
  return true;
}

KinetoTrace parse_kineto_trace(const json& document, const std::string& source_name) {
  if (!document.is_object()) {
    throw Error(fmt::format("{}: not a Kineto trace: the document is not an object", source_name));
  }
  const json& events = member(document, "traceEvents");
  if (!events.is_array()) {
    throw Error(fmt::format("{}: not a Kineto trace: no \"traceEvents\" list", source_name));
  }
  KinetoTrace trace;
  int64_t rank = 0;
  if (json_to_int64(member(member(document, "distributedInfo"), "rank"), rank)) trace.rank = rank;
  const json& base = member(document, "baseTimeNanoseconds");
  if (!base.is_null() && !json_to_int64(base, trace.base_time_ns)) {
    throw Error(fmt::format("{}: \"baseTimeNanoseconds\" is not an integer", source_name));
  }
  trace.events.reserve(events.size());
  for (size_t index = 0; index < events.size(); ++index) {
    const json& object = events[index];
    const json& phase = member(object, "ph");
    const json& cat = member(object, "cat");
    if (!object.is_object()) {
      trace.skipped.push_back({index, "", "not an object"});
      continue;
    }
    if (!phase.is_string() || phase.get_ref<const std::string&>() != "X" || !cat.is_string()) {
      ++trace.ignored_events;
      continue;
    }
    const auto category = category_from(cat.get_ref<const std::string&>());
    if (!category) {
      ++trace.ignored_events;
      continue;
    }
    KinetoEvent event;
    event.source_index = index;
    std::string problem = read_event(object, *category, trace.base_time_ns, event);
    if (!problem.empty()) {
      const auto ext = optional_int(member(member(object, "args"), "External id"));
      trace.skipped.push_back({index, ext ? std::to_string(*ext) : "", std::move(problem)});
      continue;
    }
    trace.events.push_back(std::move(event));
  }
  return trace;
}

KinetoTrace parse_kineto_trace_text(std::string_view text, const std::string& source_name) {
  return parse_kineto_trace(parse_json_document(text, source_name), source_name);
}

KinetoTrace read_kineto_trace(const std::filesystem::path& path) {
  return parse_kineto_trace(parse_json_document(read_maybe_gzip(path), path.string()),
                            path.string());
}

}  // namespace snr::pytorch
