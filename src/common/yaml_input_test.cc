#include "common/yaml_input.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace snr {
namespace {

std::string error_of(std::string_view text) {
  try {
    (void)load_yaml_document(text, "in.yaml", "a test document");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(YamlInput, DuplicateKeysNameBothLines) {
  EXPECT_EQ(error_of("a: 1\nb: 2\na: 3\n"), "in.yaml:3: duplicate key 'a' (first at line 1)");
  EXPECT_EQ(error_of("hbm:\n  bandwidth: 1TB/s\n  bandwidth: 2TB/s\n"),
            "in.yaml:3: duplicate key 'bandwidth' (first at line 2)");
  EXPECT_EQ(error_of("- x: 1\n  x: 2\n"), "in.yaml:2: duplicate key 'x' (first at line 1)");
  EXPECT_EQ(error_of("a: {b: 1}\nc: {b: 2}\n"), "");  // same key in different maps is fine
}

TEST(YamlInput, EmptyAndCommentOnlyDocumentsAreErrors) {
  for (const char* text : {"", "\n\n", "# only a comment\n# another\n", "---\n"}) {
    EXPECT_NE(error_of(text).find("no YAML content"), std::string::npos) << text;
  }
  EXPECT_NE(error_of("a: [1\n").find("in.yaml:"), std::string::npos);
}

TEST(YamlInput, ASecondDocumentIsAnErrorNotIgnored) {
  EXPECT_EQ(error_of("clock: 1GHz\n---\nclock: 2GHz\n"),
            "in.yaml:3: a second YAML document (after '---'); expected one document, a test document");
  EXPECT_EQ(error_of("---\nclock: 1GHz\n"), "");    // one document with its start marker
  EXPECT_EQ(error_of("clock: 1GHz\n---\n"), "");    // a trailing marker starts nothing
  EXPECT_EQ(error_of("clock: 1GHz\n...\n"), "");    // a document end marker
}

// Reading every document (YAML::LoadAll) never ended on some flow
// collections of empty entries (two fuzz inputs of the hardware config,
// which yaml-cpp reads as one document each); only two are read now.
TEST(YamlInput, TheSecondDocumentCheckEndsOnFlowCollectionsOfEmptyEntries) {
  EXPECT_EQ(error_of("!i{,!!int,My,,,,,,,\r,,},\ndpdJer"), "");
  EXPECT_EQ(error_of("[A,,,,,,,[[[[],,[[[[]]]],,,,,,]],,,,,,,,[[[[]]]],,,,,-,[hbm:\n [[[]]]],,,,]],\n"), "");
}

TEST(YamlInput, BytesThatAreNotUtf8AreErrorsWithLineAndColumn) {
  EXPECT_EQ(error_of("name: sm\xE1ll\n"),
            "in.yaml:1:9: byte 0xE1 at offset 8 is not valid UTF-8 (YAML and JSON input must be UTF-8 text)");
  EXPECT_NE(error_of("a: 1\nb: \xC0\xAF\n").find("in.yaml:2:4: byte 0xC0"), std::string::npos);  // overlong '/'
  EXPECT_NE(error_of("a: \xED\xA0\x80\n").find("byte 0xED"), std::string::npos);                 // surrogate
  EXPECT_NE(error_of("a: \xF4\x90\x80\x80\n").find("byte 0xF4"), std::string::npos);            // above U+10FFFF
  EXPECT_NE(error_of("a: \xE2\x82\n").find("byte 0xE2"), std::string::npos);                      // truncated
  EXPECT_EQ(error_of("name: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n"), "");  // 2-, 3- and 4-byte forms
}

TEST(YamlInput, ControlCharactersAreErrors) {
  using namespace std::string_literals;
  EXPECT_EQ(error_of("a: x\x01y\n"),
            "in.yaml:1:5: character U+0001 at offset 4 is a control character, which YAML does not allow");
  EXPECT_NE(error_of("a: x\0y\n"s).find("U+0000"), std::string::npos);
  EXPECT_NE(error_of("a: \x7F\n").find("U+007F"), std::string::npos);
  EXPECT_NE(error_of("a: \xC2\x9B\n").find("U+009B"), std::string::npos);  // C1 control
  EXPECT_EQ(error_of("a: \"tab\there\"\r\nb: \xC2\x85\n"), "");            // tab, CR LF and NEL are allowed
}

TEST(YamlInput, EscapesOfNelAndNoBreakSpaceDecodeToUtf8) {
  // yaml-cpp alone gives the single bytes 0x85 and 0xA0, which no JSON or
  // YAML writer can emit again (found by the InfraGraph reader's fuzzer).
  const YAML::Node root = load_yaml_document(
      "a: \"x\\_y\\Nz\"\nb: [\"\\_\", plain, \"\xC3\xA9\\_\"]\n\"k\\_\": 1\nc: \"\\L\\x85\"\n", "t.yaml",
      "a test document");
  EXPECT_EQ(root["a"].as<std::string>(), "x\xC2\xA0y\xC2\x85z");
  EXPECT_EQ(root["b"][0].as<std::string>(), "\xC2\xA0");
  EXPECT_EQ(root["b"][1].as<std::string>(), "plain");
  EXPECT_EQ(root["b"][2].as<std::string>(), "\xC3\xA9\xC2\xA0");
  EXPECT_EQ(root["k\xC2\xA0"].as<int>(), 1);
  EXPECT_EQ(root["c"].as<std::string>(), "\xE2\x80\xA8\xC2\x85");  // yaml-cpp's own \L and \x85 were right
}

}  // namespace
}  // namespace snr
