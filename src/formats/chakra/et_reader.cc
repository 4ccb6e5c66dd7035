#include "formats/chakra/et_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "common/error.h"
#include "formats/chakra/byte_source.h"

namespace snr::chakra {
namespace {
constexpr size_t kMaxVarintBytes = 10;

// protobuf parses at most INT_MAX bytes per message.
EtReadOptions clamp(EtReadOptions options) {
  options.max_message_bytes = std::min<uint64_t>(options.max_message_bytes, INT32_MAX);
  return options;
}
}  // namespace

struct EtReader::Impl {
  std::string name;
  EtReadOptions options;
  std::unique_ptr<ByteSource> source;
  bool gzip = false;
  bool source_exhausted = false;
  bool ended = false;  // a broken tail ended the trace (lenient mode)

  // buffer[begin, end) holds bytes not yet consumed; buffer_offset is the
  // stream offset of buffer[begin]. Allocated uninitialized: bytes past `end`
  // are never read, and zero-filling the default 1 MiB on every open cost
  // more than simulating a small trace (one reader per rank file).
  std::unique_ptr<uint8_t[]> buffer;
  size_t buffer_bytes = 0;
  size_t begin = 0;
  size_t end = 0;
  uint64_t message_index = 0;

  ChakraProtoMsg::GlobalMetadata metadata;
  EtReadStats stats;

  [[nodiscard]] size_t available() const { return end - begin; }

  // Resizes the buffer to `bytes` (callers pass more than `end`), keeping
  // buffer[0, end).
  void grow(size_t bytes) {
    bytes = std::max(bytes, end + 1);
    auto bigger = std::make_unique_for_overwrite<uint8_t[]>(bytes);
    std::copy_n(buffer.get(), end, bigger.get());
    buffer = std::move(bigger);
    buffer_bytes = bytes;
  }

  // Makes at least `want` bytes available if the stream has them; returns
  // whether it could.
  bool ensure(size_t want) {
    if (available() >= want) return true;
    if (source_exhausted) return false;
    if (begin > 0) {
      std::memmove(buffer.get(), buffer.get() + begin, available());
      end -= begin;
      begin = 0;
    }
    while (end < want) {
      // Grow geometrically as data arrives, so a bogus length prefix costs
      // at most twice the bytes the stream really has.
      if (end == buffer_bytes) grow(std::min(want, buffer_bytes * 2));
      size_t got = source->read_some(buffer.get() + end, buffer_bytes - end);
      if (got == 0) {
        source_exhausted = true;
        return false;
      }
      end += got;
    }
    return true;
  }

  std::string where(uint64_t offset) const {
    return fmt::format("{}: byte {}{}, message {}", name, offset, gzip ? " (uncompressed)" : "",
                       message_index);
  }

  // Reports a broken record: throws in strict mode; in lenient mode records
  // it and returns.
  void fail(uint64_t offset, const std::string& reason) {
    if (!options.lenient) throw Error(where(offset) + ": " + reason);
    ++stats.skipped_records;
    if (stats.skipped.size() < EtReadStats::kMaxListedSkips) {
      stats.skipped.push_back(EtSkippedRecord{offset, message_index, reason});
    }
  }

  enum class Frame { kMessage, kEnd, kBrokenTail };

  // Frames the next record: on kMessage, [payload, payload + length) holds it.
  Frame next_frame(const uint8_t*& payload, size_t& length, uint64_t& offset) {
    offset = stats.bytes_consumed;
    if (!ensure(1)) return Frame::kEnd;
    ensure(kMaxVarintBytes);
    uint64_t value = 0;
    size_t prefix_bytes = 0;
    bool complete = false;
    while (prefix_bytes < available() && prefix_bytes < kMaxVarintBytes) {
      uint8_t byte = buffer[begin + prefix_bytes];
      value |= static_cast<uint64_t>(byte & 0x7f) << (7 * prefix_bytes);
      ++prefix_bytes;
      if ((byte & 0x80) == 0) {
        complete = true;
        break;
      }
    }
    if (!complete) {
      if (prefix_bytes < kMaxVarintBytes) {
        fail(offset, fmt::format("truncated length prefix: the stream ends {} byte(s) into a varint",
                                 prefix_bytes));
      } else {
        fail(offset, "malformed length prefix: varint longer than 10 bytes");
      }
      return Frame::kBrokenTail;
    }
    if (value > options.max_message_bytes) {
      fail(offset, fmt::format("message too large: length prefix says {} bytes, limit is {}", value,
                               options.max_message_bytes));
      return Frame::kBrokenTail;
    }
    length = static_cast<size_t>(value);
    if (!ensure(prefix_bytes + length)) {
      fail(offset, fmt::format("truncated message: length prefix says {} bytes but only {} remain",
                               length, available() - prefix_bytes));
      return Frame::kBrokenTail;
    }
    payload = buffer.get() + begin + prefix_bytes;
    begin += prefix_bytes + length;
    stats.bytes_consumed += prefix_bytes + length;
    return Frame::kMessage;
  }

  void end_with_broken_tail() {
    stats.bytes_consumed += available();
    begin = end;
    ended = true;
  }

  void read_metadata() {
    const uint8_t* payload = nullptr;
    size_t length = 0;
    uint64_t offset = 0;
    Frame frame = next_frame(payload, length, offset);
    if (frame == Frame::kEnd) {
      throw Error(fmt::format("{}: empty file: expected a GlobalMetadata message first", name));
    }
    if (frame == Frame::kBrokenTail) {
      // Even a lenient reader has no trace without its metadata.
      throw Error(where(offset) + ": " + stats.skipped.back().reason);
    }
    // An empty GlobalMetadata legitimately encodes to zero bytes.
    if (length == 0) ++stats.zero_length_messages;
    if (!metadata.ParseFromArray(payload, static_cast<int>(length))) {
      throw Error(where(offset) + fmt::format(": parse failure: {} bytes are not a valid "
                                              "ChakraProtoMsg.GlobalMetadata", length));
    }
    ++message_index;
  }

  bool next(ChakraProtoMsg::Node& node) {
    while (!ended) {
      const uint8_t* payload = nullptr;
      size_t length = 0;
      uint64_t offset = 0;
      Frame frame = next_frame(payload, length, offset);
      if (frame == Frame::kEnd) return false;
      if (frame == Frame::kBrokenTail) {
        end_with_broken_tail();
        return false;
      }
      if (length == 0) {
        ++stats.zero_length_messages;
        ++message_index;
        continue;
      }
      if (!node.ParseFromArray(payload, static_cast<int>(length))) {
        fail(offset, fmt::format("parse failure: {} bytes are not a valid ChakraProtoMsg.Node", length));
        ++message_index;
        continue;
      }
      ++message_index;
      ++stats.nodes_read;
      return true;
    }
    return false;
  }
};

EtReader::EtReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EtReader::EtReader(EtReader&&) noexcept = default;
EtReader& EtReader::operator=(EtReader&&) noexcept = default;
EtReader::~EtReader() = default;

EtReader EtReader::open(const std::filesystem::path& path, EtReadOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->name = path.string();
  impl->options = clamp(options);
  impl->grow(std::max<size_t>(options.buffer_bytes, kMaxVarintBytes));
  impl->source = open_file_source(path, impl->gzip);
  impl->read_metadata();
  return EtReader(std::move(impl));
}

EtReader EtReader::from_memory(std::string_view bytes, std::string display_name, EtReadOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->name = display_name;
  impl->options = clamp(options);
  impl->grow(std::max<size_t>(std::min(options.buffer_bytes, bytes.size()), kMaxVarintBytes));
  impl->source = open_memory_source(bytes, std::move(display_name), impl->gzip);
  impl->read_metadata();
  return EtReader(std::move(impl));
}

const ChakraProtoMsg::GlobalMetadata& EtReader::metadata() const { return impl_->metadata; }
bool EtReader::next(ChakraProtoMsg::Node& node) { return impl_->next(node); }
const EtReadStats& EtReader::stats() const { return impl_->stats; }
bool EtReader::gzip_compressed() const { return impl_->gzip; }
const std::string& EtReader::display_name() const { return impl_->name; }

EtTrace read_trace(const std::filesystem::path& path, EtReadOptions options) {
  auto reader = EtReader::open(path, options);
  EtTrace trace;
  trace.metadata = reader.metadata();
  ChakraProtoMsg::Node node;
  while (reader.next(node)) trace.nodes.push_back(node);
  trace.stats = reader.stats();
  return trace;
}

bool is_gzip_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char head[2] = {};
  in.read(head, 2);
  return in.gcount() == 2 && static_cast<uint8_t>(head[0]) == 0x1f && static_cast<uint8_t>(head[1]) == 0x8b;
}

}  // namespace snr::chakra
