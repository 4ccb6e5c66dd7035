// Streaming reader of Chakra execution traces (.et).
//
// A .et file is a sequence of protobuf messages, each preceded by its length
// as a varint: one ChakraProtoMsg::GlobalMetadata, then ChakraProtoMsg::Node
// messages until the end of the file. gzip-compressed files (magic 1f 8b) are
// inflated transparently. The reader holds one buffer (`buffer_bytes`, grown
// to the largest message seen, never past `max_message_bytes`), so memory is
// bounded by the largest message, not the file size.
//
//   auto reader = snr::chakra::EtReader::open("trace.0.et");
//   const auto& meta = reader.metadata();
//   ChakraProtoMsg::Node node;
//   while (reader.next(node)) { ... }
//
// Errors are thrown as snr::Error naming the file, the byte offset of the
// failing length prefix (in the uncompressed stream), the message index
// (0 = GlobalMetadata, 1.. = nodes) and what was wrong. With `lenient`, a
// message that does not parse is skipped and counted, and a broken tail
// (truncated or oversized record) ends the trace and is counted; stats()
// lists the first skipped records. Zero-length messages are valid protobuf
// but carry no node: they are counted and skipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "formats/chakra/et_def.pb.h"

namespace snr::chakra {

struct EtReadOptions {
  bool lenient = false;
  // Length prefixes above this are reported as "message too large".
  uint64_t max_message_bytes = 256ull << 20;
  // Initial read buffer; grows only for messages larger than this.
  size_t buffer_bytes = 1u << 20;
};

struct EtSkippedRecord {
  uint64_t byte_offset = 0;
  uint64_t message_index = 0;
  std::string reason;
};

struct EtReadStats {
  uint64_t nodes_read = 0;
  uint64_t zero_length_messages = 0;
  uint64_t skipped_records = 0;
  // Bytes of the uncompressed stream consumed so far.
  uint64_t bytes_consumed = 0;
  // The first kMaxListedSkips skipped records, in file order.
  static constexpr size_t kMaxListedSkips = 16;
  std::vector<EtSkippedRecord> skipped;
};

class EtReader {
 public:
  // Opens `path` and reads its GlobalMetadata; throws snr::Error.
  static EtReader open(const std::filesystem::path& path, EtReadOptions options = {});
  // Reads an in-memory trace (tests, fuzzers); `bytes` must outlive the reader.
  static EtReader from_memory(std::string_view bytes, std::string display_name,
                              EtReadOptions options = {});

  EtReader(EtReader&&) noexcept;
  EtReader& operator=(EtReader&&) noexcept;
  ~EtReader();

  [[nodiscard]] const ChakraProtoMsg::GlobalMetadata& metadata() const;
  // Reads the next node into `node` (reusing its allocations); false at end.
  bool next(ChakraProtoMsg::Node& node);
  [[nodiscard]] const EtReadStats& stats() const;
  [[nodiscard]] bool gzip_compressed() const;
  [[nodiscard]] const std::string& display_name() const;

  struct Impl;

 private:
  explicit EtReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Reads a whole trace into memory (small traces, tests, tools that need
// random access). Prefer EtReader for anything that may be large.
struct EtTrace {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
  EtReadStats stats;
};
EtTrace read_trace(const std::filesystem::path& path, EtReadOptions options = {});

// True when the file starts with the gzip magic bytes.
bool is_gzip_file(const std::filesystem::path& path);

}  // namespace snr::chakra
