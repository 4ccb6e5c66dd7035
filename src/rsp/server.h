// The protocol side of a debug stub: reads packets from one connection,
// answers them by calling a Target, until the debugger detaches, kills or
// disconnects. Supports the subset documented in docs/debugger.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "rsp/packet.h"
#include "rsp/socket.h"
#include "rsp/target.h"

namespace snr::rsp {

enum class SessionEnd : uint8_t { kDetached, kKilled, kDisconnected, kIdleTimeout };
std::string_view session_end_name(SessionEnd end);

struct SessionStats {
  uint64_t packets = 0;
  uint64_t malformed_packets = 0;
  uint64_t steps = 0;
};

// Answers one packet payload; `reply` is what to send back (may be empty,
// which the protocol reads as "unsupported"). Separate from the socket loop
// so it can be fuzzed and unit-tested.
class PacketHandler {
 public:
  explicit PacketHandler(Target& target) : target_(target) {}

  struct Outcome {
    std::string reply;
    bool send_reply = true;  // false for 'k'
    bool end_session = false;
    SessionEnd end = SessionEnd::kDetached;
    bool start_no_ack = false;
  };
  Outcome handle(const std::string& payload, const std::function<bool()>& interrupted);
  [[nodiscard]] const SessionStats& stats() const { return stats_; }
  void count_malformed() { ++stats_.malformed_packets; }

 private:
  std::string stop_reply(const StopEvent& stop);
  std::string handle_query(const std::string& payload);
  std::string handle_vcont(const std::string& payload, const std::function<bool()>& interrupted);
  std::string handle_memory_read(const std::string& payload);
  std::string handle_memory_write(const std::string& payload);
  std::string handle_breakpoint(const std::string& payload, bool insert);
  std::string handle_thread_select(const std::string& payload);
  ThreadId step_thread() const;

  Target& target_;
  ThreadId general_thread_ = 1;  // Hg: registers and memory
  ThreadId control_thread_ = 0;  // Hc: 0 = the general thread
  SessionStats stats_;
};

struct SessionOptions {
  // A stopped target waits this long for the debugger's next byte, then the
  // session ends (kIdleTimeout) so that the server is free for others; a
  // client that sent half a packet and went quiet is dropped the same way.
  // Negative: wait forever. Not applied while the target runs (continue).
  std::chrono::milliseconds idle_timeout{-1};
};

// Serves one connection until it ends. Malformed packets get '-' or an
// E reply; they never end the session.
SessionEnd serve_connection(Connection& connection, Target& target, SessionStats* stats = nullptr,
                            const SessionOptions& options = {});

}  // namespace snr::rsp
