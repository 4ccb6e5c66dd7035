#include "rsp/server.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <fmt/format.h>

#include "common/error.h"

namespace snr::rsp {
namespace {

constexpr std::string_view kErrorMalformed = "E01";
constexpr std::string_view kErrorThread = "E02";
constexpr std::string_view kErrorTarget = "E03";
// Largest memory read answered in one packet (hex doubles it).
constexpr uint64_t kMaxMemoryReadBytes = (kMaxPayloadBytes / 2) - 16;

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// Thread ids: hex, or "-1" (all), "0" (any).
std::optional<int64_t> parse_thread(std::string_view text) {
  if (text == "-1") return -1;
  std::optional<uint64_t> value = parse_hex_u64(text);
  if (!value || *value > 0xFFFFFFFFu) return std::nullopt;
  return static_cast<int64_t>(*value);
}

// "ADDR,LEN" in hex.
bool parse_address_length(std::string_view text, uint64_t& address, uint64_t& length) {
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos) return false;
  std::optional<uint64_t> a = parse_hex_u64(text.substr(0, comma));
  std::optional<uint64_t> l = parse_hex_u64(text.substr(comma + 1));
  if (!a || !l) return false;
  address = *a;
  length = *l;
  return true;
}

}  // namespace

std::string_view session_end_name(SessionEnd end) {
  switch (end) {
    case SessionEnd::kDetached: return "detached";
    case SessionEnd::kKilled: return "killed";
    case SessionEnd::kDisconnected: return "disconnected";
    case SessionEnd::kIdleTimeout: return "idle for too long (disconnected)";
  }
  return "?";
}

std::string PacketHandler::stop_reply(const StopEvent& stop) {
  if (stop.kind == StopEvent::Kind::kExited) return fmt::format("W{:02x}", stop.exit_code & 0xff);
  std::string reply = fmt::format("T{:02x}", stop.signal);
  for (uint32_t regnum : stop.expedited_registers) {
    Result<std::string> value = target_.read_register(stop.thread, regnum);
    if (value) reply += fmt::format("{:02x}:{};", regnum, hex_encode(value.value()));
  }
  reply += fmt::format("thread:{:x};", stop.thread);
  for (const auto& [key, value] : stop.extra) reply += fmt::format("{}:{};", key, value);
  general_thread_ = stop.thread;
  return reply;
}

ThreadId PacketHandler::step_thread() const { return control_thread_ != 0 ? control_thread_ : general_thread_; }

std::string PacketHandler::handle_thread_select(const std::string& payload) {
  std::optional<int64_t> thread = parse_thread(std::string_view(payload).substr(2));
  if (!thread) return std::string(kErrorMalformed);
  ThreadId chosen = 0;
  if (*thread > 0) {
    if (!target_.thread_alive(static_cast<ThreadId>(*thread))) return std::string(kErrorThread);
    chosen = static_cast<ThreadId>(*thread);
  }
  if (payload[1] == 'g') {
    if (chosen != 0) general_thread_ = chosen;
  } else {
    control_thread_ = chosen;
  }
  return "OK";
}

std::string PacketHandler::handle_memory_read(const std::string& payload) {
  uint64_t address = 0, length = 0;
  if (!parse_address_length(std::string_view(payload).substr(1), address, length)) return std::string(kErrorMalformed);
  const bool binary = payload[0] == 'x';
  // A shorter reply than asked is allowed; the client asks for the rest.
  length = std::min(length, binary ? uint64_t{kMaxBinaryReadBytes} : kMaxMemoryReadBytes);
  Result<std::string> bytes = target_.read_memory(general_thread_, address, length);
  if (!bytes) return std::string(kErrorTarget);
  if (!binary) return hex_encode(bytes.value());
  // 'b' then the raw bytes; framing escapes what needs it. The prefix goes
  // in place: a second multi-megabyte buffer would be faulted in afresh.
  std::string reply = std::move(bytes.value());
  reply.insert(reply.begin(), 'b');
  return reply;
}

std::string PacketHandler::handle_memory_write(const std::string& payload) {
  const size_t colon = payload.find(':');
  uint64_t address = 0, length = 0;
  if (colon == std::string::npos ||
      !parse_address_length(std::string_view(payload).substr(1, colon - 1), address, length)) {
    return std::string(kErrorMalformed);
  }
  std::optional<std::vector<uint8_t>> data = hex_decode(std::string_view(payload).substr(colon + 1));
  if (!data || data->size() != length) return std::string(kErrorMalformed);
  Status status = target_.write_memory(general_thread_, address, std::string(data->begin(), data->end()));
  return status ? "OK" : std::string(kErrorTarget);
}

std::string PacketHandler::handle_breakpoint(const std::string& payload, bool insert) {
  // Z0,addr,kind — only software breakpoints; other types are unsupported.
  if (payload.size() < 2 || payload[1] != '0') return "";
  std::string_view rest = std::string_view(payload).substr(2);
  if (rest.empty() || rest[0] != ',') return std::string(kErrorMalformed);
  rest.remove_prefix(1);
  const size_t comma = rest.find(',');
  std::optional<uint64_t> address = parse_hex_u64(rest.substr(0, comma));
  if (!address) return std::string(kErrorMalformed);
  Status status = insert ? target_.insert_breakpoint(*address) : target_.remove_breakpoint(*address);
  return status ? "OK" : std::string(kErrorTarget);
}

std::string PacketHandler::handle_query(const std::string& payload) {
  if (starts_with(payload, "qSupported")) {
    return fmt::format("PacketSize={:x};QStartNoAckMode+;qXfer:features:read+;vContSupported+;binary-upload+",
                       kMaxPayloadBytes);
  }
  if (payload == "qfThreadInfo") {
    std::string reply = "m";
    for (ThreadId t : target_.threads()) reply += fmt::format("{}{:x}", reply.size() > 1 ? "," : "", t);
    return reply;
  }
  if (payload == "qsThreadInfo") return "l";
  if (payload == "qC") return fmt::format("QC{:x}", general_thread_);
  if (starts_with(payload, "qAttached")) return "1";
  if (starts_with(payload, "qSymbol")) return "OK";
  if (starts_with(payload, "qSnr.")) return target_.custom_query(payload).value_or("");
  if (starts_with(payload, "qXfer:features:read:")) {
    std::string_view rest = std::string_view(payload).substr(std::string_view("qXfer:features:read:").size());
    const size_t colon = rest.find(':');
    uint64_t offset = 0, length = 0;
    if (colon == std::string_view::npos || !parse_address_length(rest.substr(colon + 1), offset, length)) {
      return std::string(kErrorMalformed);
    }
    std::optional<std::string> document = target_.feature_document(std::string(rest.substr(0, colon)));
    if (!document) return "E00";
    if (offset >= document->size()) return "l";
    length = std::min<uint64_t>({length, document->size() - offset, kMaxPayloadBytes / 2});
    const bool last = offset + length >= document->size();
    return (last ? "l" : "m") + document->substr(offset, length);
  }
  return "";
}

std::string PacketHandler::handle_vcont(const std::string& payload, const std::function<bool()>& interrupted) {
  if (payload == "vCont?") return "vCont;c;C;s;S";
  // vCont;ACTION[:TID](;ACTION[:TID])* — the first action naming a thread to
  // step wins; any continue action runs everything. Stepping one thread
  // while "continuing" the rest is served as a step of that thread alone
  // (the others are simply not scheduled before the step completes).
  std::string_view rest = std::string_view(payload).substr(5);
  std::optional<ThreadId> step;
  bool any_continue = false;
  while (!rest.empty()) {
    if (rest[0] != ';') return std::string(kErrorMalformed);
    rest.remove_prefix(1);
    const size_t end = std::min(rest.find(';'), rest.size());
    std::string_view action = rest.substr(0, end);
    rest.remove_prefix(end);
    if (action.empty()) return std::string(kErrorMalformed);
    const char verb = action[0];
    size_t colon = action.find(':');
    std::optional<int64_t> thread;
    if (colon != std::string_view::npos) {
      thread = parse_thread(action.substr(colon + 1));
      if (!thread) return std::string(kErrorMalformed);
    }
    if (verb == 's' || verb == 'S') {
      if (step) continue;
      if (!thread || *thread <= 0) {
        step = step_thread();
      } else {
        if (!target_.thread_alive(static_cast<ThreadId>(*thread))) return std::string(kErrorThread);
        step = static_cast<ThreadId>(*thread);
      }
    } else if (verb == 'c' || verb == 'C') {
      any_continue = true;
    } else {
      return std::string(kErrorMalformed);
    }
  }
  if (step) {
    ++stats_.steps;
    return stop_reply(target_.step(*step));
  }
  if (any_continue) return stop_reply(target_.resume(interrupted));
  return std::string(kErrorMalformed);
}

PacketHandler::Outcome PacketHandler::handle(const std::string& payload, const std::function<bool()>& interrupted) {
  ++stats_.packets;
  Outcome out;
  if (payload.empty()) return out;
  try {
    switch (payload[0]) {
      case '?': out.reply = stop_reply(target_.current_stop()); break;
      case 'g': out.reply = hex_encode(target_.read_general_registers(general_thread_)); break;
      case 'G': {
        std::optional<std::vector<uint8_t>> data = hex_decode(std::string_view(payload).substr(1));
        if (!data) {
          out.reply = kErrorMalformed;
        } else {
          out.reply = target_.write_general_registers(general_thread_, std::string(data->begin(), data->end()))
                          ? "OK" : std::string(kErrorTarget);
        }
        break;
      }
      case 'p': {
        std::optional<uint64_t> regnum = parse_hex_u64(std::string_view(payload).substr(1));
        if (!regnum || *regnum > 0xFFFF) {
          out.reply = kErrorMalformed;
          break;
        }
        Result<std::string> value = target_.read_register(general_thread_, static_cast<uint32_t>(*regnum));
        out.reply = value ? hex_encode(value.value()) : std::string(kErrorTarget);
        break;
      }
      case 'P': {
        const size_t equals = payload.find('=');
        std::optional<uint64_t> regnum =
            equals == std::string::npos ? std::nullopt : parse_hex_u64(std::string_view(payload).substr(1, equals - 1));
        std::optional<std::vector<uint8_t>> data =
            equals == std::string::npos ? std::nullopt : hex_decode(std::string_view(payload).substr(equals + 1));
        if (!regnum || !data || *regnum > 0xFFFF) {
          out.reply = kErrorMalformed;
          break;
        }
        out.reply = target_.write_register(general_thread_, static_cast<uint32_t>(*regnum),
                                           std::string(data->begin(), data->end()))
                        ? "OK" : std::string(kErrorTarget);
        break;
      }
      case 'm':
      case 'x': out.reply = handle_memory_read(payload); break;
      case 'M': out.reply = handle_memory_write(payload); break;
      case 'Z': out.reply = handle_breakpoint(payload, true); break;
      case 'z': out.reply = handle_breakpoint(payload, false); break;
      case 'H':
        out.reply = payload.size() >= 2 && (payload[1] == 'g' || payload[1] == 'c') ? handle_thread_select(payload) : "";
        break;
      case 'T': {
        std::optional<int64_t> thread = parse_thread(std::string_view(payload).substr(1));
        out.reply = thread && *thread > 0 && target_.thread_alive(static_cast<ThreadId>(*thread))
                        ? "OK" : std::string(kErrorThread);
        break;
      }
      case 's':
        if (payload.size() > 1) {  // resuming at another address is not supported
          out.reply = kErrorMalformed;
          break;
        }
        ++stats_.steps;
        out.reply = stop_reply(target_.step(step_thread()));
        break;
      case 'c':
        out.reply = payload.size() > 1 ? std::string(kErrorMalformed) : stop_reply(target_.resume(interrupted));
        break;
      case 'D':
        out.reply = "OK";
        out.end_session = true;
        out.end = SessionEnd::kDetached;
        break;
      case 'k':
        target_.kill();
        out.send_reply = false;
        out.end_session = true;
        out.end = SessionEnd::kKilled;
        break;
      case 'q': out.reply = handle_query(payload); break;
      case 'Q':
        if (payload == "QStartNoAckMode") {
          out.reply = "OK";
          out.start_no_ack = true;
        }
        break;
      case 'v':
        if (starts_with(payload, "vCont")) {
          out.reply = handle_vcont(payload, interrupted);
        } else if (starts_with(payload, "vKill")) {
          target_.kill();
          out.reply = "OK";
          out.end_session = true;
          out.end = SessionEnd::kKilled;
        }
        break;
      default: break;
    }
  } catch (const Error&) {
    // A target fault (e.g. an illegal instruction while stepping) is the
    // debugger's business, not the end of the session.
    out.reply = kErrorTarget;
  }
  return out;
}

SessionEnd serve_connection(Connection& connection, Target& target, SessionStats* stats,
                            const SessionOptions& options) {
  PacketHandler handler(target);
  PacketDecoder decoder;
  std::deque<Incoming> pending;
  std::vector<Incoming> batch;
  bool ack_mode = true;
  std::string last_sent;
  bool interrupt_seen = false;

  auto absorb = [&](std::string_view bytes) {
    batch.clear();
    decoder.feed(bytes, batch);
    for (Incoming& item : batch) {
      if (item.kind == Incoming::Kind::kInterrupt) {
        interrupt_seen = true;
      } else if (item.kind != Incoming::Kind::kAck) {
        pending.push_back(std::move(item));
      }
    }
  };
  // Polled by a running target: has the debugger sent 0x03?
  auto interrupted = [&]() -> bool {
    if (!interrupt_seen) absorb(connection.receive_view(std::chrono::milliseconds(0)));
    const bool seen = interrupt_seen;
    interrupt_seen = false;
    return seen;
  };

  // Replies to requests that arrived together leave together: a client
  // that pipelines N requests gets the N replies in one write.
  std::string outgoing;
  auto flush = [&] {
    if (!outgoing.empty()) connection.send_all(outgoing);
    outgoing.clear();
  };
  auto send_packet = [&](std::string framed) {
    if (ack_mode) last_sent = framed;  // for a '-'; no-ack mode never resends
    if (outgoing.empty() && outgoing.capacity() < framed.size()) {
      outgoing = std::move(framed);  // a large memory reply is not copied again
    } else {
      outgoing += framed;
    }
  };

  SessionEnd end = SessionEnd::kDisconnected;
  try {
    for (;;) {
      constexpr size_t kFlushBytes = 1 << 20;
      if (pending.empty() || outgoing.size() >= kFlushBytes) flush();
      bool idle = false;
      while (pending.empty()) {
        const std::string_view bytes = connection.receive_view(options.idle_timeout);
        if (bytes.empty() && options.idle_timeout.count() >= 0) {
          idle = true;
          break;
        }
        absorb(bytes);
        if (interrupt_seen) {
          // Interrupt while already stopped: report the current stop.
          interrupt_seen = false;
          send_packet(frame_packet(handler.handle("?", interrupted).reply));
          flush();
        }
      }
      if (idle) {
        end = SessionEnd::kIdleTimeout;
        break;
      }
      Incoming item = std::move(pending.front());
      pending.pop_front();
      switch (item.kind) {
        case Incoming::Kind::kNack:
          if (ack_mode && !last_sent.empty()) outgoing += last_sent;
          continue;
        case Incoming::Kind::kBadChecksum:
          handler.count_malformed();
          if (ack_mode) outgoing += '-';
          continue;
        case Incoming::Kind::kMalformed:
          handler.count_malformed();
          if (ack_mode) outgoing += '+';
          send_packet(frame_packet(kErrorMalformed));
          continue;
        default: break;
      }
      if (ack_mode) {
        // The debugger waits for the ack before it waits for the reply,
        // which may take long (continue).
        outgoing += '+';
        flush();
      }
      PacketHandler::Outcome outcome = handler.handle(item.payload, interrupted);
      if (outcome.send_reply) send_packet(frame_packet(outcome.reply));
      if (outcome.start_no_ack) {
        ack_mode = false;
        last_sent.clear();
      }
      if (outcome.end_session) {
        flush();
        end = outcome.end;
        break;
      }
    }
  } catch (const Error&) {
    end = SessionEnd::kDisconnected;
  }
  if (stats != nullptr) *stats = handler.stats();
  return end;
}

}  // namespace snr::rsp
