#include "common/yaml_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "common/error.h"

namespace snr {

void check_no_duplicate_keys(const YAML::Node& node, std::string_view source_name) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) check_no_duplicate_keys(item, source_name);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, int> first_line;
  for (const auto& entry : node) {
    if (entry.first.IsScalar()) {
      const int line = entry.first.Mark().line + 1;
      auto [it, inserted] = first_line.emplace(entry.first.Scalar(), line);
      if (!inserted) {
        throw Error(fmt::format("{}:{}: duplicate key '{}' (first at line {})", source_name, line,
                                entry.first.Scalar(), it->second));
      }
    }
    check_no_duplicate_keys(entry.second, source_name);
  }
}

namespace {

// Length of the well-formed UTF-8 sequence at text[i], or 0 (Unicode 15,
// table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

// The code point of the well-formed sequence of `length` bytes at text[i].
uint32_t code_point(std::string_view text, size_t i, size_t length) {
  const auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(text[i + k])); };
  switch (length) {
    case 1: return byte(0);
    case 2: return (byte(0) & 0x1F) << 6 | (byte(1) & 0x3F);
    case 3: return (byte(0) & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F);
    default: return (byte(0) & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 | (byte(3) & 0x3F);
  }
}

// YAML 1.2's c-printable: tab, line feed, carriage return, and every code
// point but the other C0 and C1 controls, DEL, and U+FFFE/U+FFFF (NEL, U+0085,
// is printable).
bool yaml_printable(uint32_t c) {
  if (c == 0x09 || c == 0x0A || c == 0x0D || c == 0x85) return true;
  if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) return false;
  return c != 0xFFFE && c != 0xFFFF;
}

// The scalar `text` with yaml-cpp's two wrong escapes put right: it decodes
// the double-quoted escapes \N (U+0085) and \_ (U+00A0) to the single bytes
// 0x85 and 0xA0 instead of their UTF-8. The document's text was UTF-8 (see
// check_utf8), so a byte that starts no valid sequence in a scalar is one of
// those two; anything else is an error. Empty when `text` needs nothing.
std::string utf8_scalar(std::string_view text, const YAML::Mark& mark, std::string_view source_name) {
  std::string fixed;
  size_t copied = 0;  // text[0, copied) is in `fixed`
  for (size_t i = 0; i < text.size();) {
    if (const size_t length = utf8_sequence_length(text, i); length != 0) {
      i += length;
      continue;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte != 0x85 && byte != 0xA0) {
      throw Error(fmt::format("{}:{}: a string decodes to byte 0x{:02X}, which is not UTF-8", source_name,
                              mark.line + 1, byte));
    }
    fixed.append(text.substr(copied, i - copied));
    fixed.push_back(static_cast<char>(0xC2));  // U+0080..U+00BF: C2, then the byte itself
    fixed.push_back(static_cast<char>(byte));
    copied = ++i;
  }
  if (copied == 0) return {};
  fixed.append(text.substr(copied));
  return fixed;
}

// Every scalar of `node` (keys too) made UTF-8 by utf8_scalar.
void fix_scalar_escapes(YAML::Node node, std::string_view source_name) {
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    // Most scalars are ASCII: nothing to look at.
    if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return;
    if (std::string fixed = utf8_scalar(text, node.Mark(), source_name); !fixed.empty()) node = fixed;
    return;
  }
  if (node.IsSequence()) {
    for (YAML::Node item : node) fix_scalar_escapes(item, source_name);
    return;
  }
  if (!node.IsMap()) return;
  for (auto entry : node) {
    fix_scalar_escapes(entry.first, source_name);
    fix_scalar_escapes(entry.second, source_name);
  }
}

// Notes where a document first has content (a scalar, a collection or an
// alias, not an empty or `~` document); the events themselves are dropped.
class ContentMark final : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> first;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { note(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    note(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    note(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    note(mark);
  }
  void OnMapEnd() override {}

 private:
  void note(const YAML::Mark& mark) {
    if (!first) first = mark;
  }
};

// Where the text's second document has content, if it has: the parser is
// walked over two documents only (YAML::LoadAll keeps asking for more and
// never ends on some malformed flow collections).
std::optional<YAML::Mark> second_document_content(std::string_view text) {
  std::istringstream stream{std::string(text)};
  YAML::Parser parser(stream);
  ContentMark first_document;
  if (!parser.HandleNextDocument(first_document)) return std::nullopt;
  ContentMark second_document;
  if (!parser.HandleNextDocument(second_document)) return std::nullopt;
  return second_document.first;
}

}  // namespace

void check_utf8(std::string_view text, std::string_view source_name) {
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      throw Error(fmt::format("{}:{}:{}: byte 0x{:02X} at offset {} is not valid UTF-8 (YAML and JSON input must be "
                              "UTF-8 text)",
                              source_name, line, i - line_start + 1, static_cast<unsigned char>(text[i]), i));
    }
    if (const uint32_t c = code_point(text, i, length); !yaml_printable(c)) {
      throw Error(fmt::format("{}:{}:{}: character U+{:04X} at offset {} is a control character, which YAML does not "
                              "allow",
                              source_name, line, i - line_start + 1, c, i));
    }
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += length;
  }
}

std::optional<bool> strict_yaml_bool(std::string_view scalar) {
  if (scalar == "true") return true;
  if (scalar == "false") return false;
  return std::nullopt;
}

std::optional<bool> strict_yaml_bool(const YAML::Node& node) {
  return node.IsScalar() ? strict_yaml_bool(std::string_view(node.Scalar())) : std::nullopt;
}

YAML::Node load_yaml_document(std::string_view text, std::string_view source_name, std::string_view what) {
  check_utf8(text, source_name);
  YAML::Node root;
  try {
    // YAML::Load keeps the first document and drops the rest, so a second
    // `---` section (two configs pasted into one file) would be ignored
    // without a word: the second document is looked at too.
    if (const std::optional<YAML::Mark> second = second_document_content(text)) {
      throw Error(fmt::format("{}:{}: a second YAML document (after '---'); expected one document, {}", source_name,
                              second->line + 1, what));
    }
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}: invalid YAML: {}", source_name, e.mark.line + 1, e.msg));
  }
  if (!root.IsDefined() || root.IsNull()) {
    throw Error(fmt::format("{}: no YAML content (empty or only comments); expected {}", source_name, what));
  }
  fix_scalar_escapes(root, source_name);
  check_no_duplicate_keys(root, source_name);
  return root;
}

}  // namespace snr
