// Writer of Chrome trace-event JSON, the timeline format that the Perfetto UI
// and chrome://tracing load. Callers give integer times in nanoseconds,
// picoseconds or cycles; the writer renders microseconds as exact decimals
// (no floating point on the time path), so the same calls always give the
// same bytes.
//
// Perfetto drops slices that partially overlap on one thread track, so the
// writer enforces nesting: in kReject mode an overlap is an error naming both
// slices; in kSpreadToLanes mode overlapping slices move to sibling tracks
// ("name", "name #1", ...) placed next to the original.
//
// Events are kept in memory (compact records, names interned) until write():
// lane assignment and flow binding need every slice of a track, and callers
// such as simulators naturally emit slices in completion order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace snr::perfetto {

// How the integers passed to the writer map to time.
class TimeBase {
 public:
  static TimeBase nanoseconds() { return TimeBase(Unit::kNanoseconds, 0); }
  static TimeBase picoseconds() { return TimeBase(Unit::kPicoseconds, 0); }
  // Cycles of a clock; converted to the nearest picosecond with integer
  // arithmetic. Throws snr::Error when frequency_hz is zero.
  static TimeBase cycles(uint64_t frequency_hz);

  [[nodiscard]] int64_t to_picoseconds(int64_t ticks) const;

 private:
  enum class Unit { kNanoseconds, kPicoseconds, kCycles };
  TimeBase(Unit unit, uint64_t frequency_hz) : unit_(unit), frequency_hz_(frequency_hz) {}
  Unit unit_;
  uint64_t frequency_hz_;
};

// "12.345678" microseconds from picoseconds; trailing zeros trimmed.
std::string format_microseconds(int64_t picoseconds);

// Writes `text` as a JSON string literal (with quotes); control characters
// are escaped and invalid UTF-8 bytes become U+FFFD.
void append_json_string(std::string& out, std::string_view text);

using ArgValue = std::variant<int64_t, uint64_t, double, bool, std::string>;

// Key/value annotations shown in the UI's details pane, in insertion order.
class Args {
 public:
  Args& add(std::string key, int64_t value) { return put(std::move(key), value); }
  Args& add(std::string key, int value) { return put(std::move(key), static_cast<int64_t>(value)); }
  Args& add(std::string key, uint64_t value) { return put(std::move(key), value); }
  Args& add(std::string key, double value) { return put(std::move(key), value); }
  Args& add(std::string key, bool value) { return put(std::move(key), value); }
  Args& add(std::string key, std::string value) { return put(std::move(key), std::move(value)); }
  Args& add(std::string key, const char* value) { return put(std::move(key), std::string(value)); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }
  [[nodiscard]] const std::vector<std::pair<std::string, ArgValue>>& entries() const { return entries_; }

 private:
  Args& put(std::string key, ArgValue value);
  std::vector<std::pair<std::string, ArgValue>> entries_;
};

enum class OverlapPolicy { kReject, kSpreadToLanes };

struct TrackId {
  uint32_t index = 0;
};
struct CounterId {
  uint32_t index = 0;
};

class TraceWriter {
 public:
  explicit TraceWriter(TimeBase time_base = TimeBase::nanoseconds(),
                       OverlapPolicy policy = OverlapPolicy::kReject);

  // A thread track inside a process; processes are created on first mention
  // and keep the order of first mention in the UI.
  TrackId add_track(std::string_view process, std::string_view thread);
  // A counter series shown as its own track under `process`.
  CounterId add_counter(std::string_view process, std::string_view name);

  // A complete ("X") event. Throws snr::Error for an unknown track or a
  // negative duration.
  void slice(TrackId track, int64_t start, int64_t duration, std::string_view name, Args args = {},
             std::string_view category = {});
  // A thread-scoped instant ("i") event.
  void instant(TrackId track, int64_t time, std::string_view name, Args args = {});
  // One sample of a counter ("C") event.
  void counter(CounterId counter, int64_t time, double value);
  // An arrow from the slice enclosing `from_time` on `from` to the slice
  // enclosing `to_time` on `to` ("s"/"f" pair with enclosing-slice binding).
  // Returns the flow id. Throws when to_time < from_time.
  uint64_t flow(TrackId from, int64_t from_time, TrackId to, int64_t to_time, std::string_view name);

  // Renders the whole trace. Throws snr::Error naming the track and both
  // slices when kReject finds a partial overlap. Calling it twice gives the
  // same bytes.
  [[nodiscard]] std::string render() const;
  // render() into `path` atomically.
  void write_file(const std::filesystem::path& path) const;

  [[nodiscard]] size_t slice_count() const { return slices_.size(); }

 private:
  struct Track {
    uint32_t process = 0;
    uint32_t name = 0;  // interned string index
  };
  struct Counter {
    uint32_t process = 0;
    uint32_t name = 0;
  };
  struct Slice {
    uint32_t track = 0;
    uint32_t name = 0;
    uint32_t category = 0;
    uint32_t args = 0;  // index into args_, 0 means none
    int64_t start_ps = 0;
    int64_t end_ps = 0;
  };
  enum class Kind : uint8_t { kSlice, kInstant, kCounter, kFlowStart, kFlowEnd };
  // Non-slice events keep their call order through this list.
  struct Event {
    Kind kind;
    uint32_t index;  // into slices_, instants_, samples_ or flows_
  };
  struct Instant {
    uint32_t track = 0;
    uint32_t name = 0;
    uint32_t args = 0;
    int64_t time_ps = 0;
  };
  struct Sample {
    uint32_t counter = 0;
    int64_t time_ps = 0;
    double value = 0;
  };
  struct Flow {
    uint32_t from_track = 0;
    uint32_t to_track = 0;
    uint32_t name = 0;
    int64_t from_ps = 0;
    int64_t to_ps = 0;
  };
  struct Layout;  // lanes and tids, computed by render()

  // render()'s text appended to `out`; when `flush` is given it is called
  // with `out` between events once `out` holds a megabyte or more, and
  // must empty it.
  void render_into(std::string& out, const std::function<void(std::string&)>& flush) const;
  uint32_t intern(std::string_view text);
  uint32_t process_index(std::string_view process);
  uint32_t store_args(Args args);
  void check_track(TrackId track, std::string_view what) const;
  [[nodiscard]] Layout lay_out() const;

  TimeBase time_base_;
  OverlapPolicy policy_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> string_index_;
  std::vector<uint32_t> processes_;  // interned names
  std::unordered_map<uint32_t, uint32_t> process_of_name_;
  std::vector<Track> tracks_;
  std::unordered_map<uint64_t, uint32_t> track_of_key_;  // (process << 32 | name) -> track
  std::vector<Counter> counters_;
  std::vector<Args> args_;
  std::vector<Slice> slices_;
  std::vector<Instant> instants_;
  std::vector<Sample> samples_;
  std::vector<Flow> flows_;
  std::vector<Event> events_;
};

}  // namespace snr::perfetto
