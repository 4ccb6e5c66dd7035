// Writer of Chakra execution traces (.et): the GlobalMetadata message, then
// one Node per write(), each preceded by its varint length (the layout of
// et_reader.h). Output goes to a temporary file renamed into place by
// commit(), so a failed run never leaves a partial trace; with `gzip` the
// stream is deflated (zlib, deterministic header: no name, no timestamp).
//
//   snr::chakra::EtWriter writer("out.0.et", metadata);
//   for (const auto& node : nodes) writer.write(node);
//   writer.commit();
//
// A message that serializes to zero bytes (a GlobalMetadata or Node with every
// field at its default) is refused with an error: readers treat zero-length
// records as padding, so writing one would silently drop data.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "formats/chakra/et_def.pb.h"

namespace snr::chakra {

struct EtWriteOptions {
  bool gzip = false;
  int gzip_level = 6;  // zlib level 1..9
};

class EtWriter {
 public:
  EtWriter(const std::filesystem::path& path, const ChakraProtoMsg::GlobalMetadata& metadata,
           EtWriteOptions options = {});
  EtWriter(const EtWriter&) = delete;
  EtWriter& operator=(const EtWriter&) = delete;
  ~EtWriter();

  void write(const ChakraProtoMsg::Node& node);
  // Flushes, finishes the gzip stream if any, and renames into place.
  void commit();

  [[nodiscard]] uint64_t nodes_written() const;
  // Bytes of the uncompressed .et stream written so far.
  [[nodiscard]] uint64_t bytes_written() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Appends `message` to `out` with its varint length prefix; throws for a
// zero-length message (see above). `what` names the message in errors.
void append_length_prefixed(std::string& out, const google::protobuf::MessageLite& message,
                            const std::string& what);

// Encodes a whole trace in memory (tests, fuzz seeds, small tools).
std::string encode_trace(const ChakraProtoMsg::GlobalMetadata& metadata,
                         const std::vector<ChakraProtoMsg::Node>& nodes);

}  // namespace snr::chakra
