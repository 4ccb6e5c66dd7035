// The one way snr reads a YAML document from outside: syntax errors,
// bytes that are not UTF-8 and duplicate keys are errors with file and
// line, and a document with no
// content (an empty file, only comments) is an error instead of "all
// defaults". yaml-cpp itself keeps duplicate keys and `node["k"]` silently
// returns the first, so every reader goes through load_yaml_document().
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string_view>

namespace snr {

// Throws snr::Error "SOURCE:LINE: duplicate key 'K' (first at line N)".
// Walks nested maps and sequences.
void check_no_duplicate_keys(const YAML::Node& node, std::string_view source_name);

// Throws snr::Error "SOURCE:LINE:COLUMN: byte 0xE1 at offset N is not
// valid UTF-8 ..." for the first malformed, overlong or surrogate sequence,
// and names the first control character YAML does not allow (NUL, ESC, DEL,
// C1 controls; tab and line ends are fine).
// YAML and JSON documents are Unicode text; yaml-cpp passes any byte through,
// so without this check a name could hold bytes no writer can emit again.
void check_utf8(std::string_view text, std::string_view source_name);

// Parses `text`; `what` says what the document should be ("a workload
// spec") in the error for an empty one. The double-quoted escapes \N and \_
// come out as the UTF-8 of U+0085 and U+00A0 (yaml-cpp alone gives single
// bytes that are not UTF-8).
YAML::Node load_yaml_document(std::string_view text, std::string_view source_name, std::string_view what);

// A YAML boolean as snr reads it: the scalars `true` and `false` only
// (yaml-cpp's as<bool>() also takes yes/no/on/off/y/n in any case, which a
// typo can hit); anything else, a map or a list included, is nullopt and
// the caller names the key and line.
std::optional<bool> strict_yaml_bool(std::string_view scalar);
std::optional<bool> strict_yaml_bool(const YAML::Node& node);

}  // namespace snr
