#include "common/json_input.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"

namespace snr {
namespace {

using ::testing::HasSubstr;

std::string error_of(std::string_view text, std::string_view source = "in.json", JsonInputOptions options = {}) {
  try {
    (void)parse_json_input(text, source, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonInput, ParsesNestedDocuments) {
  const auto doc = parse_json_input(R"({"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": 18446744073709551615})",
                                    "in.json");
  EXPECT_EQ(doc["a"].size(), 7u);
  EXPECT_EQ(doc["a"][1].get<int64_t>(), -2);
  EXPECT_DOUBLE_EQ(doc["a"][2].get<double>(), 3.5);
  EXPECT_TRUE(doc["a"][6]["b"].is_object());
  EXPECT_EQ(doc["c"].get<uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(doc, nlohmann::json::parse(R"({"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": 18446744073709551615})"));
}

TEST(JsonInput, ScalarRootAndOrderedKeys) {
  EXPECT_EQ(parse_json_input("42", "n").get<int>(), 42);
  const auto ordered = parse_ordered_json_input(R"({"z": 1, "a": 2, "m": 3})", "o");
  std::string keys;
  for (const auto& [key, value] : ordered.items()) keys += key;
  EXPECT_EQ(keys, "zam");
}

TEST(JsonInput, NumberOverflowNamesFileLineAndKey) {
  const std::string text = "{\n  \"scheduling-policy\": \"LIFO\",\n  \"endpoint-delay\": 1e400\n}\n";
  const std::string message = error_of(text, "sys.json");
  EXPECT_THAT(message, HasSubstr("sys.json: line 3, column"));
  EXPECT_THAT(message, HasSubstr("key 'endpoint-delay'"));
  EXPECT_THAT(message, HasSubstr("number overflow parsing '1e400'"));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("json.exception")));
}

TEST(JsonInput, SyntaxErrorsNameThePathInsideArrays) {
  const std::string message = error_of(R"({"groups": [{"ranks": [0, 1]}, {"ranks": [2, x]}]})");
  EXPECT_THAT(message, HasSubstr("in.json: line 1, column"));
  EXPECT_THAT(message, HasSubstr("key 'groups[1].ranks[1]'"));
  EXPECT_THAT(message, HasSubstr("syntax error"));
}

TEST(JsonInput, ReportsBytePositionOfSyntaxError) {
  const std::string message = error_of("[true, fals]");
  EXPECT_THAT(message, HasSubstr("line 1, column"));
  EXPECT_THAT(message, HasSubstr("key '[1]'"));
  EXPECT_THAT(message, HasSubstr("invalid literal"));
}

TEST(JsonInput, TruncatedAndEmptyInputs) {
  EXPECT_THAT(error_of(""), HasSubstr("in.json: line 1, column 1 (byte 0)"));
  EXPECT_THAT(error_of("{\"a\": [1, 2"), HasSubstr("key 'a[2]'"));
  EXPECT_THAT(error_of("{} trailing"), HasSubstr("expected end of input"));
}

TEST(JsonInput, DuplicateKeysAreErrorsUnlessAllowed) {
  const std::string text = "{\"a\": {\"x\": 1,\n \"x\": 2}}";
  const std::string message = error_of(text);
  EXPECT_THAT(message, HasSubstr("line 2"));
  EXPECT_THAT(message, HasSubstr("duplicate key 'x'"));
  EXPECT_THAT(message, HasSubstr("key 'a.x'"));
  const auto last_wins = parse_json_input(text, "in.json", {.allow_duplicate_keys = true});
  EXPECT_EQ(last_wins["a"]["x"].get<int>(), 2);
  // The same key in sibling objects is fine.
  EXPECT_NO_THROW((void)parse_json_input(R"([{"x": 1}, {"x": 2}])", "in.json"));
}

TEST(JsonInput, DeepNestingIsRejected) {
  const std::string deep = std::string(600, '[') + std::string(600, ']');
  EXPECT_THAT(error_of(deep), HasSubstr("nested deeper than 512 levels"));
  EXPECT_NO_THROW((void)parse_json_input(std::string(100, '[') + std::string(100, ']'), "in.json"));
}

TEST(JsonInput, EmptySourceLeavesNamingToTheCaller) {
  EXPECT_THAT(error_of("{\"a\": 1e999}", ""), ::testing::StartsWith("line 1, column"));
}

TEST(JsonInput, InvalidUtf8IsAnError) {
  EXPECT_THAT(error_of("[\"\xff\"]"), HasSubstr("in.json: line 1"));
}

}  // namespace
}  // namespace snr
