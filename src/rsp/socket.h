// Minimal blocking TCP sockets for the debugger protocol: a listener that
// binds (loopback by default, port 0 = any free port) and a connection with
// TCP_NODELAY, whole-buffer sends and receives bounded by a timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace snr::rsp {

class Connection {
 public:
  Connection() = default;
  explicit Connection(int fd);
  ~Connection();
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  // Throws snr::Error when the peer is gone.
  void send_all(std::string_view bytes);
  // Waits up to `timeout` (negative = forever) for data; returns the bytes
  // read, empty on timeout. Throws snr::Error when the peer closed.
  std::string receive(std::chrono::milliseconds timeout);
  // Same, into the connection's own buffer: the view is valid until the
  // next receive. One call takes up to 1 MiB, so a megabyte memory reply
  // costs a few system calls, not dozens.
  std::string_view receive_view(std::chrono::milliseconds timeout);
  void close();
  // Sends FIN after what was sent: the peer reads everything, then the end.
  void shutdown_send();
  [[nodiscard]] std::string peer_name() const;
  // A blocking receive from a peer on this machine first polls without
  // blocking for this long: a stepping recorder and its stub exchange a
  // packet every few microseconds, faster than a sleeping thread wakes up
  // (docs/benchmarks.md, `snr demo`). Other peers block at once.
  static constexpr std::chrono::microseconds kLoopbackSpin{100};

 private:
  // One recv into buffer_ (EINTR retried): the bytes, or empty when none
  // came (non-blocking, or the receive timeout); throws when the peer closed.
  std::string_view receive_once(int flags);

  int fd_ = -1;
  std::chrono::microseconds spin_{0};  // kLoopbackSpin for a loopback peer
  int64_t receive_timeout_ms_ = 0;  // SO_RCVTIMEO now set; 0 = none (block)
  std::string buffer_;
};

// "host:port" or "port" (host defaults to 127.0.0.1); throws on bad text.
struct HostPort {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
};
HostPort parse_host_port(std::string_view text);

// 127.0.0.0/8 or "localhost": only this machine can connect.
bool is_loopback_address(std::string_view host);

// Connects to host:port (numeric IPv4 or "localhost"); throws naming the
// address and errno text on failure.
Connection connect_tcp(const HostPort& address, std::chrono::milliseconds timeout);

class Listener {
 public:
  // Connections the kernel queues while the server is busy: enough that a
  // burst of clients is answered (BusyRejecter) instead of timing out.
  static constexpr int kListenBacklog = 64;
  // Binds and listens; `port` 0 picks a free port (see port()).
  Listener(const std::string& bind_address, uint16_t port);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  [[nodiscard]] uint16_t port() const { return port_; }
  [[nodiscard]] const std::string& bind_address() const { return bind_address_; }
  // Waits up to `timeout` (negative = forever) for one connection; an
  // unopened Connection on timeout.
  Connection accept(std::chrono::milliseconds timeout);

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  std::string bind_address_;
};

}  // namespace snr::rsp
