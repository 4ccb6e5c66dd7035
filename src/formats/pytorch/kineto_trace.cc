#include "formats/pytorch/kineto_trace.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <iterator>
#include <limits>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "formats/pytorch/json_input.h"
#include "formats/pytorch/json_windows.h"
#include "formats/pytorch/kineto_trace_fast.h"
#include "formats/pytorch/ondemand_walker.h"

namespace snr::pytorch {

namespace {

namespace od = detail::od;
using detail::JsonNumber;
constexpr int64_t kMaxMicros = std::numeric_limits<int64_t>::max() / 1000 - 1;

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

bool micros_to_ns(int64_t micros, int64_t& ns) {
  if (micros > kMaxMicros || micros < -kMaxMicros) return false;
  ns = micros * 1000;
  return true;
}

bool micros_to_ns(double micros, int64_t& ns) {
  if (!std::isfinite(micros) || std::fabs(micros) > static_cast<double>(kMaxMicros)) return false;
  // Whole and fractional parts separately: the whole part is exact in the
  // double, and the fraction carries the nanoseconds.
  const double whole = std::trunc(micros);
  ns = static_cast<int64_t>(whole) * 1000 + std::llround((micros - whole) * 1000.0);
  return true;
}

bool number_to_ns(const JsonNumber& n, int64_t& ns) {
  if (!n.numeric) return false;
  return n.integral ? micros_to_ns(n.integer, ns) : micros_to_ns(n.real, ns);
}

using RawEvent = detail::KinetoRawEvent;

// Streams a Kineto document with simdjson's on-demand parser: no DOM, one
// pass, the events kept in the form the linker uses. Values the reader does
// not use are still walked, so a document is accepted exactly when it is
// valid JSON (no duplicate keys, numbers within a double, nesting ≤ 512),
// as everywhere else snr reads JSON.
class Reader : private detail::OndemandWalker {
 public:
  Reader(std::string_view text, const std::string& source, bool fast_events, size_t window_bytes = kWindowBytes)
      : OndemandWalker(text, source), fast_events_(fast_events), window_bytes_(window_bytes) {}

  KinetoTrace read(std::string& text) {
    // The root object with "traceEvents" emptied is walked here, and the
    // events one window at a time (read_windows): simdjson's index then
    // covers a window, not the whole trace.
    std::string root_text;
    std::string* root_source = &text;
    auto split = fast_events_ ? read_events_ahead(text) : find_root_array_windows(text, "traceEvents", window_bytes_);
    if (split && !split->windows.empty()) {
      root_text.reserve(text.size() - (split->array_end - split->array_begin) + 2 + simdjson::SIMDJSON_PADDING);
      root_text.append(text, 0, split->array_begin);
      root_text.append("[]");
      root_text.append(text, split->array_end, text.size() - split->array_end);
      root_source = &root_text;
      windows_ = &*split;
      full_text_ = &text;
      // Some entries are ignored, so this can be more than the events kept;
      // the untouched tail costs address space, not memory.
      if (trace_.events.capacity() < split->elements) {
        trace_.events.reserve(split->elements);
        advise_huge_pages(trace_.events.data(), trace_.events.capacity() * sizeof(KinetoEvent));
      }
      piece_ = {Piece::Kind::kRoot, text, split->array_begin, split->array_end, 0};
    }
    od::parser parser;
    od::document doc;
    start(parser, doc, *root_source, "not a Kineto trace: the document is empty");
    od::json_type type = od::json_type::null;
    check(doc.type().get(type), "");
    if (type != od::json_type::object) {
      throw Error(fmt::format("{}: not a Kineto trace: the document is not an object", source_));
    }
    od::object root;
    check(doc.get_object().get(root), "");
    bool have_events = false;
    std::optional<int64_t> base_time_ns;
    for_each_field(root, std::string(), [&](std::string_view key, od::value value) {
      if (key == "traceEvents") {
        od::json_type t = od::json_type::null;
        check(value.type().get(t), "traceEvents");
        if (t != od::json_type::array) {
          validate(value, 1, "traceEvents");
          throw Error(fmt::format("{}: not a Kineto trace: \"traceEvents\" is not a list", source_));
        }
        if (windows_ != nullptr) {
          validate(value, 1, "traceEvents");  // the "[]" standing in for the windows
          read_windows();
        } else {
          od::array events;
          check(value.get_array().get(events), "traceEvents");
          read_event_array(events);
        }
        have_events = true;
      } else if (key == "baseTimeNanoseconds") {
        const JsonNumber base = number(value, 1, "baseTimeNanoseconds");
        if (!base.as_int64()) throw Error(fmt::format("{}: \"baseTimeNanoseconds\" is not an integer", source_));
        base_time_ns = *base.as_int64();
      } else if (key == "distributedInfo") {
        read_distributed_info(value);
      } else {
        validate(value, 1, std::string(key));
      }
    });
    check_no_trailing_content();
    if (!have_events) throw Error(fmt::format("{}: not a Kineto trace: no \"traceEvents\" list", source_));
    // baseTimeNanoseconds may follow the events (Kineto writes it last).
    if (base_time_ns) {
      trace_.base_time_ns = *base_time_ns;
      for (KinetoEvent& e : trace_.events) {
        if (__builtin_add_overflow(e.ts_ns, *base_time_ns, &e.ts_ns)) {
          throw Error(fmt::format("{}: traceEvents[{}]: ts + baseTimeNanoseconds overflows 64-bit nanoseconds",
                                  source_, e.source_index));
        }
      }
    }
    return std::move(trace_);
  }

 private:
  void read_distributed_info(od::value value) {
    od::json_type type = od::json_type::null;
    check(value.type().get(type), "distributedInfo");
    if (type != od::json_type::object) {
      validate(value, 1, "distributedInfo");
      return;
    }
    od::object object;
    check(value.get_object().get(object), "distributedInfo");
    const std::string path = "distributedInfo";
    for_each_field(object, path, [&](std::string_view key, od::value v) {
      if (key == "rank") {
        const JsonNumber n = number(v, 2, "distributedInfo.rank");
        const std::optional<int64_t> rank =
            n.big_unsigned ? std::optional(std::numeric_limits<int64_t>::max()) : n.as_int64();
        const std::string problem = trace_rank_problem(rank);
        if (!problem.empty()) fail_at_location("distributedInfo.rank " + problem, "distributedInfo.rank");
        trace_.rank = rank;
      } else {
        validate(v, 2, path);
      }
    });
  }

  void read_args(od::value value, RawEvent& raw, const std::string& path) {
    od::json_type type = od::json_type::null;
    check(value.type().get(type), path);
    if (type != od::json_type::object) {
      validate(value, 3, path);
      return;
    }
    od::object object;
    check(value.get_object().get(object), path);
    for_each_field(object, path, [&](std::string_view key, od::value v) {
      if (key == "External id") {
        raw.external_id = number(v, 4, path);
      } else if (key == "Record function id") {
        raw.record_function_id = number(v, 4, path);
      } else if (key == "correlation") {
        raw.correlation = number(v, 4, path);
      } else if (key == "stream") {
        raw.stream = number(v, 4, path);
      } else if (key == "device") {
        raw.device = number(v, 4, path);
      } else if (key == "wait_on_stream") {
        raw.wait_on_stream = number(v, 4, path);
      } else {
        validate(v, 4, path);
      }
    });
  }

  RawEvent read_raw_event(od::object object, const std::string& path, const std::string& args_path) {
    RawEvent raw;
    for_each_field(object, path, [&](std::string_view key, od::value v) {
      if (key == "ph") {
        raw.ph = string_or_other(v, 2, path);
      } else if (key == "cat") {
        raw.cat = string_or_other(v, 2, path);
      } else if (key == "name") {
        raw.name_seen = true;
        raw.name = string_or_other(v, 2, path);
      } else if (key == "ts") {
        raw.ts = number(v, 3, path);
      } else if (key == "dur") {
        raw.dur = number(v, 3, path);
      } else if (key == "pid") {
        raw.pid = number(v, 3, path);
      } else if (key == "tid") {
        raw.tid = number(v, 3, path);
      } else if (key == "args") {
        read_args(v, raw, args_path);
      } else {
        validate(v, 3, path);
      }
    });
    return raw;
  }

  // "" when the event is usable, else why it was skipped.
  static std::string to_event(const RawEvent& raw, KinetoCategory category, KinetoEvent& event) {
    event.category = category;
    if (!raw.name) return "no string \"name\"";
    event.name.assign(raw.name->data(), raw.name->size());
    if (!number_to_ns(raw.ts, event.ts_ns)) return "no numeric \"ts\"";
    if (raw.dur.present) {
      if (!number_to_ns(raw.dur, event.dur_ns) || event.dur_ns < 0) return "bad \"dur\"";
    }
    // Device events may carry string pids/tids in exotic exporters; host
    // events need integer threads because runtime calls are attributed per
    // thread.
    const auto pid = raw.pid.as_int64();
    const auto tid = raw.tid.as_int64();
    if (is_host_category(category) && (!pid || !tid)) return "non-integer \"pid\"/\"tid\"";
    event.pid = pid.value_or(-1);
    event.tid = tid.value_or(-1);
    event.external_id = raw.external_id.as_int64();
    event.record_function_id = raw.record_function_id.as_int64();
    event.correlation = raw.correlation.as_int64();
    event.stream = raw.stream.as_int64().value_or(-1);
    event.device = raw.device.as_int64().value_or(-1);
    event.wait_on_stream = raw.wait_on_stream.as_int64().value_or(-1);
    return "";
  }

  // Each window is read by the fast path when it can; a window it leaves
  // (anything unusual, any error) is undone and walked by simdjson, whose
  // results and errors are the reference.
  // How far the events are read: undone when a window falls back.
  struct Mark {
    size_t events = 0, skipped = 0, ignored = 0, index = 0;
  };
  [[nodiscard]] Mark mark() const {
    return {trace_.events.size(), trace_.skipped.size(), trace_.ignored_events, next_index_};
  }
  void undo(const Mark& to) {
    trace_.events.resize(to.events);
    trace_.skipped.resize(to.skipped);
    trace_.ignored_events = to.ignored;
    next_index_ = to.index;
  }

  // find_root_array_windows with the events read as the windows are found,
  // so that the text is scanned once: whole windows the fast path reads are
  // kept (windows_read_ahead_), and from the first it leaves, the scan goes
  // on without reading, for read_windows.
  std::optional<ArrayWindows> read_events_ahead(std::string_view text) {
    const auto open = find_root_array(text, "traceEvents");
    if (!open) return std::nullopt;
    ArrayWindows split;
    split.array_begin = *open;
    size_t pos = skip_json_space(text, *open + 1);
    if (pos < text.size() && text[pos] == ']') {
      split.array_end = pos + 1;
      return split;
    }
    // Room for the events at about the smallest size real traces write them
    // (the list grows past it if need be): address space, of which only the
    // pages the events fill are touched. The reservation stays near the
    // text's size, so that it fits wherever the text did.
    constexpr size_t kMinEventBytes = 128;
    trace_.events.reserve((text.size() - *open) / kMinEventBytes + 1);
    advise_huge_pages(trace_.events.data(), trace_.events.capacity() * sizeof(KinetoEvent));
    size_t window_begin = pos;
    Mark window_start = mark();
    size_t elements_at_window_start = 0;
    while (true) {
      RawEvent raw;
      const size_t end = detail::read_kineto_event_fast(text, pos, raw);
      if (end == std::string_view::npos) break;
      record(raw);
      ++split.elements;
      const size_t next = skip_json_space(text, end);
      if (next >= text.size() || (text[next] != ']' && text[next] != ',')) break;
      const bool last = text[next] == ']';
      if (last || end - window_begin >= window_bytes_) {
        // The walker's first stage refuses invalid UTF-8 anywhere in a window.
        if (!simdjson::validate_utf8(text.data() + window_begin, end - window_begin)) break;
        split.windows.emplace_back(window_begin, end);
        ++windows_read_ahead_;
        window_start = mark();
        elements_at_window_start = split.elements;
        if (last) {
          split.array_end = next + 1;
          return split;
        }
        window_begin = next + 1;
      }
      pos = skip_json_space(text, next + 1);
    }
    undo(window_start);
    split.elements = elements_at_window_start;
    if (scan_array_windows_from(text, skip_json_space(text, window_begin), window_begin, window_bytes_, split)) {
      return split;
    }
    undo(Mark{});
    windows_read_ahead_ = 0;
    return std::nullopt;
  }

  void read_windows() {
    const ArrayWindows& split = *windows_;
    windows_ = nullptr;
    const auto record_fast = [this](const RawEvent& raw) { record(raw); };
    for (size_t w = windows_read_ahead_; w < split.windows.size(); ++w) {
      const auto& window = split.windows[w];
      const Mark before = mark();
      const std::string_view elements(full_text_->data() + window.first, window.second - window.first);
      if (fast_events_ && detail::read_kineto_events_fast(elements, record_fast)) continue;
      undo(before);
      ArrayWindows one = split;
      one.windows.assign(1, window);
      walk_windows(one, *full_text_, "not a Kineto trace: the document is empty", "traceEvents",
                   [this](od::array events) { read_event_array(events); });
    }
  }

  // Keeps the event at `next_index_` (or counts it ignored or skipped).
  void record(const RawEvent& raw) {
    const size_t index = next_index_++;
    const auto category = raw.ph && *raw.ph == "X" && raw.cat ? category_from(*raw.cat) : std::nullopt;
    if (!category) {
      ++trace_.ignored_events;
      return;
    }
    KinetoEvent event;
    event.source_index = index;
    std::string problem = to_event(raw, *category, event);
    if (problem.empty()) {
      trace_.events.push_back(std::move(event));
    } else {
      const auto ext = raw.external_id.as_int64();
      trace_.skipped.push_back({index, ext ? std::to_string(*ext) : "", std::move(problem)});
    }
  }

  void read_event_array(od::array events) {
    std::string path, args_path;  // reused: no allocation per event
    for (auto element : events) {
      const size_t index = next_index_;
      path.assign("traceEvents[");
      fmt::format_to(std::back_inserter(path), "{}]", index);
      args_path.assign(path).append(".args");
      od::value item;
      check(std::move(element).get(item), path);
      od::json_type type = od::json_type::null;
      check(item.type().get(type), path);
      if (type != od::json_type::object) {
        validate(item, 2, path);
        trace_.skipped.push_back({index, "", "not an object"});
        ++next_index_;
        continue;
      }
      od::object object;
      check(item.get_object().get(object), path);
      record(read_raw_event(object, path, args_path));
    }
  }

  // Windows of about this many bytes keep simdjson's index (4 bytes per
  // structural character) and string buffer a few megabytes.
  static constexpr size_t kWindowBytes = 4 << 20;

  KinetoTrace trace_;
  const ArrayWindows* windows_ = nullptr;  // the "traceEvents" windows while not yet read
  const std::string* full_text_ = nullptr;
  size_t next_index_ = 0;
  const bool fast_events_;
  const size_t window_bytes_;
  size_t windows_read_ahead_ = 0;  // the first windows of *windows_, read by read_events_ahead
};

KinetoTrace parse_padded(std::string& text, const std::string& source_name, bool fast_events = true) {
  return Reader(text, source_name, fast_events).read(text);
}

bool has_gzip_magic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
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

bool microseconds_to_ns(const nlohmann::json& value, int64_t& ns) {
  if (value.is_number_integer()) {
    int64_t micros = 0;
    return json_to_int64(value, micros) && micros_to_ns(micros, ns);
  }
  return value.is_number_float() && micros_to_ns(value.get<double>(), ns);
}

KinetoTrace parse_kineto_trace(const nlohmann::json& document, const std::string& source_name) {
  std::string text = document.dump();
  return parse_padded(text, source_name);
}

KinetoTrace parse_kineto_trace_text(std::string_view text, const std::string& source_name) {
  std::string owned = has_gzip_magic(text) ? gunzip(text, source_name) : std::string(text);
  return parse_padded(owned, source_name);
}

namespace detail {

KinetoTrace parse_kineto_trace_text_walked(std::string_view text, const std::string& source_name) {
  std::string owned = has_gzip_magic(text) ? gunzip(text, source_name) : std::string(text);
  return parse_padded(owned, source_name, false);
}

KinetoTrace parse_kineto_trace_text_in_windows(std::string_view text, const std::string& source_name,
                                               size_t window_bytes, bool fast_events) {
  std::string owned = has_gzip_magic(text) ? gunzip(text, source_name) : std::string(text);
  return Reader(owned, source_name, fast_events, window_bytes).read(owned);
}

}  // namespace detail

KinetoTrace read_kineto_trace(const std::filesystem::path& path) {
  std::string text = read_maybe_gzip(path);
  return parse_padded(text, path.string());
}

}  // namespace snr::pytorch
