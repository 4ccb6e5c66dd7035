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

}  // namespace
}  // namespace snr
