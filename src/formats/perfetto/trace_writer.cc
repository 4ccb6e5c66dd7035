#include "formats/perfetto/trace_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "common/file_io.h"

namespace snr::perfetto {
namespace {
// GCC and clang both provide 128-bit integers; __extension__ keeps
// -Wpedantic quiet about the non-standard type.
__extension__ typedef __int128 Int128;
}  // namespace

TimeBase TimeBase::cycles(uint64_t frequency_hz) {
  if (frequency_hz == 0) throw Error("timeline time base: clock frequency must be non-zero");
  return TimeBase(Unit::kCycles, frequency_hz);
}

int64_t TimeBase::to_picoseconds(int64_t ticks) const {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  switch (unit_) {
    case Unit::kPicoseconds:
      return ticks;
    case Unit::kNanoseconds:
      if (ticks > kMax / 1000 || ticks < -(kMax / 1000)) {
        throw Error(fmt::format("timeline time {} ns does not fit in 64-bit picoseconds", ticks));
      }
      return ticks * 1000;
    case Unit::kCycles: {
      // Round half away from zero in 128-bit integers: monotone, so nesting
      // in cycles stays nesting in picoseconds.
      const Int128 scaled = static_cast<Int128>(ticks) * 1'000'000'000'000;
      const Int128 hz = static_cast<Int128>(frequency_hz_);
      const Int128 rounded = scaled >= 0 ? (scaled + hz / 2) / hz : -((-scaled + hz / 2) / hz);
      if (rounded > kMax || rounded < -kMax) {
        throw Error(fmt::format("timeline time {} cycles does not fit in 64-bit picoseconds", ticks));
      }
      return static_cast<int64_t>(rounded);
    }
  }
  return ticks;
}

std::string format_microseconds(int64_t picoseconds) {
  const bool negative = picoseconds < 0;
  // Magnitude as unsigned so INT64_MIN stays representable.
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(picoseconds) : static_cast<uint64_t>(picoseconds);
  const uint64_t whole = magnitude / 1'000'000;
  uint64_t fraction = magnitude % 1'000'000;
  std::string out = negative ? "-" : "";
  out += fmt::format("{}", whole);
  if (fraction != 0) {
    int digits = 6;
    while (fraction % 10 == 0) {
      fraction /= 10;
      --digits;
    }
    out += fmt::format(".{:0{}}", fraction, digits);
  }
  return out;
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  uint32_t min_code = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    min_code = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    min_code = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    min_code = 0x10000;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  uint32_t code = lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min_code || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default: out += fmt::format("\\u{:04x}", c); break;
      }
      ++i;
    } else {
      const size_t length = utf8_sequence_length(text, i);
      if (length == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
    }
  }
  out += '"';
}

Args& Args::put(std::string key, ArgValue value) {
  for (const auto& [existing, unused] : entries_) {
    if (existing == key) throw Error(fmt::format("timeline event argument '{}' given twice", key));
  }
  if (const auto* number = std::get_if<double>(&value); number != nullptr && !std::isfinite(*number)) {
    throw Error(fmt::format("timeline event argument '{}' is not finite", key));
  }
  entries_.emplace_back(std::move(key), std::move(value));
  return *this;
}

TraceWriter::TraceWriter(TimeBase time_base, OverlapPolicy policy) : time_base_(time_base), policy_(policy) {
  intern("");
  args_.emplace_back();  // index 0: no arguments
}

uint32_t TraceWriter::intern(std::string_view text) {
  auto it = string_index_.find(std::string(text));
  if (it != string_index_.end()) return it->second;
  const auto index = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(text);
  string_index_.emplace(std::string(text), index);
  return index;
}

uint32_t TraceWriter::process_index(std::string_view process) {
  const uint32_t name = intern(process);
  auto [it, inserted] = process_of_name_.emplace(name, static_cast<uint32_t>(processes_.size()));
  if (inserted) processes_.push_back(name);
  return it->second;
}

uint32_t TraceWriter::store_args(Args args) {
  if (args.empty()) return 0;
  args_.push_back(std::move(args));
  return static_cast<uint32_t>(args_.size() - 1);
}

void TraceWriter::check_track(TrackId track, std::string_view what) const {
  if (track.index >= tracks_.size()) {
    throw Error(fmt::format("timeline {}: unknown track id {} ({} tracks exist)", what, track.index, tracks_.size()));
  }
}

TrackId TraceWriter::add_track(std::string_view process, std::string_view thread) {
  Track track{process_index(process), intern(thread)};
  const uint64_t key = (static_cast<uint64_t>(track.process) << 32) | track.name;
  if (!track_of_key_.emplace(key, static_cast<uint32_t>(tracks_.size())).second) {
    throw Error(fmt::format("timeline track '{}/{}' added twice", process, thread));
  }
  tracks_.push_back(track);
  return TrackId{static_cast<uint32_t>(tracks_.size() - 1)};
}

CounterId TraceWriter::add_counter(std::string_view process, std::string_view name) {
  counters_.push_back(Counter{process_index(process), intern(name)});
  return CounterId{static_cast<uint32_t>(counters_.size() - 1)};
}

void TraceWriter::slice(TrackId track, int64_t start, int64_t duration, std::string_view name, Args args,
                        std::string_view category) {
  check_track(track, fmt::format("slice '{}'", name));
  if (duration < 0) {
    throw Error(fmt::format("timeline slice '{}' at {} has negative duration {}", name, start, duration));
  }
  Slice s;
  s.track = track.index;
  s.name = intern(name);
  s.category = intern(category);
  s.args = store_args(std::move(args));
  s.start_ps = time_base_.to_picoseconds(start);
  // Convert the end, not the duration, so rounded cycle times still nest.
  s.end_ps = time_base_.to_picoseconds(start + duration);
  events_.push_back(Event{Kind::kSlice, static_cast<uint32_t>(slices_.size())});
  slices_.push_back(s);
}

void TraceWriter::instant(TrackId track, int64_t time, std::string_view name, Args args) {
  check_track(track, fmt::format("instant '{}'", name));
  events_.push_back(Event{Kind::kInstant, static_cast<uint32_t>(instants_.size())});
  instants_.push_back(Instant{track.index, intern(name), store_args(std::move(args)), time_base_.to_picoseconds(time)});
}

void TraceWriter::counter(CounterId counter, int64_t time, double value) {
  if (counter.index >= counters_.size()) {
    throw Error(fmt::format("timeline counter sample: unknown counter id {}", counter.index));
  }
  if (!std::isfinite(value)) {
    throw Error(fmt::format("timeline counter '{}' at {}: value is not finite", strings_[counters_[counter.index].name], time));
  }
  events_.push_back(Event{Kind::kCounter, static_cast<uint32_t>(samples_.size())});
  samples_.push_back(Sample{counter.index, time_base_.to_picoseconds(time), value});
}

uint64_t TraceWriter::flow(TrackId from, int64_t from_time, TrackId to, int64_t to_time, std::string_view name) {
  check_track(from, fmt::format("flow '{}' source", name));
  check_track(to, fmt::format("flow '{}' destination", name));
  if (to_time < from_time) {
    throw Error(fmt::format("timeline flow '{}' ends at {} before it starts at {}", name, to_time, from_time));
  }
  const auto index = static_cast<uint32_t>(flows_.size());
  flows_.push_back(Flow{from.index, to.index, intern(name), time_base_.to_picoseconds(from_time),
                        time_base_.to_picoseconds(to_time)});
  events_.push_back(Event{Kind::kFlowStart, index});
  events_.push_back(Event{Kind::kFlowEnd, index});
  return index + 1;
}

}  // namespace snr::perfetto
