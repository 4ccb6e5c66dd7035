#include "rsp/packet.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fmt/format.h>

namespace snr::rsp {
namespace {

constexpr std::array<int8_t, 256> make_hex_table() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int c = '0'; c <= '9'; ++c) table[static_cast<size_t>(c)] = static_cast<int8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) table[static_cast<size_t>(c)] = static_cast<int8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) table[static_cast<size_t>(c)] = static_cast<int8_t>(c - 'A' + 10);
  return table;
}
constexpr std::array<int8_t, 256> kHexTable = make_hex_table();

int hex_value(char c) { return kHexTable[static_cast<uint8_t>(c)]; }

constexpr char kHexDigits[] = "0123456789abcdef";


bool needs_escape(char c) { return c == '$' || c == '#' || c == '}' || c == '*'; }

}  // namespace

uint8_t byte_sum(std::string_view bytes) {
  // Eight bytes at a time: even and odd bytes add into 16-bit lanes, which
  // cannot overflow within 256 words (255 * 256 < 65536).
  const char* p = bytes.data();
  size_t n = bytes.size();
  uint64_t total = 0;
  constexpr uint64_t kLowBytes = 0x00FF00FF00FF00FFull;
  while (n >= 8) {
    const size_t words = std::min<size_t>(n / 8, 256);
    uint64_t even = 0, odd = 0;
    for (size_t i = 0; i < words; ++i) {
      uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      even += w & kLowBytes;
      odd += (w >> 8) & kLowBytes;
    }
    for (int lane = 0; lane < 4; ++lane) total += ((even >> (16 * lane)) & 0xFFFF) + ((odd >> (16 * lane)) & 0xFFFF);
    p += 8 * words;
    n -= 8 * words;
  }
  for (size_t i = 0; i < n; ++i) total += static_cast<uint8_t>(p[i]);
  return static_cast<uint8_t>(total);
}

std::string frame_packet(std::string_view payload) {
  // Random binary data needs about one escape per 64 bytes.
  std::string out;
  out.reserve(payload.size() + payload.size() / 32 + 8);
  out.push_back('$');
  size_t run = 0;
  for (size_t i = 0; i < payload.size(); ++i) {
    if (!needs_escape(payload[i])) continue;
    out.append(payload.data() + run, i - run);
    out.push_back('}');
    out.push_back(static_cast<char>(payload[i] ^ 0x20));
    run = i + 1;
  }
  out.append(payload.data() + run, payload.size() - run);
  const uint8_t sum = byte_sum(std::string_view(out).substr(1));
  out.push_back('#');
  out.push_back(kHexDigits[sum >> 4]);
  out.push_back(kHexDigits[sum & 15]);
  return out;
}

std::optional<std::string> decode_body(std::string_view raw, size_t max_bytes, std::string* why) {
  std::string out;
  out.reserve(std::min(raw.size(), max_bytes));
  size_t i = 0;
  while (i < raw.size()) {
    // Copy the plain run up to the next escape or run-length marker whole.
    size_t special = i;
    while (special < raw.size() && raw[special] != '}' && raw[special] != '*') ++special;
    if (out.size() + (special - i) > max_bytes) {
      if (why) *why = fmt::format("packet exceeds the {}-byte limit", max_bytes);
      return std::nullopt;
    }
    out.append(raw.data() + i, special - i);
    i = special;
    if (i >= raw.size()) break;
    if (raw[i] == '}') {
      if (i + 1 >= raw.size()) {
        if (why) *why = fmt::format("escape character at body offset {} has no following byte", i);
        return std::nullopt;
      }
      if (out.size() + 1 > max_bytes) {
        if (why) *why = fmt::format("packet exceeds the {}-byte limit", max_bytes);
        return std::nullopt;
      }
      out.push_back(static_cast<char>(raw[i + 1] ^ 0x20));
      i += 2;
      continue;
    }
    // Run-length: the previous byte repeats (count - 29) more times.
    if (out.empty() || i + 1 >= raw.size()) {
      if (why) *why = fmt::format("run-length marker at body offset {} without a byte to repeat or a count", i);
      return std::nullopt;
    }
    const int count = static_cast<uint8_t>(raw[i + 1]) - 29;
    if (count < 3 || count > 97) {
      if (why) *why = fmt::format("run-length count {} at body offset {} is outside 3..97", count, i + 1);
      return std::nullopt;
    }
    if (out.size() + static_cast<size_t>(count) > max_bytes) {
      if (why) *why = fmt::format("run-length expansion exceeds the {}-byte packet limit", max_bytes);
      return std::nullopt;
    }
    out.append(static_cast<size_t>(count), out.back());
    i += 2;
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
  for (size_t at = 0; at < bytes.size(); ++at) {
    const uint8_t byte = bytes[at];
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
      case State::kBody: {
        if (c == '#') {
          state_ = State::kChecksum1;
          break;
        }
        if (c == '$') {
          // A new start inside a packet: the peer gave up on the old one.
          sum_ = 0;
          raw_.clear();
          overflow_ = false;
          break;
        }
        // Take the whole run of body bytes up to the next '#' or '$' at once:
        // memory replies are megabytes long.
        const uint8_t* begin = bytes.data() + at;
        const size_t left = bytes.size() - at;
        const void* hash = std::memchr(begin, '#', left);
        size_t run = hash != nullptr ? static_cast<size_t>(static_cast<const uint8_t*>(hash) - begin) : left;
        if (const void* dollar = std::memchr(begin, '$', run)) {
          run = static_cast<size_t>(static_cast<const uint8_t*>(dollar) - begin);
        }
        const std::string_view piece(reinterpret_cast<const char*>(begin), run);
        sum_ = static_cast<uint8_t>(sum_ + byte_sum(piece));
        // Escaped bodies are at most twice the decoded size.
        const size_t room = 2 * max_payload_bytes_ + 2 - std::min(raw_.size(), 2 * max_payload_bytes_ + 2);
        raw_.append(piece.substr(0, room));
        if (run > room) overflow_ = true;
        at += run - 1;
        break;
      }
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
