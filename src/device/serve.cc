#include "device/serve.h"

#include <fmt/format.h>

#include "rsp/server.h"

namespace snr::device {

void serve(NpuDevice& device, rsp::Listener& listener, const ServeOptions& options) {
  for (;;) {
    rsp::Connection connection = listener.accept(std::chrono::milliseconds(-1));
    if (!connection.is_open()) continue;
    const std::string peer = connection.peer_name();
    if (options.log) options.log(fmt::format("debugger connected from {}", peer));
    rsp::SessionStats stats;
    const rsp::SessionEnd end = rsp::serve_connection(connection, device, &stats);
    // Breakpoints belong to the session that set them.
    device.clear_breakpoints();
    if (options.log) {
      options.log(fmt::format("debugger {} {}: {} packets ({} malformed), {} steps", peer,
                              rsp::session_end_name(end), stats.packets, stats.malformed_packets, stats.steps));
    }
    if (options.once) return;
  }
}

}  // namespace snr::device
