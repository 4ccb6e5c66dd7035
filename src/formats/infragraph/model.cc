#include "formats/infragraph/model.h"

#include <fmt/format.h>

#include <charconv>

#include "common/error.h"

namespace snr::infragraph {

const Component* Device::find_component(std::string_view component_name) const {
  for (const auto& c : components) {
    if (c.name == component_name) return &c;
  }
  return nullptr;
}

const Link* Device::find_link(std::string_view link_name) const {
  for (const auto& l : links) {
    if (l.name == link_name) return &l;
  }
  return nullptr;
}

const Device* Infrastructure::find_device(std::string_view device_name) const {
  for (const auto& d : devices) {
    if (d.name == device_name) return &d;
  }
  return nullptr;
}

const Instance* Infrastructure::find_instance(std::string_view instance_name) const {
  for (const auto& i : instances) {
    if (i.name == instance_name) return &i;
  }
  return nullptr;
}

const Link* Infrastructure::find_link(std::string_view link_name) const {
  for (const auto& l : links) {
    if (l.name == link_name) return &l;
  }
  return nullptr;
}

std::string_view choice_name(ComponentChoice choice) {
  switch (choice) {
    case ComponentChoice::kCustom: return "custom";
    case ComponentChoice::kDevice: return "device";
    case ComponentChoice::kCpu: return "cpu";
    case ComponentChoice::kXpu: return "xpu";
    case ComponentChoice::kNic: return "nic";
    case ComponentChoice::kMemory: return "memory";
    case ComponentChoice::kPort: return "port";
    case ComponentChoice::kSwitch: return "switch";
  }
  return "?";
}

std::string_view scheme_name(Scheme scheme) {
  switch (scheme) {
    case Scheme::kOne2One: return "one2one";
    case Scheme::kMany2Many: return "many2many";
    case Scheme::kRing: return "ring";
  }
  return "?";
}

std::string_view bandwidth_unit_name(BandwidthUnit unit) {
  switch (unit) {
    case BandwidthUnit::kGigabitsPerSecond: return "gigabits_per_second";
    case BandwidthUnit::kGigabytesPerSecond: return "gigabytes_per_second";
    case BandwidthUnit::kGigatransfersPerSecond: return "gigatransfers_per_second";
  }
  return "?";
}

std::string_view latency_unit_name(LatencyUnit unit) {
  switch (unit) {
    case LatencyUnit::kMs: return "ms";
    case LatencyUnit::kUs: return "us";
    case LatencyUnit::kNs: return "ns";
  }
  return "?";
}

double bandwidth_bits_per_s(const Bandwidth& bandwidth) {
  switch (bandwidth.unit) {
    case BandwidthUnit::kGigabitsPerSecond: return bandwidth.value * 1e9;
    case BandwidthUnit::kGigabytesPerSecond: return bandwidth.value * 8e9;
    case BandwidthUnit::kGigatransfersPerSecond: return bandwidth.value * 1e9;
  }
  return 0;
}

double latency_ns(const Latency& latency) {
  switch (latency.unit) {
    case LatencyUnit::kMs: return latency.value * 1e6;
    case LatencyUnit::kUs: return latency.value * 1e3;
    case LatencyUnit::kNs: return latency.value;
  }
  return 0;
}

namespace {

int64_t parse_index(std::string_view text, std::string_view whole) {
  int64_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) {
    throw Error(fmt::format("slice '{}': '{}' is not a non-negative integer", whole, text));
  }
  if (value < 0) throw Error(fmt::format("slice '{}': negative index {} is not supported", whole, value));
  return value;
}

}  // namespace

std::vector<SliceSegment> parse_slice_path(std::string_view text) {
  std::vector<SliceSegment> out;
  if (text.empty()) throw Error("empty endpoint");
  size_t pos = 0;
  while (pos <= text.size()) {
    // A segment ends at the first '.' outside brackets.
    size_t end = pos;
    int depth = 0;
    while (end < text.size() && (text[end] != '.' || depth > 0)) {
      if (text[end] == '[') ++depth;
      if (text[end] == ']') --depth;
      ++end;
    }
    std::string_view seg = text.substr(pos, end - pos);
    SliceSegment s;
    const size_t open = seg.find('[');
    s.name = std::string(seg.substr(0, open));
    if (s.name.empty()) throw Error(fmt::format("endpoint '{}': empty name in segment '{}'", text, seg));
    if (open != std::string_view::npos) {
      if (seg.back() != ']' || seg.find('[', open + 1) != std::string_view::npos) {
        throw Error(fmt::format("endpoint '{}': malformed slice in '{}'", text, seg));
      }
      std::string_view inner = seg.substr(open + 1, seg.size() - open - 2);
      s.has_slice = true;
      const size_t c1 = inner.find(':');
      if (c1 == std::string_view::npos) {
        s.single = true;
        s.start = parse_index(inner, text);
      } else {
        std::string_view a = inner.substr(0, c1);
        std::string_view rest = inner.substr(c1 + 1);
        const size_t c2 = rest.find(':');
        std::string_view b = rest.substr(0, c2);
        if (!a.empty()) s.start = parse_index(a, text);
        if (!b.empty()) s.stop = parse_index(b, text);
        if (c2 != std::string_view::npos) {
          std::string_view st = rest.substr(c2 + 1);
          if (!st.empty()) s.step = parse_index(st, text);
          if (s.step == 0) throw Error(fmt::format("endpoint '{}': slice step 0", text));
        }
      }
    }
    out.push_back(std::move(s));
    if (end >= text.size()) break;
    pos = end + 1;
    if (pos == text.size()) throw Error(fmt::format("endpoint '{}': trailing '.'", text));
  }
  return out;
}

std::vector<int64_t> SliceSegment::indices(int64_t count, std::string_view what) const {
  std::vector<int64_t> out;
  if (!has_slice) {
    for (int64_t i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  if (single) {
    if (*start >= count) {
      throw Error(fmt::format("{}: index {} out of range for {} (count {})", what, *start, name, count));
    }
    out.push_back(*start);
    return out;
  }
  const int64_t a = start.value_or(0);
  const int64_t b = stop.value_or(count);
  if (b > count || a > count) {
    throw Error(fmt::format("{}: slice {}[{}:{}] out of range for count {}", what, name, a, b, count));
  }
  if (a >= b) throw Error(fmt::format("{}: slice {}[{}:{}] selects nothing", what, name, a, b));
  for (int64_t i = a; i < b; i += step) out.push_back(i);
  return out;
}

std::string to_string(const SliceSegment& segment) {
  if (!segment.has_slice) return segment.name;
  if (segment.single) return fmt::format("{}[{}]", segment.name, *segment.start);
  std::string s = segment.name + "[";
  if (segment.start) s += std::to_string(*segment.start);
  s += ":";
  if (segment.stop) s += std::to_string(*segment.stop);
  if (segment.step != 1) s += ":" + std::to_string(segment.step);
  return s + "]";
}

}  // namespace snr::infragraph
