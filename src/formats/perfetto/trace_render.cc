// TraceWriter::render(): lane assignment, nesting checks and JSON output.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/perfetto/trace_writer.h"

namespace snr::perfetto {

struct TraceWriter::Layout {
  std::vector<uint32_t> slice_lane;                      // per slice
  std::vector<uint32_t> lane_count;                      // per track
  std::vector<uint32_t> first_tid;                       // per track; lane k has tid first_tid + k
  std::vector<std::vector<std::vector<std::pair<int64_t, int64_t>>>> top_level;  // [track][lane] -> outermost slices
  std::vector<uint32_t> flow_from_lane, flow_to_lane;    // per flow
};

namespace {

struct OpenSlice {
  int64_t end_ps;
  uint32_t slice;
};

// Lane of the outermost slice containing `time_ps`, or lane 0 when none does.
uint32_t lane_containing(const std::vector<std::vector<std::pair<int64_t, int64_t>>>& lanes, int64_t time_ps) {
  for (uint32_t lane = 0; lane < lanes.size(); ++lane) {
    const auto& spans = lanes[lane];
    auto it = std::upper_bound(spans.begin(), spans.end(), time_ps,
                               [](int64_t t, const std::pair<int64_t, int64_t>& s) { return t < s.first; });
    if (it != spans.begin() && std::prev(it)->second >= time_ps) return lane;
  }
  return 0;
}

void append_arg_value(std::string& out, const ArgValue& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          append_json_string(out, v);
        } else if constexpr (std::is_same_v<T, bool>) {
          out += v ? "true" : "false";
        } else {
          out += fmt::format("{}", v);
        }
      },
      value);
}

}  // namespace

TraceWriter::Layout TraceWriter::lay_out() const {
  Layout layout;
  layout.slice_lane.assign(slices_.size(), 0);
  layout.lane_count.assign(tracks_.size(), 1);
  layout.top_level.resize(tracks_.size());

  // Slices per track in start order; at equal starts the longer one first so
  // it becomes the parent; call order breaks remaining ties.
  std::vector<std::vector<uint32_t>> by_track(tracks_.size());
  for (uint32_t i = 0; i < slices_.size(); ++i) by_track[slices_[i].track].push_back(i);
  for (uint32_t track = 0; track < tracks_.size(); ++track) {
    auto& order = by_track[track];
    std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
      if (slices_[a].start_ps != slices_[b].start_ps) return slices_[a].start_ps < slices_[b].start_ps;
      return slices_[a].end_ps > slices_[b].end_ps;
    });
    std::vector<std::vector<OpenSlice>> open;  // per lane, a stack of enclosing slices
    auto& top = layout.top_level[track];
    for (uint32_t index : order) {
      const Slice& s = slices_[index];
      uint32_t lane = 0;
      for (;; ++lane) {
        if (lane == open.size()) {
          open.emplace_back();
          top.emplace_back();
        }
        auto& stack = open[lane];
        while (!stack.empty() && stack.back().end_ps <= s.start_ps) stack.pop_back();
        if (stack.empty() || stack.back().end_ps >= s.end_ps) break;
        if (policy_ == OverlapPolicy::kReject) {
          const Slice& other = slices_[stack.back().slice];
          throw Error(fmt::format(
              "timeline track '{}/{}': slice '{}' [{} us, {} us] partially overlaps slice '{}' [{} us, {} us]; "
              "slices on one track must nest",
              strings_[processes_[tracks_[track].process]], strings_[tracks_[track].name], strings_[s.name],
              format_microseconds(s.start_ps), format_microseconds(s.end_ps), strings_[other.name],
              format_microseconds(other.start_ps), format_microseconds(other.end_ps)));
        }
      }
      if (open[lane].empty()) top[lane].emplace_back(s.start_ps, s.end_ps);
      open[lane].push_back(OpenSlice{s.end_ps, index});
      layout.slice_lane[index] = lane;
    }
    layout.lane_count[track] = std::max<uint32_t>(1, static_cast<uint32_t>(open.size()));
    top.resize(layout.lane_count[track]);
  }

  // Tids: per process, tracks in creation order, lanes of a track adjacent.
  layout.first_tid.assign(tracks_.size(), 0);
  std::vector<uint32_t> next_tid(processes_.size(), 1);
  for (uint32_t track = 0; track < tracks_.size(); ++track) {
    auto& next = next_tid[tracks_[track].process];
    layout.first_tid[track] = next;
    next += layout.lane_count[track];
  }

  for (const Flow& f : flows_) {
    layout.flow_from_lane.push_back(lane_containing(layout.top_level[f.from_track], f.from_ps));
    layout.flow_to_lane.push_back(lane_containing(layout.top_level[f.to_track], f.to_ps));
  }
  return layout;
}

std::string TraceWriter::render() const {
  std::string out;
  out.reserve(64 + 128 * (events_.size() + tracks_.size()));
  render_into(out, {});
  return out;
}

void TraceWriter::render_into(std::string& out, const std::function<void(std::string&)>& flush) const {
  // A file gets the text a megabyte at a time, so a timeline of half a
  // million slices is never held whole besides the writer's own records.
  constexpr size_t kPieceBytes = size_t{1} << 20;
  const Layout layout = lay_out();
  out += "{\"traceEvents\":[\n";
  bool first = true;
  const auto begin_event = [&]() {
    if (flush && out.size() >= kPieceBytes) flush(out);
    if (!first) out += ",\n";
    first = false;
  };
  const auto append_args = [&](uint32_t args_index) {
    if (args_index == 0) return;
    out += ",\"args\":{";
    bool first_arg = true;
    for (const auto& [key, value] : args_[args_index].entries()) {
      if (!first_arg) out += ',';
      first_arg = false;
      append_json_string(out, key);
      out += ':';
      append_arg_value(out, value);
    }
    out += '}';
  };
  const auto pid_tid = [&](uint32_t track, uint32_t lane) {
    out += fmt::format(",\"pid\":{},\"tid\":{}", tracks_[track].process + 1, layout.first_tid[track] + lane);
  };

  for (uint32_t p = 0; p < processes_.size(); ++p) {
    begin_event();
    out += fmt::format("{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":", p + 1);
    append_json_string(out, strings_[processes_[p]]);
    out += "}}";
    begin_event();
    out += fmt::format(
        "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"tid\":0,\"args\":{{\"sort_index\":{}}}}}", p + 1,
        p + 1);
  }
  for (uint32_t track = 0; track < tracks_.size(); ++track) {
    for (uint32_t lane = 0; lane < layout.lane_count[track]; ++lane) {
      const std::string& base = strings_[tracks_[track].name];
      const std::string name = lane == 0 ? base : fmt::format("{} #{}", base, lane);
      const uint32_t tid = layout.first_tid[track] + lane;
      begin_event();
      out += "{\"ph\":\"M\",\"name\":\"thread_name\"";
      pid_tid(track, lane);
      out += ",\"args\":{\"name\":";
      append_json_string(out, name);
      out += "}}";
      begin_event();
      out += "{\"ph\":\"M\",\"name\":\"thread_sort_index\"";
      pid_tid(track, lane);
      out += fmt::format(",\"args\":{{\"sort_index\":{}}}}}", tid);
    }
  }

  for (const Event& event : events_) {
    begin_event();
    switch (event.kind) {
      case Kind::kSlice: {
        const Slice& s = slices_[event.index];
        out += "{\"ph\":\"X\",\"name\":";
        append_json_string(out, strings_[s.name]);
        if (s.category != 0) {
          out += ",\"cat\":";
          append_json_string(out, strings_[s.category]);
        }
        pid_tid(s.track, layout.slice_lane[event.index]);
        out += fmt::format(",\"ts\":{},\"dur\":{}", format_microseconds(s.start_ps),
                           format_microseconds(s.end_ps - s.start_ps));
        append_args(s.args);
        out += '}';
        break;
      }
      case Kind::kInstant: {
        const Instant& i = instants_[event.index];
        out += "{\"ph\":\"i\",\"s\":\"t\",\"name\":";
        append_json_string(out, strings_[i.name]);
        pid_tid(i.track, 0);
        out += fmt::format(",\"ts\":{}", format_microseconds(i.time_ps));
        append_args(i.args);
        out += '}';
        break;
      }
      case Kind::kCounter: {
        const Sample& sample = samples_[event.index];
        const Counter& c = counters_[sample.counter];
        out += "{\"ph\":\"C\",\"name\":";
        append_json_string(out, strings_[c.name]);
        out += fmt::format(",\"pid\":{},\"ts\":{},\"args\":{{\"value\":{}}}}}", c.process + 1,
                           format_microseconds(sample.time_ps), sample.value);
        break;
      }
      case Kind::kFlowStart:
      case Kind::kFlowEnd: {
        const Flow& f = flows_[event.index];
        const bool is_start = event.kind == Kind::kFlowStart;
        out += fmt::format("{{\"ph\":\"{}\",\"name\":", is_start ? 's' : 'f');
        append_json_string(out, strings_[f.name]);
        out += fmt::format(",\"cat\":\"flow\",\"id\":{}", event.index + 1);
        if (is_start) {
          pid_tid(f.from_track, layout.flow_from_lane[event.index]);
        } else {
          pid_tid(f.to_track, layout.flow_to_lane[event.index]);
        }
        out += fmt::format(",\"ts\":{}", format_microseconds(is_start ? f.from_ps : f.to_ps));
        if (!is_start) out += ",\"bp\":\"e\"";
        out += '}';
        break;
      }
    }
  }
  out += "\n],\"displayTimeUnit\":\"ns\"}\n";
}

void TraceWriter::write_file(const std::filesystem::path& path) const {
  with_error_context(fmt::format("writing timeline {}", path.string()), [&] {
    AtomicFileWriter writer(path);
    std::string piece;
    render_into(piece, [&](std::string& text) {
      writer.write(text);
      text.clear();
    });
    writer.write(piece);
    writer.commit();
  });
}

}  // namespace snr::perfetto
