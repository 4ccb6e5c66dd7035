// GDB Remote Serial Protocol framing: "$payload#cs" packets, '+'/'-'
// acknowledgements and the 0x03 interrupt byte, with '}' escaping and
// run-length encoding. Pure byte handling, no sockets, so it is fuzzed and
// unit-tested on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace snr::rsp {

// Largest decoded payload either side accepts (the stub's PacketSize).
// Bigger packets are consumed and reported as oversized rather than
// buffered without bound. Megabytes, so one binary memory read moves a
// whole weight tile.
constexpr size_t kMaxPayloadBytes = 4 * 1024 * 1024;
// Largest binary (`x`) memory read answered in one reply: the payload is
// 'b' plus the bytes.
constexpr size_t kMaxBinaryReadBytes = kMaxPayloadBytes - 16;

// "$<escaped payload>#<two hex digits>". Escapes '$', '#', '}' and '*' so any
// bytes (binary qXfer data, `x` memory replies) travel unchanged.
std::string frame_packet(std::string_view payload);
// The protocol checksum: the modulo-256 sum of the bytes.
uint8_t byte_sum(std::string_view bytes);

struct Incoming {
  enum class Kind : uint8_t {
    kPacket,       // payload holds the decoded (unescaped, expanded) bytes
    kAck,          // '+'
    kNack,         // '-': the peer wants the last packet again
    kInterrupt,    // 0x03 outside a packet
    kBadChecksum,  // payload holds what arrived; answer with '-'
    kMalformed,    // bad escape/run-length/checksum digits or oversized; payload says why
  };
  Kind kind = Kind::kPacket;
  std::string payload;
};

// Incremental decoder: feed() any slice of the byte stream, complete items
// come out in order. Bytes outside packets other than '+', '-' and 0x03 are
// line noise and are counted, never buffered.
class PacketDecoder {
 public:
  explicit PacketDecoder(size_t max_payload_bytes = kMaxPayloadBytes) : max_payload_bytes_(max_payload_bytes) {}

  void feed(std::span<const uint8_t> bytes, std::vector<Incoming>& out);
  void feed(std::string_view bytes, std::vector<Incoming>& out) {
    feed(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), out);
  }
  [[nodiscard]] uint64_t noise_bytes() const { return noise_bytes_; }
  [[nodiscard]] bool in_packet() const { return state_ != State::kIdle; }

 private:
  enum class State : uint8_t { kIdle, kBody, kChecksum1, kChecksum2 };
  void finish(std::vector<Incoming>& out);

  size_t max_payload_bytes_;
  State state_ = State::kIdle;
  std::string raw_;  // escaped body as received (bounded)
  bool overflow_ = false;
  uint8_t sum_ = 0;
  char checksum_digits_[2] = {0, 0};
  uint64_t noise_bytes_ = 0;
};

// Undoes '}' escaping and '*' run-length encoding of a packet body.
// Returns nullopt (with `why`) on a dangling escape, a bad repeat count or
// an expansion beyond `max_bytes`.
std::optional<std::string> decode_body(std::string_view raw, size_t max_bytes, std::string* why);

// Hex helpers of the protocol (lower-case on output, either case on input).
std::string hex_encode(std::span<const uint8_t> bytes);
std::string hex_encode(std::string_view bytes);
std::optional<std::vector<uint8_t>> hex_decode(std::string_view text);
// A hex number of 1..16 digits (no prefix); nullopt otherwise.
std::optional<uint64_t> parse_hex_u64(std::string_view text);
// Little-endian register bytes <-> integer.
std::string le_bytes(uint64_t value, size_t size_bytes);
uint64_t from_le_bytes(std::span<const uint8_t> bytes);

}  // namespace snr::rsp
