#include "formats/pytorch/json_input.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <utility>

#include "common/error.h"

namespace snr::pytorch {
namespace {

// `text` as one gzip member; `header_crc` sets FHCRC with the header's CRC.
std::string gzip_member(const std::string& text, bool header_crc = false) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  gz_header header{};
  header.hcrc = header_crc ? 1 : 0;
  if (header_crc) deflateSetHeader(&stream, &header);
  std::string out(deflateBound(&stream, text.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return status == Z_STREAM_END ? out : "";
}

std::string error_of(std::string_view compressed) {
  try {
    (void)gunzip(compressed, "t.json.gz");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string some_text() {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "{\"name\": \"aten::mm\", \"id\": " + std::to_string(i) + "},\n";
  return text;
}

TEST(Gunzip, InflatesOneMemberAndConcatenatedMembers) {
  const std::string text = some_text();
  EXPECT_EQ(gunzip(gzip_member(text), "t.json.gz"), text);
  EXPECT_EQ(gunzip(gzip_member(text) + gzip_member("tail"), "t.json.gz"), text + "tail");
  EXPECT_EQ(gunzip(gzip_member(text, true), "t.json.gz"), text);
  EXPECT_EQ(gunzip(gzip_member(""), "t.json.gz"), "");
}

TEST(Gunzip, BrokenStreamsNameTheCompressedByte) {
  const std::string good = gzip_member(some_text());
  const std::string kPrefix = "t.json.gz: corrupt or truncated gzip data near compressed byte ";
  // Cut inside the deflate data, and just before the trailer's end.
  EXPECT_EQ(error_of(good.substr(0, good.size() / 2)).rfind(kPrefix, 0), 0u);
  EXPECT_EQ(error_of(good.substr(0, good.size() - 3)).rfind(kPrefix, 0), 0u);
  // A flipped bit in the data's CRC-32 and in the ISIZE trailer.
  // zlib stops after the CRC-32 when it is wrong, after the trailer else.
  for (const auto& [from_end, stop] : {std::pair{size_t{6}, good.size() - 4}, std::pair{size_t{2}, good.size()}}) {
    std::string flipped = good;
    flipped[flipped.size() - from_end] = static_cast<char>(flipped[flipped.size() - from_end] ^ 0x01);
    EXPECT_EQ(error_of(flipped), kPrefix + std::to_string(stop)) << from_end;
  }
  // A bare header, trailing garbage after a member, and a header whose own
  // CRC is wrong (zlib checks it).
  EXPECT_EQ(error_of(good.substr(0, 10)).rfind(kPrefix, 0), 0u);
  EXPECT_EQ(error_of(good + "junk").rfind(kPrefix, 0), 0u);
  std::string bad_header = gzip_member(some_text(), true);
  bad_header[10] = static_cast<char>(bad_header[10] ^ 0x01);
  EXPECT_EQ(error_of(bad_header), kPrefix + "12");
}

}  // namespace
}  // namespace snr::pytorch
