#include "formats/pytorch/json_input.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "common/error.h"
#include "formats/pytorch/gzip_for_tests.h"

namespace snr::pytorch {
namespace {

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

// A tar archive (PyTorch's tools ship some traces as .tar.gz) is named as
// one with its first member; text that merely has "ustar" elsewhere is not.
TEST(TarArchive, IsRefusedWithItsFirstMember) {
  std::string header(1024, '\0');
  header.replace(0, 11, "pt2_et.json");
  header.replace(257, 6, std::string("ustar\0", 6));
  try {
    reject_tar_archive(header, "t.tar");
    FAIL() << "a tar archive was taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.tar: a tar archive (first member 'pt2_et.json'), not a JSON trace: extract it (tar xf) and pass the "
              "trace file itself");
  }
  std::string text = some_text();
  EXPECT_NO_THROW(reject_tar_archive(text, "t.json"));
  text.replace(100, 5, "ustar");  // not at the header's offset
  EXPECT_NO_THROW(reject_tar_archive(text, "t.json"));
  EXPECT_NO_THROW(reject_tar_archive(header.substr(0, 300), "short"));  // shorter than a tar header
  // JSON whose string has "ustar" exactly at byte 257 is JSON (a fuzzed
  // trace was refused as an archive when read from a file).
  std::string json = "{\"nodes\": [{\"name\": \"" + std::string(600, 'x') + "\"}]}";
  json.replace(257, 5, "ustar");
  EXPECT_NO_THROW(reject_tar_archive(json, "t.json"));
  json.insert(0, "\n ");
  json.replace(257, 5, "ustar");
  EXPECT_NO_THROW(reject_tar_archive(json, "t.json"));
}

}  // namespace
}  // namespace snr::pytorch
