#include "rsp/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/format.h>

#include "common/error.h"

namespace snr::rsp {
namespace {

// 127.0.0.0/8.
bool is_loopback(in_addr address) { return (ntohl(address.s_addr) >> 24) == 127; }

std::string errno_text() { return std::strerror(errno); }

sockaddr_in make_address(const std::string& host, uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  const std::string numeric = host == "localhost" ? "127.0.0.1" : host;
  if (inet_pton(AF_INET, numeric.c_str(), &address.sin_addr) != 1) {
    throw Error(fmt::format("'{}' is not a numeric IPv4 address (or localhost)", host));
  }
  return address;
}

// Waits for `events` on fd; false on timeout.
bool wait_for(int fd, short events, std::chrono::milliseconds timeout) {
  pollfd p{fd, events, 0};
  const int timeout_ms = timeout.count() < 0 ? -1 : static_cast<int>(timeout.count());
  for (;;) {
    const int n = ::poll(&p, 1, timeout_ms);
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) throw Error(fmt::format("poll failed: {}", errno_text()));
  }
}

}  // namespace

Connection::Connection(int fd) : fd_(fd) {
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in peer{};
  socklen_t length = sizeof(peer);
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&peer), &length) == 0 && peer.sin_family == AF_INET &&
      is_loopback(peer.sin_addr)) {
    spin_ = kLoopbackSpin;
  }
}

Connection::~Connection() { close(); }

Connection::Connection(Connection&& other) noexcept
    : fd_(other.fd_), receive_timeout_ms_(other.receive_timeout_ms_), buffer_(std::move(other.buffer_)) {
  other.fd_ = -1;
}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    receive_timeout_ms_ = other.receive_timeout_ms_;
    spin_ = other.spin_;
    buffer_ = std::move(other.buffer_);
    other.fd_ = -1;
  }
  return *this;
}

void Connection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Connection::send_all(std::string_view bytes) {
  if (fd_ < 0) throw Error("send on a closed debugger connection");
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("debugger connection: send failed: {}", errno_text()));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

std::string Connection::receive(std::chrono::milliseconds timeout) { return std::string(receive_view(timeout)); }

std::string_view Connection::receive_view(std::chrono::milliseconds timeout) {
  if (fd_ < 0) throw Error("receive on a closed debugger connection");
  constexpr size_t kReceiveBytes = 1 << 20;
  if (buffer_.size() < kReceiveBytes) buffer_.resize(kReceiveBytes);
  // One system call per receive, not poll + recv: a zero timeout does not
  // block, a positive one is the socket's receive timeout (set only when it
  // changes), a negative one blocks.
  int flags = 0;
  if (timeout.count() == 0) {
    flags = MSG_DONTWAIT;
  } else {
    const int64_t timeout_ms = timeout.count() < 0 ? 0 : timeout.count();
    if (timeout_ms != receive_timeout_ms_) {
      timeval tv{};
      tv.tv_sec = static_cast<time_t>(timeout_ms / 1000);
      tv.tv_usec = static_cast<suseconds_t>((timeout_ms % 1000) * 1000);
      if (::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
        throw Error(fmt::format("debugger connection: setting the receive timeout failed: {}", errno_text()));
      }
      receive_timeout_ms_ = timeout_ms;
    }
  }
  if (flags == 0 && spin_.count() > 0) {
    const auto until = std::chrono::steady_clock::now() + spin_;
    do {
      if (const std::string_view got = receive_once(MSG_DONTWAIT); !got.empty()) return got;
    } while (std::chrono::steady_clock::now() < until);
  }
  return receive_once(flags);
}

std::string_view Connection::receive_once(int flags) {
  for (;;) {
    const ssize_t n = ::recv(fd_, buffer_.data(), buffer_.size(), flags);
    if (n > 0) return std::string_view(buffer_.data(), static_cast<size_t>(n));
    if (n == 0) throw Error("debugger connection closed by the peer");
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {};
    if (errno != EINTR) throw Error(fmt::format("debugger connection: receive failed: {}", errno_text()));
  }
}

std::string Connection::peer_name() const {
  sockaddr_in address{};
  socklen_t length = sizeof(address);
  if (fd_ < 0 || ::getpeername(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &address.sin_addr, text, sizeof(text));
  return fmt::format("{}:{}", text, ntohs(address.sin_port));
}

HostPort parse_host_port(std::string_view text) {
  HostPort result;
  std::string_view port_text = text;
  const size_t colon = text.rfind(':');
  if (colon != std::string_view::npos) {
    result.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (result.host.empty()) throw Error(fmt::format("'{}': empty host before ':'", text));
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || value == 0 || value > 65535) {
    throw Error(fmt::format("'{}': expected HOST:PORT with a port in 1..65535", text));
  }
  result.port = static_cast<uint16_t>(value);
  return result;
}

Connection connect_tcp(const HostPort& address, std::chrono::milliseconds timeout) {
  const sockaddr_in target = make_address(address.host, address.port);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(fmt::format("socket: {}", errno_text()));
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&target), sizeof(target));
  if (rc != 0 && errno == EINPROGRESS) {
    if (!wait_for(fd, POLLOUT, timeout)) {
      ::close(fd);
      throw Error(fmt::format("connecting to {}:{} timed out", address.host, address.port));
    }
    int error = 0;
    socklen_t length = sizeof(error);
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    rc = error == 0 ? 0 : -1;
    errno = error;
  }
  if (rc != 0) {
    const std::string why = errno_text();
    ::close(fd);
    throw Error(fmt::format("cannot connect to {}:{}: {}", address.host, address.port, why));
  }
  ::fcntl(fd, F_SETFL, flags);
  return Connection(fd);
}

void Connection::shutdown_send() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

bool is_loopback_address(std::string_view host) {
  if (host == "localhost") return true;
  in_addr address{};
  const std::string text(host);
  return ::inet_pton(AF_INET, text.c_str(), &address) == 1 && is_loopback(address);
}

Listener::Listener(const std::string& bind_address, uint16_t port) : bind_address_(bind_address) {
  const sockaddr_in address = make_address(bind_address, port);
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw Error(fmt::format("socket: {}", errno_text()));
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 || ::listen(fd_, kListenBacklog) != 0) {
    const std::string why = errno_text();
    ::close(fd_);
    fd_ = -1;
    throw Error(fmt::format("cannot listen on {}:{}: {}", bind_address, port, why));
  }
  sockaddr_in bound{};
  socklen_t length = sizeof(bound);
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = ntohs(bound.sin_port);
}

Listener::~Listener() {
  if (fd_ >= 0) ::close(fd_);
}

Connection Listener::accept(std::chrono::milliseconds timeout) {
  if (!wait_for(fd_, POLLIN, timeout)) return Connection();
  const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("accept on {}:{}: {}", bind_address_, port_, errno_text()));
  return Connection(fd);
}

}  // namespace snr::rsp
