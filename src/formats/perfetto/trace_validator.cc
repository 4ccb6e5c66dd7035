#include "formats/perfetto/trace_validator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"

namespace snr::perfetto {
namespace {

using Json = nlohmann::json;

struct TrackKey {
  std::string pid, tid;
  friend auto operator<=>(const TrackKey&, const TrackKey&) = default;
};

struct Span {
  int64_t start_ps;
  int64_t end_ps;
  size_t event;
};

class Checker {
 public:
  explicit Checker(TraceCheck& check) : check_(check) {}

  void problem(std::string text) {
    ++check_.problem_count;
    if (check_.problems.size() < TraceCheck::kMaxProblems) check_.problems.push_back(std::move(text));
  }

  // Microseconds (JSON number) to picoseconds; exact for the six decimals a
  // writer emits as long as the value is below ~9e9 us.
  std::optional<int64_t> time_ps(const Json& event, const char* key, size_t index, bool required = true) {
    auto it = event.find(key);
    if (it == event.end()) {
      if (required) problem(fmt::format("event {}: missing '{}'", index, key));
      return std::nullopt;
    }
    if (!it->is_number()) {
      problem(fmt::format("event {}: '{}' is not a number", index, key));
      return std::nullopt;
    }
    const double us = it->get<double>();
    if (!std::isfinite(us) || std::fabs(us) > 9e12) {
      problem(fmt::format("event {}: '{}' is out of range", index, key));
      return std::nullopt;
    }
    return std::llround(us * 1e6);
  }

  std::optional<TrackKey> track(const Json& event, size_t index) {
    const auto id_text = [&](const char* key) -> std::optional<std::string> {
      auto it = event.find(key);
      if (it == event.end() || !(it->is_number_integer() || it->is_string())) {
        problem(fmt::format("event {}: missing or non-integer '{}'", index, key));
        return std::nullopt;
      }
      return it->dump();
    };
    auto pid = id_text("pid");
    auto tid = id_text("tid");
    if (!pid || !tid) return std::nullopt;
    return TrackKey{*pid, *tid};
  }

  void event(const Json& e, size_t index) {
    if (!e.is_object()) {
      problem(fmt::format("event {}: not a JSON object", index));
      return;
    }
    auto ph_it = e.find("ph");
    if (ph_it == e.end() || !ph_it->is_string() || ph_it->get_ref<const std::string&>().empty()) {
      problem(fmt::format("event {}: missing phase 'ph'", index));
      return;
    }
    const std::string& ph = ph_it->get_ref<const std::string&>();
    auto name_it = e.find("name");
    const std::string name = (name_it != e.end() && name_it->is_string()) ? name_it->get<std::string>() : "";
    if (ph == "X") {
      ++check_.slices;
      auto key = track(e, index);
      auto ts = time_ps(e, "ts", index);
      auto dur = time_ps(e, "dur", index);
      if (!key || !ts || !dur) return;
      if (*dur < 0) {
        problem(fmt::format("event {} '{}': negative duration", index, name));
        return;
      }
      spans_[*key].push_back(Span{*ts, *ts + *dur, index});
    } else if (ph == "B" || ph == "E") {
      auto key = track(e, index);
      auto ts = time_ps(e, "ts", index);
      if (!key || !ts) return;
      auto& open = open_begins_[*key];
      if (ph == "B") {
        open.push_back(Span{*ts, 0, index});
      } else if (open.empty()) {
        problem(fmt::format("event {}: 'E' without a matching 'B' on pid {} tid {}", index, key->pid, key->tid));
      } else {
        ++check_.slices;
        Span span = open.back();
        open.pop_back();
        if (*ts < span.start_ps) {
          problem(fmt::format("event {}: 'E' earlier than its 'B' (event {})", index, span.event));
          return;
        }
        span.end_ps = *ts;
        spans_[*key].push_back(span);
      }
    } else if (ph == "C") {
      ++check_.counters;
      time_ps(e, "ts", index);
      auto args = e.find("args");
      if (args == e.end() || !args->is_object() || args->empty()) {
        problem(fmt::format("event {} '{}': counter without 'args' values", index, name));
        return;
      }
      for (const auto& [series, value] : args->items()) {
        if (!value.is_number()) problem(fmt::format("event {} '{}': counter series '{}' is not a number", index, name, series));
      }
    } else if (ph == "s" || ph == "f" || ph == "t") {
      auto key = track(e, index);
      auto ts = time_ps(e, "ts", index);
      auto id = e.find("id");
      if (id == e.end() || !(id->is_number_integer() || id->is_string())) {
        problem(fmt::format("event {}: flow event without an integer or string 'id'", index));
        return;
      }
      if (!key || !ts) return;
      auto cat = e.find("cat");
      const std::string flow_key = (cat != e.end() && cat->is_string() ? cat->get<std::string>() : "") + "\x1f" + id->dump();
      if (ph == "s") {
        if (!flow_starts_.emplace(flow_key, std::make_pair(*ts, index)).second) {
          problem(fmt::format("event {}: flow id {} started twice", index, id->dump()));
        }
      } else if (ph == "f") {
        auto it = flow_starts_.find(flow_key);
        if (it == flow_starts_.end()) {
          problem(fmt::format("event {}: flow end with id {} has no earlier start", index, id->dump()));
        } else {
          if (*ts < it->second.first) {
            problem(fmt::format("event {}: flow id {} ends before it starts (event {})", index, id->dump(), it->second.second));
          }
          flow_starts_.erase(it);
          ++check_.flows;
        }
      }
    } else if (ph == "M") {
      ++check_.metadata;
      auto args = e.find("args");
      if (args == e.end() || !args->is_object()) problem(fmt::format("event {} '{}': metadata without 'args'", index, name));
    } else if (ph == "i" || ph == "I" || ph == "R") {
      time_ps(e, "ts", index);
      ++check_.other;
    } else {
      ++check_.other;
    }
  }

  void finish() {
    for (const auto& [key, open] : open_begins_) {
      for (const Span& span : open) problem(fmt::format("event {}: 'B' on pid {} tid {} never ended", span.event, key.pid, key.tid));
    }
    for (const auto& [flow_key, start] : flow_starts_) {
      problem(fmt::format("event {}: flow start id {} has no matching end", start.second,
                          flow_key.substr(flow_key.find('\x1f') + 1)));
    }
    check_.tracks = spans_.size();
    for (auto& [key, spans] : spans_) {
      std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
        if (a.start_ps != b.start_ps) return a.start_ps < b.start_ps;
        return a.end_ps > b.end_ps;
      });
      std::vector<const Span*> open;
      for (const Span& s : spans) {
        while (!open.empty() && open.back()->end_ps <= s.start_ps) open.pop_back();
        if (!open.empty() && open.back()->end_ps < s.end_ps) {
          problem(fmt::format("event {}: slice partially overlaps event {} on pid {} tid {}; slices on one track must nest",
                              s.event, open.back()->event, key.pid, key.tid));
          continue;  // keep checking the rest against the enclosing slices
        }
        open.push_back(&s);
      }
    }
  }

 private:
  TraceCheck& check_;
  std::map<TrackKey, std::vector<Span>> spans_;
  std::map<TrackKey, std::vector<Span>> open_begins_;
  std::map<std::string, std::pair<int64_t, size_t>> flow_starts_;
};

}  // namespace

std::string TraceCheck::summary() const {
  if (ok()) {
    return fmt::format("ok: {} events, {} slices on {} tracks, {} flows, {} counter samples", events, slices, tracks,
                       flows, counters);
  }
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  if (problem_count > problems.size()) out += fmt::format("... and {} more problems\n", problem_count - problems.size());
  return out;
}

TraceCheck check_chrome_trace(std::string_view json_text) {
  TraceCheck check;
  Checker checker(check);
  Json root;
  try {
    root = parse_json_input(json_text, "");
  } catch (const Error& e) {
    checker.problem(fmt::format("not valid JSON: {}", e.what()));
    return check;
  }
  const Json* events = nullptr;
  if (root.is_array()) {
    events = &root;
  } else if (root.is_object()) {
    auto it = root.find("traceEvents");
    if (it == root.end() || !it->is_array()) {
      checker.problem("top-level object has no 'traceEvents' array");
      return check;
    }
    events = &*it;
  } else {
    checker.problem("top level is neither an object nor an array of events");
    return check;
  }
  check.events = events->size();
  for (size_t i = 0; i < events->size(); ++i) checker.event((*events)[i], i);
  checker.finish();
  return check;
}

TraceCheck check_chrome_trace_file(const std::filesystem::path& path) {
  return check_chrome_trace(read_file(path));
}

}  // namespace snr::perfetto
