#include "device/serve.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include "rsp/busy.h"
#include "rsp/server.h"

namespace snr::device {
namespace {

// User + system CPU seconds of this process so far.
double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

void serve(NpuDevice& device, rsp::Listener& listener, const ServeOptions& options) {
  for (;;) {
    rsp::Connection connection = listener.accept(std::chrono::milliseconds(-1));
    if (!connection.is_open()) continue;
    const std::string peer = connection.peer_name();
    if (options.log) options.log(fmt::format("debugger connected from {}", peer));
    rsp::SessionStats stats;
    // The device's own cost of a session (stepping, memory reads, protocol),
    // so a recording's two sides can be compared.
    const double cpu_before = cpu_seconds();
    rsp::SessionEnd end = rsp::SessionEnd::kDisconnected;
    {
      const rsp::BusyRejecter busy(
          listener, fmt::format("snr device is busy: a debugger from {} is connected; try again when it detaches", peer),
          options.log);
      end = rsp::serve_connection(connection, device, &stats, {.idle_timeout = options.idle_timeout});
    }
    const double session_cpu = cpu_seconds() - cpu_before;
    // Breakpoints belong to the session that set them.
    device.clear_breakpoints();
    if (options.log) {
      options.log(fmt::format("debugger {} {}: {} packets ({} malformed), {} steps, {:.2f} s CPU", peer,
                              rsp::session_end_name(end), stats.packets, stats.malformed_packets, stats.steps,
                              session_cpu));
    }
    if (options.once) return;
  }
}

}  // namespace snr::device
