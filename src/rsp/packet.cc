#include "rsp/packet.h"

#include <fmt/format.h>

namespace snr::rsp {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr char kHexDigits[] = "0123456789abcdef";

}  // namespace

std::string frame_packet(std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 8);
  out.push_back('$');
  uint8_t sum = 0;
  for (char c : payload) {
    if (c == '$' || c == '#' || c == '}' || c == '*') {
      out.push_back('}');
      sum = static_cast<uint8_t>(sum + '}');
      c = static_cast<char>(c ^ 0x20);
    }
    out.push_back(c);
    sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(c));
  }
  out.push_back('#');
  out.push_back(kHexDigits[sum >> 4]);
  out.push_back(kHexDigits[sum & 15]);
  return out;
}

std::optional<std::string> decode_body(std::string_view raw, size_t max_bytes, std::string* why) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '}') {
      if (i + 1 >= raw.size()) {
        if (why) *why = fmt::format("escape character at body offset {} has no following byte", i);
        return std::nullopt;
      }
      out.push_back(static_cast<char>(raw[++i] ^ 0x20));
    } else if (c == '*') {
      // Run-length: the previous byte repeats (count - 29) more times.
      if (out.empty() || i + 1 >= raw.size()) {
        if (why) *why = fmt::format("run-length marker at body offset {} without a byte to repeat or a count", i);
        return std::nullopt;
      }
      const int count = static_cast<uint8_t>(raw[++i]) - 29;
      if (count < 3 || count > 97) {
        if (why) *why = fmt::format("run-length count {} at body offset {} is outside 3..97", count, i);
        return std::nullopt;
      }
      if (out.size() + static_cast<size_t>(count) > max_bytes) {
        if (why) *why = fmt::format("run-length expansion exceeds the {}-byte packet limit", max_bytes);
        return std::nullopt;
      }
      out.append(static_cast<size_t>(count), out.back());
    } else {
      out.push_back(c);
    }
    if (out.size() > max_bytes) {
      if (why) *why = fmt::format("packet exceeds the {}-byte limit", max_bytes);
      return std::nullopt;
    }
  }
  return out;
}

void PacketDecoder::finish(std::vector<Incoming>& out) {
  state_ = State::kIdle;
  Incoming item;
  const int hi = hex_value(checksum_digits_[0]);
  const int lo = hex_value(checksum_digits_[1]);
  if (overflow_) {
    item.kind = Incoming::Kind::kMalformed;
    item.payload = fmt::format("packet exceeds the {}-byte limit", max_payload_bytes_);
  } else if (hi < 0 || lo < 0) {
    item.kind = Incoming::Kind::kMalformed;
    item.payload = "checksum is not two hex digits";
  } else if (static_cast<uint8_t>(hi * 16 + lo) != sum_) {
    item.kind = Incoming::Kind::kBadChecksum;
    item.payload = fmt::format("checksum {:02x} does not match the computed {:02x}", hi * 16 + lo, sum_);
  } else {
    std::string why;
    std::optional<std::string> body = decode_body(raw_, max_payload_bytes_, &why);
    if (body) {
      item.payload = std::move(*body);
    } else {
      item.kind = Incoming::Kind::kMalformed;
      item.payload = std::move(why);
    }
  }
  raw_.clear();
  overflow_ = false;
  out.push_back(std::move(item));
}

void PacketDecoder::feed(std::span<const uint8_t> bytes, std::vector<Incoming>& out) {
  for (uint8_t byte : bytes) {
    const char c = static_cast<char>(byte);
    switch (state_) {
      case State::kIdle:
        if (c == '$') {
          state_ = State::kBody;
          sum_ = 0;
          raw_.clear();
          overflow_ = false;
        } else if (c == '+') {
          out.push_back({Incoming::Kind::kAck, {}});
        } else if (c == '-') {
          out.push_back({Incoming::Kind::kNack, {}});
        } else if (byte == 0x03) {
          out.push_back({Incoming::Kind::kInterrupt, {}});
        } else {
          ++noise_bytes_;
        }
        break;
      case State::kBody:
        if (c == '#') {
          state_ = State::kChecksum1;
        } else if (c == '$') {
          // A new start inside a packet: the peer gave up on the old one.
          sum_ = 0;
          raw_.clear();
          overflow_ = false;
        } else {
          sum_ = static_cast<uint8_t>(sum_ + byte);
          // Escaped bodies are at most twice the decoded size.
          if (raw_.size() < 2 * max_payload_bytes_ + 2) {
            raw_.push_back(c);
          } else {
            overflow_ = true;
          }
        }
        break;
      case State::kChecksum1:
        checksum_digits_[0] = c;
        state_ = State::kChecksum2;
        break;
      case State::kChecksum2:
        checksum_digits_[1] = c;
        finish(out);
        break;
    }
  }
}

std::string hex_encode(std::span<const uint8_t> bytes) {
  std::string out(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kHexDigits[bytes[i] >> 4];
    out[2 * i + 1] = kHexDigits[bytes[i] & 15];
  }
  return out;
}

std::string hex_encode(std::string_view bytes) {
  return hex_encode(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

std::optional<std::vector<uint8_t>> hex_decode(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out(text.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_value(text[2 * i]);
    const int lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return out;
}

std::optional<uint64_t> parse_hex_u64(std::string_view text) {
  if (text.empty() || text.size() > 16) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    const int digit = hex_value(c);
    if (digit < 0) return std::nullopt;
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  return value;
}

std::string le_bytes(uint64_t value, size_t size_bytes) {
  std::string out(size_bytes, '\0');
  for (size_t i = 0; i < size_bytes && i < 8; ++i) out[i] = static_cast<char>(value >> (8 * i));
  return out;
}

uint64_t from_le_bytes(std::span<const uint8_t> bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes.size() && i < 8; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

}  // namespace snr::rsp
