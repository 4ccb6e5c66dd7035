#include "formats/pytorch/kineto_trace.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <array>
#include <cmath>
#include <iterator>
#include <limits>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "formats/pytorch/json_input.h"

namespace snr::pytorch {

namespace {

namespace od = simdjson::ondemand;

constexpr size_t kMaxDepth = 512;  // as parse_json_input
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

// A JSON value as the reader keeps it: absent, not a number, or the number.
struct Number {
  bool present = false;
  bool numeric = false;
  bool integral = false;  // fits int64_t
  int64_t integer = 0;
  double real = 0;        // when numeric && !integral (floats, integers beyond int64_t)

  std::optional<int64_t> as_int64() const { return numeric && integral ? std::optional(integer) : std::nullopt; }
  bool to_ns(int64_t& ns) const {
    if (!numeric) return false;
    return integral ? micros_to_ns(integer, ns) : micros_to_ns(real, ns);
  }
};

// The fields of one traceEvents entry, read in one pass in any key order.
// Strings point into the parser's buffer, valid until the document is done.
struct RawEvent {
  std::optional<std::string_view> ph, cat, name;
  bool name_seen = false;
  Number ts, dur, pid, tid;
  Number external_id, record_function_id, correlation, stream, device, wait_on_stream;
};

// Streams a Kineto document with simdjson's on-demand parser: no DOM, one
// pass, the events kept in the form the linker uses. Values the reader does
// not use are still walked, so a document is accepted exactly when it is
// valid JSON (no duplicate keys, numbers within a double, nesting ≤ 512),
// as everywhere else snr reads JSON.
class Reader {
 public:
  Reader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  KinetoTrace read(simdjson::padded_string_view input) {
    od::parser parser;
    od::document doc;
    // A document that failed to start (stage 1 rejects bad UTF-8 and
    // unescaped control characters) has no position to ask for.
    check(parser.iterate(input).get(doc), "");
    doc_ = &doc;
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
        read_events(value);
        have_events = true;
      } else if (key == "baseTimeNanoseconds") {
        const Number base = number(value, 1, "baseTimeNanoseconds");
        if (!base.as_int64()) throw Error(fmt::format("{}: \"baseTimeNanoseconds\" is not an integer", source_));
        base_time_ns = *base.as_int64();
      } else if (key == "distributedInfo") {
        read_distributed_info(value);
      } else {
        validate(value, 1, std::string(key));
      }
    });
    // At the end, the document has no current location; anything else is
    // content after the root object.
    const char* trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS) {
      fail_at_location("trailing content after the document", "");
    }
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
  // Keys of one object, to refuse duplicates (JSON leaves them undefined and
  // a reader would silently keep one).
  class KeySet {
   public:
    void insert(std::string_view key, Reader& reader, const std::string& path) {
      for (size_t i = 0; i < small_count_; ++i) {
        if (small_[i] == key) reader.fail_at_location(fmt::format("duplicate key '{}'", key), path);
      }
      for (std::string_view k : more_) {
        if (k == key) reader.fail_at_location(fmt::format("duplicate key '{}'", key), path);
      }
      if (small_count_ < small_.size()) {
        small_[small_count_++] = key;
      } else {
        more_.push_back(key);
      }
    }

   private:
    std::array<std::string_view, 16> small_{};
    size_t small_count_ = 0;
    std::vector<std::string_view> more_;
  };

  void check(simdjson::error_code error, std::string_view path) {
    if (error == simdjson::SUCCESS) return;
    fail_at_location(simdjson::error_message(error), path);
  }

  // Calls visit(key, value) for every field of `object` in document order,
  // refusing a key that repeats.
  template <typename Visit>
  void for_each_field(od::object object, const std::string& path, Visit&& visit) {
    KeySet keys;
    for (auto field_result : object) {
      od::field field;
      check(std::move(field_result).get(field), path);
      std::string_view key;
      check(field.unescaped_key().get(key), path);
      keys.insert(key, *this, path);
      visit(key, field.value());
    }
  }

  [[noreturn]] void fail_at_location(std::string_view reason, std::string_view path) {
    std::string message = fmt::format("{}: ", source_);
    const char* location = nullptr;
    if (doc_ != nullptr && doc_->current_location().get(location) == simdjson::SUCCESS && location >= text_.data() &&
        location <= text_.data() + text_.size()) {
      message += describe_json_position(text_, static_cast<size_t>(location - text_.data()));
    } else {
      message += "invalid JSON";
    }
    if (!path.empty()) message += fmt::format(", key '{}'", path);
    message += fmt::format(": {}", reason);
    throw Error(std::move(message));
  }

  // Walks a value the reader does not use, so that it is validated.
  void validate(od::value value, size_t depth, const std::string& path) {
    od::json_type type = od::json_type::null;
    check(value.type().get(type), path);
    switch (type) {
      case od::json_type::object: {
        if (depth >= kMaxDepth) fail_at_location(fmt::format("nesting deeper than {}", kMaxDepth), path);
        od::object object;
        check(value.get_object().get(object), path);
        for_each_field(object, path, [&](std::string_view, od::value v) { validate(v, depth + 1, path); });
        break;
      }
      case od::json_type::array: {
        if (depth >= kMaxDepth) fail_at_location(fmt::format("nesting deeper than {}", kMaxDepth), path);
        od::array array;
        check(value.get_array().get(array), path);
        for (auto element : array) {
          od::value item;
          check(std::move(element).get(item), path);
          validate(item, depth + 1, path);
        }
        break;
      }
      case od::json_type::number: (void)number(value, depth, path); break;
      case od::json_type::string: {
        std::string_view s;
        check(value.get_string().get(s), path);
        break;
      }
      case od::json_type::boolean: {
        bool b = false;
        check(value.get_bool().get(b), path);
        break;
      }
      case od::json_type::null: {
        bool null = false;
        check(value.is_null().get(null), path);
        if (!null) fail_at_location("invalid literal", path);
        break;
      }
    }
  }

  Number number(od::value value, size_t depth, const std::string& path) {
    Number n;
    n.present = true;
    od::json_type type = od::json_type::null;
    check(value.type().get(type), path);
    if (type != od::json_type::number) {
      validate(value, depth, path);
      return n;
    }
    od::number parsed;
    const simdjson::error_code error = value.get_number().get(parsed);
    n.numeric = true;
    if (error == simdjson::NUMBER_ERROR) {
      // An integer literal beyond 64 bits is a double, as in nlohmann; a
      // number beyond a double's range (1e400) is an error, as everywhere.
      if (value.get_double().get(n.real) != simdjson::SUCCESS) {
        fail_at_location("not a number, or out of the range of a double", path);
      }
      return n;
    }
    check(error, path);
    switch (parsed.get_number_type()) {
      case od::number_type::signed_integer:
        n.integral = true;
        n.integer = parsed.get_int64();
        break;
      case od::number_type::unsigned_integer: n.real = static_cast<double>(parsed.get_uint64()); break;
      case od::number_type::floating_point_number: n.real = parsed.get_double(); break;
    }
    return n;
  }

  std::optional<std::string_view> string_or_other(od::value value, const std::string& path) {
    od::json_type type = od::json_type::null;
    check(value.type().get(type), path);
    if (type != od::json_type::string) {
      validate(value, 2, path);
      return std::nullopt;
    }
    std::string_view s;
    check(value.get_string().get(s), path);
    return s;
  }

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
        trace_.rank = number(v, 2, "distributedInfo.rank").as_int64();
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
        raw.ph = string_or_other(v, path);
      } else if (key == "cat") {
        raw.cat = string_or_other(v, path);
      } else if (key == "name") {
        raw.name_seen = true;
        raw.name = string_or_other(v, path);
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
    if (!raw.ts.to_ns(event.ts_ns)) return "no numeric \"ts\"";
    if (raw.dur.present) {
      if (!raw.dur.to_ns(event.dur_ns) || event.dur_ns < 0) return "bad \"dur\"";
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

  void read_events(od::value value) {
    od::array events;
    check(value.get_array().get(events), "traceEvents");
    size_t index = 0;
    std::string path, args_path;  // reused: no allocation per event
    for (auto element : events) {
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
        ++index;
        continue;
      }
      od::object object;
      check(item.get_object().get(object), path);
      const RawEvent raw = read_raw_event(object, path, args_path);
      const auto category = raw.ph && *raw.ph == "X" && raw.cat ? category_from(*raw.cat) : std::nullopt;
      if (!category) {
        ++trace_.ignored_events;
      } else {
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
      ++index;
    }
  }

  std::string_view text_;
  const std::string& source_;
  od::document* doc_ = nullptr;
  KinetoTrace trace_;
};

// `text` must have simdjson's padding of readable bytes past its end.
KinetoTrace parse_padded(std::string& text, const std::string& source_name) {
  // simdjson 3.0's on-demand parser reads its (unallocated) structural index
  // on a document without any token instead of reporting it empty.
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw Error(fmt::format("{}: not a Kineto trace: the document is empty", source_name));
  }
  if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  const simdjson::padded_string_view input(text.data(), text.size(), text.capacity());
  return Reader(text, source_name).read(input);
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

KinetoTrace read_kineto_trace(const std::filesystem::path& path) {
  std::string text = read_maybe_gzip(path);
  return parse_padded(text, path.string());
}

}  // namespace snr::pytorch
