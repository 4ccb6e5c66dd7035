// The one way snr parses JSON that comes from outside (config files, traces,
// models, plans): every parser failure becomes an snr::Error that says where
// (line, column, byte) and under which key, instead of a nlohmann exception
// escaping as an "internal error". Numbers that overflow a double ("1e400"),
// duplicate object keys and nesting deeper than `max_depth` are errors too;
// readers still check their own keys and value ranges on the result.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace snr {

struct JsonInputOptions {
  // Objects may repeat a key (the last one wins) only when this is set.
  bool allow_duplicate_keys = false;
  // Containers nested deeper than this are rejected: readers and dump()
  // recurse over the document.
  size_t max_depth = 512;
};

// "line L, column C (byte B)" for byte offset `byte` of `text`: the position
// format of every JSON input error, also for readers that do not go through
// parse_json_input (the streaming Kineto reader).
std::string describe_json_position(std::string_view text, size_t byte);

// Parses `text`. On failure throws snr::Error
// "<source>: line L, column C (byte B), key 'a.b[2]': <reason>"; with an
// empty `source` the message starts at "line" so that a caller whose error
// context already names the input does not repeat it.
nlohmann::json parse_json_input(std::string_view text, std::string_view source,
                                const JsonInputOptions& options = {});

// The same for readers that keep the document's key order.
nlohmann::ordered_json parse_ordered_json_input(std::string_view text, std::string_view source,
                                                const JsonInputOptions& options = {});

}  // namespace snr
