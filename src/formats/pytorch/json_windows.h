// Splits the large array of a JSON document ("nodes" of a host execution
// trace) into windows of consecutive elements, so a reader can index and
// walk one window at a time instead of the whole document at once: the
// parser's index then grows with the window, not with the trace.
//
// The scan only follows strings and brackets; it does not validate. A reader
// parses the root object with the array replaced by "[]" and each window as
// "[" + window + "]": those pieces put back together are the original text,
// so they are all valid JSON exactly when the document is.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace snr::pytorch {

struct ArrayWindows {
  size_t array_begin = 0;  // the array's '['
  size_t array_end = 0;    // one past its ']'
  // [begin, end) byte ranges of whole elements, in order; the commas between
  // windows belong to none of them.
  std::vector<std::pair<size_t, size_t>> windows;
  // Top-level elements the scan passed, so that a reader can size its
  // record list once instead of growing it (a grown vector briefly holds
  // its old and new storage: a peak of 1.5x the records).
  size_t elements = 0;
};

// The array value of the first key of the root object spelled `key` (no
// escapes), in windows of at least `window_bytes` (the last one may be
// shorter). nullopt when the text is not shaped so (not an object, no such
// key, not an array there, or malformed where the scan looked).
// `passed`, when given, is called with the end of each window once the
// scan is past it (a reader of a mapped file hands those pages back).
std::optional<ArrayWindows> find_root_array_windows(std::string_view text, std::string_view key,
                                                    size_t window_bytes,
                                                    const std::function<void(size_t)>& passed = {});

// The pieces of find_root_array_windows, for a reader that reads the array
// while it finds the windows. The '[' of the first root key spelled `key`:
std::optional<size_t> find_root_array(std::string_view text, std::string_view key);
// Goes on scanning from `element` (the start of an element) with the window
// in progress begun at `window_begin`: windows, elements and array_end are
// added to `out` as find_root_array_windows would; false when malformed.
bool scan_array_windows_from(std::string_view text, size_t element, size_t window_begin, size_t window_bytes,
                             ArrayWindows& out, const std::function<void(size_t)>& passed = {});
// The first byte at or after `at` that is not JSON whitespace.
size_t skip_json_space(std::string_view text, size_t at);

}  // namespace snr::pytorch
