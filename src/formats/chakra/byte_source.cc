#include "formats/chakra/byte_source.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"

namespace snr::chakra {
namespace {

constexpr uint8_t kGzipMagic0 = 0x1f;
constexpr uint8_t kGzipMagic1 = 0x8b;

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::filesystem::path& path) : path_(path.string()) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(fmt::format("{}: cannot open: {}", path_, std::strerror(errno)));
  }
  ~FileSource() override {
    if (fd_ >= 0) ::close(fd_);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  size_t read_some(uint8_t* out, size_t capacity) override {
    while (true) {
      ssize_t got = ::read(fd_, out, capacity);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno != EINTR) throw Error(fmt::format("{}: read failed: {}", path_, std::strerror(errno)));
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t read_some(uint8_t* out, size_t capacity) override {
    size_t n = std::min(capacity, bytes_.size() - position_);
    if (n > 0) std::memcpy(out, bytes_.data() + position_, n);
    position_ += n;
    return n;
  }

 private:
  std::string_view bytes_;
  size_t position_ = 0;
};

// Inflates gzip members one after another (what `gzip -d` does with
// concatenated files); anything after a member that is not another gzip
// member is an error rather than silently ignored.
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> compressed, std::string display_name)
      : compressed_(std::move(compressed)), name_(std::move(display_name)), input_(1u << 18) {
    std::memset(&stream_, 0, sizeof(stream_));
    if (inflateInit2(&stream_, 15 + 16) != Z_OK) throw Error(name_ + ": cannot initialise zlib");
  }
  ~GzipSource() override { inflateEnd(&stream_); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  size_t read_some(uint8_t* out, size_t capacity) override {
    if (finished_ || capacity == 0) return 0;
    stream_.next_out = out;
    stream_.avail_out = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
    while (stream_.avail_out == static_cast<uInt>(std::min<size_t>(capacity, 1u << 30))) {
      if (stream_.avail_in == 0 && !refill()) {
        if (member_started_) {
          throw Error(fmt::format("{}: truncated gzip stream (ends after {} compressed bytes)", name_,
                                  compressed_offset_));
        }
        finished_ = true;
        break;
      }
      if (!member_started_) {
        // Between members: only another gzip header may follow.
        if (stream_.next_in[0] != kGzipMagic0) {
          throw Error(fmt::format("{}: trailing data after gzip stream at compressed byte {}", name_,
                                  compressed_offset_ - stream_.avail_in));
        }
        member_started_ = true;
      }
      int rc = inflate(&stream_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_started_ = false;
        inflateReset(&stream_);
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw Error(fmt::format("{}: corrupt gzip data near compressed byte {}: {}", name_,
                                compressed_offset_ - stream_.avail_in,
                                stream_.msg != nullptr ? stream_.msg : "inflate failed"));
      }
    }
    return static_cast<size_t>(stream_.next_out - out);
  }

 private:
  bool refill() {
    size_t got = compressed_->read_some(input_.data(), input_.size());
    if (got == 0) return false;
    compressed_offset_ += got;
    stream_.next_in = input_.data();
    stream_.avail_in = static_cast<uInt>(got);
    return true;
  }

  std::unique_ptr<ByteSource> compressed_;
  std::string name_;
  std::vector<uint8_t> input_;
  z_stream stream_;
  uint64_t compressed_offset_ = 0;
  bool member_started_ = false;
  bool finished_ = false;
};

// Reads the first two bytes to sniff gzip, then hands back a source that
// still yields them.
class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  size_t read_some(uint8_t* out, size_t capacity) override {
    if (position_ < prefix_.size()) {
      size_t n = std::min(capacity, prefix_.size() - position_);
      std::memcpy(out, prefix_.data() + position_, n);
      position_ += n;
      return n;
    }
    return rest_->read_some(out, capacity);
  }

 private:
  std::string prefix_;
  size_t position_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

std::unique_ptr<ByteSource> sniff(std::unique_ptr<ByteSource> raw, std::string display_name, bool& gzip) {
  uint8_t head[2];
  size_t have = 0;
  while (have < 2) {
    size_t got = raw->read_some(head + have, 2 - have);
    if (got == 0) break;
    have += got;
  }
  gzip = have == 2 && head[0] == kGzipMagic0 && head[1] == kGzipMagic1;
  auto rewound = std::make_unique<PrefixedSource>(std::string(reinterpret_cast<char*>(head), have),
                                                  std::move(raw));
  if (!gzip) return rewound;
  return std::make_unique<GzipSource>(std::move(rewound), std::move(display_name));
}

}  // namespace

std::unique_ptr<ByteSource> open_file_source(const std::filesystem::path& path, bool& gzip) {
  return sniff(std::make_unique<FileSource>(path), path.string(), gzip);
}

std::unique_ptr<ByteSource> open_memory_source(std::string_view bytes, std::string display_name,
                                               bool& gzip) {
  return sniff(std::make_unique<MemorySource>(bytes), std::move(display_name), gzip);
}

}  // namespace snr::chakra
