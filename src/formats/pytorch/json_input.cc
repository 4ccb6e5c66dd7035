#include "formats/pytorch/json_input.h"

#include <zlib.h>

#if defined(SNR_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "common/cli_numbers.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"

namespace snr::pytorch {

void advise_huge_pages(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr size_t kHugePageBytes = 2 << 20;
  if (bytes < 2 * kHugePageBytes) return;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHugePageBytes - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

namespace {

// The streaming readers need this many readable bytes past the text
// (simdjson::SIMDJSON_PADDING); room for them is reserved up front so that
// the text is never copied to grow it.
constexpr size_t kReadPaddingBytes = 64;

bool has_gzip_magic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// The inflated size a gzip stream declares in its trailer (ISIZE: the size
// modulo 2^32 of its last member), capped at deflate's largest ratio so that
// a corrupt trailer cannot ask for an absurd reservation.
size_t declared_inflated_bytes(std::string_view compressed) {
  if (compressed.size() < 18) return 0;
  const auto* tail = reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
  const size_t declared = static_cast<size_t>(tail[0]) | static_cast<size_t>(tail[1]) << 8 |
                          static_cast<size_t>(tail[2]) << 16 | static_cast<size_t>(tail[3]) << 24;
  constexpr size_t kMaxDeflateRatio = 1032;
  return std::min(declared, compressed.size() * kMaxDeflateRatio);
}

#if defined(SNR_HAVE_LIBDEFLATE)
// One gzip member inflated at once by libdeflate into a buffer of the size
// its trailer declares. Only the plain case is taken: a single member filling
// the input, no header CRC (libdeflate skips it where zlib checks it), a
// declared size within deflate's ratio. The data's CRC-32 and size are
// checked. nullopt leaves the input to zlib, whose errors are the reference.
std::optional<std::string> inflate_single_member(std::string_view compressed, size_t declared_bytes) {
  constexpr unsigned char kHeaderCrcFlag = 0x02;
  if (compressed.size() < 18 || declared_bytes == 0 ||
      (static_cast<unsigned char>(compressed[3]) & kHeaderCrcFlag) != 0) {
    return std::nullopt;
  }
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> decompressor(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  if (!decompressor) return std::nullopt;
  std::string out;
  out.reserve(declared_bytes + kReadPaddingBytes);
  advise_huge_pages(out.data(), out.capacity());
  out.resize(declared_bytes);
  size_t consumed_bytes = 0;
  size_t produced_bytes = 0;
  const libdeflate_result result =
      libdeflate_gzip_decompress_ex(decompressor.get(), compressed.data(), compressed.size(), out.data(), out.size(),
                                    &consumed_bytes, &produced_bytes);
  if (result != LIBDEFLATE_SUCCESS || consumed_bytes != compressed.size() || produced_bytes != declared_bytes) {
    return std::nullopt;
  }
  return out;
}
#endif

// The whole file with room for the padding; read_file for what is not a
// regular file (its errors name the path).
std::string read_file_padded(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || !std::filesystem::is_regular_file(path, ec)) return read_file(path);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return read_file(path);
  std::string bytes;
  bytes.reserve(size + kReadPaddingBytes);
  advise_huge_pages(bytes.data(), bytes.capacity());
  bytes.resize(size);
  const size_t got = std::fread(bytes.data(), 1, size, file);
  const bool more = std::fgetc(file) != EOF;
  std::fclose(file);
  // A file that changed size while being read: the plain reader copes.
  if (got != size || more) return read_file(path);
  return bytes;
}

}  // namespace

std::string gunzip(std::string_view compressed, const std::string& source_name) {
#if defined(SNR_HAVE_LIBDEFLATE)
  if (auto whole = inflate_single_member(compressed, declared_inflated_bytes(compressed))) return std::move(*whole);
#endif
  z_stream stream{};
  // 16 + MAX_WBITS: expect a gzip header and trailer.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    throw Error(fmt::format("{}: cannot initialise gzip decoder", source_name));
  }
  std::string out;
  out.reserve(std::max(declared_inflated_bytes(compressed), compressed.size() * 6) + kReadPaddingBytes);
  advise_huge_pages(out.data(), out.capacity());
  char buffer[1 << 16];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  int status = Z_OK;
  while (true) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) break;
    out.append(buffer, sizeof(buffer) - stream.avail_out);
    if (status == Z_STREAM_END) {
      // Concatenated gzip members (what `cat a.gz b.gz` makes) continue.
      if (stream.avail_in == 0) break;
      if (inflateReset(&stream) != Z_OK) break;
      continue;
    }
    if (stream.avail_in == 0 && stream.avail_out != 0) {
      status = Z_BUF_ERROR;
      break;
    }
  }
  const uint64_t consumed = stream.total_in;
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    throw Error(fmt::format("{}: corrupt or truncated gzip data near compressed byte {}",
                            source_name, consumed));
  }
  return out;
}

void reject_tar_archive(std::string_view text, const std::string& source_name) {
  // A tar header is 512 bytes: the member's name (NUL-padded) first, the
  // magic "ustar" at offset 257.
  // A JSON document starts with a bracket or space, a tar header with its
  // member's name: JSON that has "ustar" in a string at byte 257 is JSON.
  constexpr size_t kMagicOffset = 257;
  if (text.size() < 512 || text.substr(kMagicOffset, 5) != "ustar") return;
  if (std::string_view("{[ \t\r\n").find(text[0]) != std::string_view::npos) return;
  std::string_view member = text.substr(0, 100);
  member = member.substr(0, member.find('\0'));
  throw Error(fmt::format("{}: a tar archive (first member '{}'), not a JSON trace: extract it (tar xf) and "
                          "pass the trace file itself",
                          source_name, member));
}

std::string read_maybe_gzip(const std::filesystem::path& path) {
  std::string bytes = read_file_padded(path);
  if (has_gzip_magic(bytes)) bytes = gunzip(bytes, path.string());
  reject_tar_archive(bytes, path.string());
  return bytes;
}

nlohmann::json parse_json_document(std::string_view text, const std::string& source_name) {
  if (has_gzip_magic(text)) {
    const std::string inflated = gunzip(text, source_name);
    return parse_json_document(inflated, source_name);
  }
  return parse_json_input(text, source_name);
}

bool json_to_int64(const nlohmann::json& value, int64_t& out) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned()) {
      const auto u = value.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
      out = static_cast<int64_t>(u);
      return true;
    }
    out = value.get<int64_t>();
    return true;
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18) return false;
    out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

bool json_to_uint64(const nlohmann::json& value, uint64_t& out) {
  if (value.is_number_unsigned()) {
    out = value.get<uint64_t>();
    return true;
  }
  int64_t signed_value = 0;
  if (!json_to_int64(value, signed_value) || signed_value < 0) return false;
  out = static_cast<uint64_t>(signed_value);
  return true;
}

std::string trace_rank_problem(const std::optional<int64_t>& rank) {
  if (!rank) return fmt::format("is not an integer: valid 0 .. {} (as --rank)", limits::kMaxRanks - 1);
  if (!limits::is_rank(*rank)) {
    return fmt::format("is out of range: valid 0 .. {} (as --rank)", limits::kMaxRanks - 1);
  }
  return "";
}

std::optional<int64_t> read_trace_rank(const nlohmann::json& object, const char* key, std::string_view name,
                                       const std::string& source) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  // Integers only: json_to_int64 would take 3.0, which no writer writes for
  // a rank. One beyond int64_t is out of range, not another kind.
  std::optional<int64_t> rank;
  if (it->is_number_integer()) {
    int64_t value = std::numeric_limits<int64_t>::max();
    json_to_int64(*it, value);
    rank = value;
  }
  const std::string problem = trace_rank_problem(rank);
  if (!problem.empty()) throw Error(fmt::format("{}: key '{}' = {} {}", source, name, it->dump(), problem));
  return rank;
}

}  // namespace snr::pytorch
