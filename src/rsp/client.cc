#include "rsp/client.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>

#include "common/error.h"

namespace snr::rsp {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::string quote(std::string_view text) {
  constexpr size_t kLimit = 80;
  std::string shown(text.substr(0, kLimit));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '.';
  }
  return "'" + shown + (text.size() > kLimit ? "...'" : "'");
}

// Attributes of one XML start tag, e.g. `reg name="pc" bitsize="64"`.
std::map<std::string, std::string> parse_attributes(std::string_view tag, std::string_view document,
                                                    size_t tag_offset) {
  std::map<std::string, std::string> attributes;
  size_t i = tag.find_first_of(" \t\r\n");
  while (i != std::string_view::npos && i < tag.size()) {
    while (i < tag.size() && (tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\r' || tag[i] == '\n' || tag[i] == '/')) ++i;
    if (i >= tag.size()) break;
    const size_t equals = tag.find('=', i);
    if (equals == std::string_view::npos || equals + 1 >= tag.size() ||
        (tag[equals + 1] != '"' && tag[equals + 1] != '\'')) {
      throw Error(fmt::format("{}: byte {}: malformed attribute in <{}>", document, tag_offset + i, tag.substr(0, 20)));
    }
    const char quote_char = tag[equals + 1];
    const size_t close = tag.find(quote_char, equals + 2);
    if (close == std::string_view::npos) {
      throw Error(fmt::format("{}: byte {}: unterminated attribute value", document, tag_offset + equals));
    }
    attributes[std::string(tag.substr(i, equals - i))] = std::string(tag.substr(equals + 2, close - equals - 2));
    i = close + 1;
  }
  return attributes;
}

uint32_t parse_decimal(const std::string& text, std::string_view what, std::string_view document, size_t offset) {
  uint64_t value = 0;
  if (text.empty() || text.size() > 9) throw Error(fmt::format("{}: byte {}: bad {} '{}'", document, offset, what, text));
  for (char c : text) {
    if (c < '0' || c > '9') throw Error(fmt::format("{}: byte {}: bad {} '{}'", document, offset, what, text));
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return static_cast<uint32_t>(value);
}

}  // namespace

std::optional<uint32_t> parse_thread_id(std::string_view text) {
  if (starts_with(text, "p")) {
    const size_t dot = text.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    text = text.substr(dot + 1);
  }
  std::optional<uint64_t> value = parse_hex_u64(text);
  if (!value || *value > 0xFFFFFFFFu) return std::nullopt;
  return static_cast<uint32_t>(*value);
}

StopReply parse_stop_reply(std::string_view reply) {
  StopReply stop;
  auto bad = [&](std::string_view why) { return Error(fmt::format("bad stop reply {}: {}", quote(reply), why)); };
  if (reply.size() < 3) throw bad("too short");
  std::optional<uint64_t> number = parse_hex_u64(reply.substr(1, 2));
  if (!number) throw bad("the signal or exit status is not two hex digits");
  switch (reply[0]) {
    case 'S': stop.signal = static_cast<uint8_t>(*number); return stop;
    case 'W': stop.kind = StopReply::Kind::kExited; stop.exit_code = static_cast<int>(*number); return stop;
    case 'X': stop.kind = StopReply::Kind::kTerminated; stop.signal = static_cast<uint8_t>(*number); return stop;
    case 'T': break;
    default: throw bad("expected S, T, W or X");
  }
  stop.signal = static_cast<uint8_t>(*number);
  std::string_view rest = reply.substr(3);
  while (!rest.empty()) {
    const size_t semicolon = rest.find(';');
    std::string_view pair = rest.substr(0, semicolon);
    rest = semicolon == std::string_view::npos ? std::string_view() : rest.substr(semicolon + 1);
    if (pair.empty()) continue;
    const size_t colon = pair.find(':');
    if (colon == std::string_view::npos) {
      stop.extra[std::string(pair)] = "";
      continue;
    }
    std::string_view key = pair.substr(0, colon), value = pair.substr(colon + 1);
    if (key == "thread") {
      stop.thread = parse_thread_id(value);
      if (!stop.thread) throw bad(fmt::format("bad thread id '{}'", value));
    } else if (std::optional<uint64_t> regnum = parse_hex_u64(key); regnum && *regnum <= 0xFFFF) {
      std::optional<std::vector<uint8_t>> bytes = hex_decode(value);
      if (!bytes) throw bad(fmt::format("register {} value is not hex", key));
      stop.registers.emplace_back(static_cast<uint32_t>(*regnum), std::move(*bytes));
    } else {
      stop.extra[std::string(key)] = std::string(value);
    }
  }
  return stop;
}

const RegisterInfo* TargetDescription::find(std::string_view name) const {
  for (const RegisterInfo& reg : registers) {
    if (reg.name == name) return &reg;
  }
  return nullptr;
}

DocumentParts parse_feature_document(std::string_view xml, std::string_view document_name) {
  DocumentParts parts;
  std::string feature;
  size_t i = 0;
  while ((i = xml.find('<', i)) != std::string_view::npos) {
    if (xml.substr(i, 4) == "<!--") {
      const size_t end = xml.find("-->", i);
      if (end == std::string_view::npos) throw Error(fmt::format("{}: byte {}: unterminated comment", document_name, i));
      i = end + 3;
      continue;
    }
    const size_t close = xml.find('>', i);
    if (close == std::string_view::npos) throw Error(fmt::format("{}: byte {}: unterminated tag", document_name, i));
    std::string_view tag = xml.substr(i + 1, close - i - 1);
    const size_t name_end = std::min(tag.find_first_of(" \t\r\n/"), tag.size());
    std::string_view name = tag.substr(0, name_end);
    if (name == "architecture") {
      const size_t end = xml.find('<', close);
      if (end == std::string_view::npos) throw Error(fmt::format("{}: byte {}: unterminated <architecture>", document_name, i));
      parts.architecture = std::string(xml.substr(close + 1, end - close - 1));
    } else if (name == "feature") {
      feature = parse_attributes(tag, document_name, i)["name"];
    } else if (name == "xi:include") {
      std::string href = parse_attributes(tag, document_name, i)["href"];
      if (href.empty()) throw Error(fmt::format("{}: byte {}: xi:include without href", document_name, i));
      parts.items.emplace_back(std::move(href));
    } else if (name == "reg") {
      auto attributes = parse_attributes(tag, document_name, i);
      RegisterInfo reg;
      reg.name = attributes["name"];
      if (reg.name.empty()) throw Error(fmt::format("{}: byte {}: <reg> without a name", document_name, i));
      reg.bitsize = parse_decimal(attributes["bitsize"], "bitsize", document_name, i);
      if (reg.bitsize == 0 || reg.bitsize % 8 != 0 || reg.bitsize > 65536) {
        throw Error(fmt::format("{}: byte {}: register {} has bitsize {} (need a positive multiple of 8)",
                                document_name, i, reg.name, reg.bitsize));
      }
      // regnum absent: the caller numbers it after the previous register.
      reg.regnum = attributes.count("regnum") ? parse_decimal(attributes["regnum"], "regnum", document_name, i)
                                              : UINT32_MAX;
      reg.group = attributes["group"];
      reg.feature = feature;
      parts.items.emplace_back(std::move(reg));
    }
    i = close + 1;
  }
  return parts;
}

Client::Client(Connection connection, std::chrono::milliseconds reply_timeout)
    : connection_(std::move(connection)), reply_timeout_(reply_timeout) {}

void Client::send_only(std::string_view payload) { connection_.send_all(frame_packet(payload)); }

void Client::set_wait_progress(WaitProgress progress, std::chrono::seconds interval) {
  wait_progress_ = std::move(progress);
  wait_interval_ = std::max(interval, std::chrono::seconds(1));
}

std::string Client::read_reply(std::string_view request_text, std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  auto next_report = start + wait_interval_;
  for (;;) {
    while (queue_position_ < queue_.size()) {
      Incoming item = std::move(queue_[queue_position_++]);
      switch (item.kind) {
        case Incoming::Kind::kPacket:
          if (!no_ack_) connection_.send_all("+");
          // Console output while running: not the reply.
          if (item.payload.size() > 1 && item.payload[0] == 'O' && item.payload != "OK") continue;
          return std::move(item.payload);
        case Incoming::Kind::kBadChecksum:
        case Incoming::Kind::kMalformed:
          if (!no_ack_) {
            connection_.send_all("-");
            continue;
          }
          throw Error(fmt::format("malformed reply to {}: {}", quote(request_text), item.payload));
        case Incoming::Kind::kNack:
          connection_.send_all(frame_packet(request_text));
          continue;
        default: continue;
      }
    }
    queue_.clear();
    queue_position_ = 0;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      throw Error(fmt::format("no reply to {} within {} ms", quote(request_text), timeout.count()));
    }
    std::string_view bytes;
    try {
      // Whole seconds, so the socket's timeout changes rarely (a system call).
      auto left = std::chrono::ceil<std::chrono::seconds>(deadline - now);
      if (wait_progress_) left = std::min(left, wait_interval_);
      bytes = connection_.receive_view(std::chrono::duration_cast<std::chrono::milliseconds>(left));
    } catch (const Error& e) {
      throw e.with_context(fmt::format("waiting for the reply to {}", quote(request_text)));
    }
    if (bytes.empty() && wait_progress_ && std::chrono::steady_clock::now() >= next_report) {
      wait_progress_(request_text,
                     std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start),
                     timeout);
      next_report += wait_interval_;
    }
    decoder_.feed(bytes, queue_);
  }
}

std::string Client::request(std::string_view payload) { return request(payload, reply_timeout_); }

std::string Client::request(std::string_view payload, std::chrono::milliseconds timeout) {
  if (!outstanding_.empty()) {
    throw Error(fmt::format("request {} sent while {} queued replies are unread", quote(payload), outstanding_.size()));
  }
  ++round_trips_;
  connection_.send_all(frame_packet(payload));
  return read_reply(payload, timeout);
}

void Client::queue_request(std::string_view payload) {
  // In ack mode a '-' would ask for "the last packet", which is ambiguous
  // with several in flight.
  if (!no_ack_) throw Error("pipelined requests need no-ack mode");
  send_buffer_ += frame_packet(payload);
  outstanding_.emplace_back(payload);
}

void Client::flush() {
  if (send_buffer_.empty()) return;
  ++round_trips_;
  connection_.send_all(send_buffer_);
  send_buffer_.clear();
}

std::string Client::receive_reply(std::chrono::milliseconds timeout) {
  if (outstanding_.empty()) throw Error("receive_reply with no queued request");
  flush();
  const std::string request_text = std::move(outstanding_.front());
  outstanding_.pop_front();
  return read_reply(request_text, timeout);
}

void Client::handshake() {
  supported_ = request("qSupported:swbreak+;vContSupported+;binary-upload+");
  std::string_view rest = supported_;
  bool offers_no_ack = false;
  while (!rest.empty()) {
    const size_t semicolon = std::min(rest.find(';'), rest.size());
    std::string_view feature = rest.substr(0, semicolon);
    rest.remove_prefix(std::min(semicolon + 1, rest.size()));
    if (feature == "QStartNoAckMode+") offers_no_ack = true;
    if (feature == "qXfer:features:read+") features_xfer_ = true;
    if (feature == "binary-upload+") binary_read_ = true;
    if (starts_with(feature, "PacketSize=")) {
      if (std::optional<uint64_t> size = parse_hex_u64(feature.substr(11))) packet_size_ = *size;
    }
  }
  if (offers_no_ack && request("QStartNoAckMode") == "OK") no_ack_ = true;
  const std::string vcont = request("vCont?");
  vcont_step_ = starts_with(vcont, "vCont") && vcont.find(";s") != std::string::npos;
}

std::string Client::read_document(const std::string& annex) {
  std::string document;
  const uint64_t chunk = std::max<uint64_t>(256, std::min<uint64_t>(packet_size_, kMaxPayloadBytes) / 2);
  for (int parts = 0; parts < 4096; ++parts) {
    const std::string reply =
        request(fmt::format("qXfer:features:read:{}:{:x},{:x}", annex, document.size(), chunk));
    if (reply.empty() || (reply[0] != 'm' && reply[0] != 'l')) {
      throw Error(fmt::format("reading target description '{}': unexpected reply {}", annex, quote(reply)));
    }
    document.append(reply, 1);
    if (reply[0] == 'l') return document;
    if (reply.size() == 1) break;
  }
  throw Error(fmt::format("reading target description '{}': the stub never finished the document", annex));
}

TargetDescription Client::read_target_description() {
  if (!features_xfer_) throw Error("the stub does not offer qXfer:features:read (no target description)");
  TargetDescription description;
  uint32_t next_regnum = 0;
  std::vector<std::string> stack{"target.xml"};
  // Depth-first splice of includes, bounded so a cyclic description ends.
  std::function<void(const std::string&, int)> visit = [&](const std::string& annex, int depth) {
    if (depth > 8) throw Error(fmt::format("target description includes nest deeper than 8 at '{}'", annex));
    DocumentParts parts = parse_feature_document(read_document(annex), annex);
    if (!parts.architecture.empty()) description.architecture = parts.architecture;
    for (auto& item : parts.items) {
      if (auto* reg = std::get_if<RegisterInfo>(&item)) {
        if (reg->regnum == UINT32_MAX) reg->regnum = next_regnum;
        next_regnum = reg->regnum + 1;
        description.registers.push_back(std::move(*reg));
      } else {
        visit(std::get<std::string>(item), depth + 1);
      }
    }
  };
  visit("target.xml", 0);
  std::sort(description.registers.begin(), description.registers.end(),
            [](const RegisterInfo& a, const RegisterInfo& b) { return a.regnum < b.regnum; });
  return description;
}

}  // namespace snr::rsp
