#include "formats/chakra/et_writer.h"

#include <zlib.h>

#include <cstring>

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>

#include "common/error.h"
#include "common/file_io.h"

namespace snr::chakra {
namespace {
constexpr size_t kFlushThresholdBytes = 1u << 20;
}  // namespace

namespace {
template <typename Describe>
void append_prefixed(std::string& out, const google::protobuf::MessageLite& message,
                            Describe&& describe) {
  size_t length = message.ByteSizeLong();
  if (length == 0 || length > static_cast<size_t>(INT32_MAX)) {
    std::string what = describe();
    if (length == 0) {
    throw Error(fmt::format("{} serializes to zero bytes (every field at its default); readers skip "
                            "zero-length records, so it would be lost", what));
  }
    throw Error(fmt::format("{} is {} bytes, over protobuf's 2 GiB message limit", what, length));
  }
  uint8_t prefix[10];
  uint8_t* prefix_end =
      google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(length, prefix);
  out.append(reinterpret_cast<const char*>(prefix), static_cast<size_t>(prefix_end - prefix));
  size_t start = out.size();
  out.resize(start + length);
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(out.data() + start));
}
}  // namespace

void append_length_prefixed(std::string& out, const google::protobuf::MessageLite& message,
                            const std::string& what) {
  append_prefixed(out, message, [&] { return what; });
}

std::string encode_trace(const ChakraProtoMsg::GlobalMetadata& metadata,
                         const std::vector<ChakraProtoMsg::Node>& nodes) {
  std::string out;
  append_length_prefixed(out, metadata, "GlobalMetadata");
  for (const auto& node : nodes) append_length_prefixed(out, node, fmt::format("node {}", node.id()));
  return out;
}

struct EtWriter::Impl {
  AtomicFileWriter file;
  EtWriteOptions options;
  std::string staging;
  uint64_t nodes_written = 0;
  uint64_t bytes_written = 0;
  z_stream deflater{};
  bool deflating = false;
  std::vector<uint8_t> compressed;

  Impl(const std::filesystem::path& path, EtWriteOptions write_options)
      : file(path), options(write_options) {
    staging.reserve(kFlushThresholdBytes + 4096);
    if (options.gzip) {
      if (options.gzip_level < 1 || options.gzip_level > 9) {
        throw Error(fmt::format("{}: gzip level must be 1..9, got {}", path.string(), options.gzip_level));
      }
      // windowBits 15 + 16: a gzip wrapper with no file name and mtime 0, so
      // the same trace always compresses to the same bytes.
      if (deflateInit2(&deflater, options.gzip_level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        throw Error(path.string() + ": cannot initialise zlib");
      }
      deflating = true;
      compressed.resize(1u << 18);
    }
  }
  ~Impl() {
    if (deflating) deflateEnd(&deflater);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  void flush(bool finish) {
    if (!options.gzip) {
      file.write(staging);
      staging.clear();
      return;
    }
    deflater.next_in = reinterpret_cast<Bytef*>(staging.data());
    deflater.avail_in = static_cast<uInt>(staging.size());
    int mode = finish ? Z_FINISH : Z_NO_FLUSH;
    while (true) {
      deflater.next_out = compressed.data();
      deflater.avail_out = static_cast<uInt>(compressed.size());
      int rc = deflate(&deflater, mode);
      if (rc == Z_STREAM_ERROR) throw Error(file.path().string() + ": gzip compression failed");
      file.write(std::string_view(reinterpret_cast<const char*>(compressed.data()),
                                  compressed.size() - deflater.avail_out));
      if (finish ? rc == Z_STREAM_END : deflater.avail_in == 0 && deflater.avail_out != 0) break;
    }
    staging.clear();
  }

  // `describe` names the message; called only when it must be refused, so
  // the hot path formats no strings.
  template <typename Describe>
  void append(const google::protobuf::MessageLite& message, Describe&& describe) {
    size_t before = staging.size();
    append_prefixed(staging, message, describe);
    bytes_written += staging.size() - before;
    if (staging.size() >= kFlushThresholdBytes) flush(false);
  }
};

EtWriter::EtWriter(const std::filesystem::path& path, const ChakraProtoMsg::GlobalMetadata& metadata,
                   EtWriteOptions options)
    : impl_(std::make_unique<Impl>(path, options)) {
  with_error_context(path.string(),
                     [&] { impl_->append(metadata, [] { return std::string("GlobalMetadata"); }); });
}

EtWriter::~EtWriter() = default;

void EtWriter::write(const ChakraProtoMsg::Node& node) {
  with_error_context(impl_->file.path().string(),
                     [&] {
                       impl_->append(node, [&] {
                         return fmt::format("node {} (message {})", node.id(), impl_->nodes_written + 1);
                       });
                     });
  ++impl_->nodes_written;
}

void EtWriter::commit() {
  impl_->flush(true);
  impl_->file.commit();
}

uint64_t EtWriter::nodes_written() const { return impl_->nodes_written; }
uint64_t EtWriter::bytes_written() const { return impl_->bytes_written; }

}  // namespace snr::chakra
