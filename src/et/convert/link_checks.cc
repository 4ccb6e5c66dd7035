#include "et/convert/link_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <set>

namespace snr::et_convert {

namespace {

using pytorch::KinetoCategory;

bool is_host_event(KinetoCategory c) {
  return c == KinetoCategory::kCpuOp || c == KinetoCategory::kUserAnnotation ||
         c == KinetoCategory::kCudaRuntime || c == KinetoCategory::kCudaDriver;
}

// Kineto timestamps are Unix-epoch microseconds on every profiler that
// writes absolute times; anything before 2001-09-09 (1e9 s) is a relative
// clock and cannot be compared with a wall-clock date.
constexpr int64_t kEpochFloorNs = 1'000'000'000LL * 1'000'000'000LL;
// Time zones span UTC-12..UTC+14; a profile may run for a while after the
// execution trace was started.
constexpr int64_t kMaxApartSeconds = (14 + 12) * 3600;

bool read_int(std::string_view text, size_t pos, size_t len, int& out) {
  if (pos + len > text.size()) return false;
  const char* begin = text.data() + pos;
  const auto [end, ec] = std::from_chars(begin, begin + len, out);
  return ec == std::errc() && end == begin + len;
}

std::string format_utc(int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm parts{};
  if (gmtime_r(&t, &parts) == nullptr) return fmt::format("{} s since the epoch", seconds);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC", parts.tm_year + 1900, parts.tm_mon + 1,
                     parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec);
}

}  // namespace

std::optional<int64_t> parse_wall_clock_seconds(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') ||
      text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  if (!read_int(text, 0, 4, y) || !read_int(text, 5, 2, mo) || !read_int(text, 8, 2, d) ||
      !read_int(text, 11, 2, h) || !read_int(text, 14, 2, mi) || !read_int(text, 17, 2, s)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  std::tm parts{};
  parts.tm_year = y - 1900;
  parts.tm_mon = mo - 1;
  parts.tm_mday = d;
  parts.tm_hour = h;
  parts.tm_min = mi;
  parts.tm_sec = s;
  return static_cast<int64_t>(timegm(&parts));
}

std::optional<std::string> check_pid(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device) {
  if (host.pid <= 0) return std::nullopt;
  std::set<int64_t> pids;
  for (const auto& event : device.events) {
    if (is_host_event(event.category)) pids.insert(event.pid);
  }
  if (pids.empty() || pids.count(host.pid) != 0) return std::nullopt;
  std::string list;
  size_t shown = 0;
  for (int64_t pid : pids) {
    if (shown++ == 4) {
      list += ", ...";
      break;
    }
    list += (list.empty() ? "" : ", ") + std::to_string(pid);
  }
  return fmt::format("pid mismatch: the host trace is process {}, the Kineto trace's CPU events are "
                     "process(es) {}",
                     host.pid, list);
}

std::optional<std::string> check_time(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device) {
  const auto it = host.root_fields.find("time");
  if (it == host.root_fields.end() || !it->is_string()) return std::nullopt;
  const auto host_seconds = parse_wall_clock_seconds(it->get<std::string>());
  if (!host_seconds) return std::nullopt;
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  bool any = false;
  for (const auto& event : device.events) {
    if (!is_host_event(event.category)) continue;
    first_ns = any ? std::min(first_ns, event.ts_ns) : event.ts_ns;
    last_ns = any ? std::max(last_ns, event.ts_ns + event.dur_ns) : event.ts_ns + event.dur_ns;
    any = true;
  }
  if (!any || first_ns < kEpochFloorNs) return std::nullopt;
  const int64_t first_s = first_ns / 1'000'000'000;
  const int64_t last_s = last_ns / 1'000'000'000;
  const int64_t apart = *host_seconds < first_s ? first_s - *host_seconds
                        : *host_seconds > last_s ? *host_seconds - last_s
                                                 : 0;
  if (apart <= kMaxApartSeconds) return std::nullopt;
  return fmt::format("time mismatch: the host trace was recorded at {} (local time), the Kineto events "
                     "span {} to {}: {:.1f} days apart",
                     it->get<std::string>(), format_utc(first_s), format_utc(last_s),
                     static_cast<double>(apart) / 86400.0);
}

std::optional<std::string> check_rank(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device) {
  if (!host.rank || !device.rank || *host.rank == *device.rank) return std::nullopt;
  return fmt::format("rank mismatch: the host trace is rank {}, the Kineto trace rank {}", *host.rank,
                     *device.rank);
}

}  // namespace snr::et_convert
