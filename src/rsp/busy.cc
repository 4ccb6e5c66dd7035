#include "rsp/busy.h"

#include <fmt/format.h>

#include <chrono>

#include "common/error.h"
#include "rsp/packet.h"

namespace snr::rsp {

BusyRejecter::BusyRejecter(Listener& listener, std::string reason, std::function<void(const std::string&)> log)
    : listener_(listener), reply_(frame_packet("E." + reason)), log_(std::move(log)) {
  thread_ = std::thread([this] { run(); });
}

BusyRejecter::~BusyRejecter() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void BusyRejecter::run() {
  // Short accept waits: the owner's session end is noticed within 50 ms.
  constexpr auto kPoll = std::chrono::milliseconds(50);
  while (!stop_.load()) {
    Connection client;
    try {
      client = listener_.accept(kPoll);
    } catch (const Error&) {
      continue;  // e.g. out of file descriptors; the next poll tries again
    }
    if (!client.is_open()) continue;
    const std::string peer = client.peer_name();
    // Counted and logged before the reply leaves: whoever reads the reply
    // sees the count.
    refused_.fetch_add(1);
    if (log_) log_(fmt::format("refused debugger from {}: busy", peer));
    try {
      client.send_all(reply_);
      client.shutdown_send();
      // Read what the client already sent (its qSupported) before closing:
      // closing with unread input answers with a reset.
      for (int i = 0; i < 4 && !client.receive(std::chrono::milliseconds(25)).empty(); ++i) {
      }
    } catch (const Error&) {
      // The client closed first; the reply and the end were already sent.
    }
    client.close();
  }
}

}  // namespace snr::rsp
