// Client side of the GDB Remote Serial Protocol, as the recorder uses it:
// a handshake that turns on no-ack mode when offered, one request/one reply
// round trips, stop-reply parsing (expedited registers, thread, exit) and
// the target description with register numbers by name.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rsp/packet.h"
#include "rsp/socket.h"

namespace snr::rsp {

struct StopReply {
  enum class Kind : uint8_t { kSignal, kExited, kTerminated };
  Kind kind = Kind::kSignal;
  uint8_t signal = 0;
  int exit_code = 0;
  std::optional<uint32_t> thread;
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> registers;  // expedited, in reply order
  std::map<std::string, std::string> extra;                          // other key:value pairs
};

// Parses an 'S', 'T', 'W' or 'X' reply; throws snr::Error quoting the reply.
StopReply parse_stop_reply(std::string_view reply);

// A thread id as a stub writes it: "1f" or "p<pid>.<tid>" (tid taken).
std::optional<uint32_t> parse_thread_id(std::string_view text);

struct RegisterInfo {
  std::string name;
  uint32_t regnum = 0;
  uint32_t bitsize = 0;
  std::string group;
  std::string feature;
};

struct TargetDescription {
  std::string architecture;
  std::vector<RegisterInfo> registers;  // in regnum order

  [[nodiscard]] const RegisterInfo* find(std::string_view name) const;
};

// Reads the <reg> elements of one feature document, numbering registers
// from `next_regnum` (updated); returns the xi:include hrefs in order so the
// caller can fetch and splice them at the include point. Throws snr::Error
// naming the document and byte offset on malformed markup.
struct DocumentParts {
  std::vector<std::variant<RegisterInfo, std::string>> items;  // register or include href
  std::string architecture;
};
DocumentParts parse_feature_document(std::string_view xml, std::string_view document_name);

class Client {
 public:
  Client(Connection connection, std::chrono::milliseconds reply_timeout);

  // qSupported, then QStartNoAckMode when offered, then vCont?.
  void handshake();
  // Sends one packet and returns the reply payload ('O' console packets
  // skipped). Throws snr::Error on timeout or disconnect, quoting the request.
  std::string request(std::string_view payload);
  // Same, with its own timeout (continue may run long).
  std::string request(std::string_view payload, std::chrono::milliseconds timeout);
  // Sends without waiting for a reply ('k').
  void send_only(std::string_view payload);
  // Pipelining (no-ack mode only): queue a request whose reply is read
  // later with receive_reply(), in order. Queued requests leave in one
  // write when the first reply is awaited, so N requests cost one round
  // trip instead of N.
  void queue_request(std::string_view payload);
  std::string receive_reply(std::chrono::milliseconds timeout);
  [[nodiscard]] size_t outstanding() const { return outstanding_.size(); }

  // Called every few seconds while a reply is awaited (a continue that
  // runs long, a stub that hangs): the request, the seconds waited so far
  // and the timeout, so that a long wait shows as progress, not a hang.
  using WaitProgress = std::function<void(std::string_view request, std::chrono::seconds waited,
                                          std::chrono::milliseconds timeout)>;
  void set_wait_progress(WaitProgress progress, std::chrono::seconds interval = std::chrono::seconds(5));

  // Fetches target.xml and its includes.
  TargetDescription read_target_description();

  [[nodiscard]] bool no_ack() const { return no_ack_; }
  [[nodiscard]] bool supports_vcont_step() const { return vcont_step_; }
  [[nodiscard]] bool supports_features_xfer() const { return features_xfer_; }
  // The stub answers `x ADDR,LEN` with binary data (qSupported binary-upload+).
  [[nodiscard]] bool supports_binary_read() const { return binary_read_; }
  [[nodiscard]] uint64_t packet_size() const { return packet_size_; }
  [[nodiscard]] uint64_t round_trips() const { return round_trips_; }
  [[nodiscard]] std::chrono::milliseconds reply_timeout() const { return reply_timeout_; }
  [[nodiscard]] const std::string& supported_reply() const { return supported_; }

 private:
  std::string read_reply(std::string_view request_text, std::chrono::milliseconds timeout);
  void flush();
  std::string read_document(const std::string& annex);

  Connection connection_;
  std::chrono::milliseconds reply_timeout_;
  PacketDecoder decoder_;
  std::vector<Incoming> queue_;
  size_t queue_position_ = 0;
  bool no_ack_ = false;
  bool vcont_step_ = false;
  bool features_xfer_ = false;
  bool binary_read_ = false;
  uint64_t packet_size_ = 4096;
  uint64_t round_trips_ = 0;
  std::string supported_;
  std::string send_buffer_;               // framed requests not yet written
  std::deque<std::string> outstanding_;   // queued requests awaiting replies, oldest first
  WaitProgress wait_progress_;
  std::chrono::seconds wait_interval_{5};
};

}  // namespace snr::rsp
