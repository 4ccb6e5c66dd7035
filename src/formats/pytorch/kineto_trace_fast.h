// The Kineto reader's fast path for "traceEvents" (internal to
// formats/pytorch). Real traces are a long run of small, plain objects: ASCII
// keys, strings without escapes, short numbers. This reads such a window of
// events straight from the text, without simdjson's index, and hands back the
// same fields the on-demand walk would. It accepts only what that walk accepts
// and gives up (returns false) on anything else — escapes, control
// characters, invalid UTF-8, a duplicate key, a number it cannot convert
// exactly as simdjson does, deep nesting, any syntax error — so the caller
// re-reads the window with the on-demand walker, whose results and error
// messages are the reference.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

#include "formats/pytorch/kineto_trace.h"
#include "formats/pytorch/ondemand_walker.h"

namespace snr::pytorch::detail {

// The fields of one traceEvents entry, as both paths read them. Strings
// point into the text (fast path) or the parser's buffer (on-demand walk).
struct KinetoRawEvent {
  std::optional<std::string_view> ph, cat, name;
  bool name_seen = false;
  JsonNumber ts, dur, pid, tid;
  JsonNumber external_id, record_function_id, correlation, stream, device, wait_on_stream;
};

// Reads `elements` (whole array elements separated by commas, as
// ArrayWindows holds them) and calls `visit` for each, in order. False when
// the text holds something left to the on-demand walker; `visit` may then
// have been called for some of the elements already.
bool read_kineto_events_fast(std::string_view elements, const std::function<void(const KinetoRawEvent&)>& visit);

// The one event at `at` of `text`, without the UTF-8 check (the caller
// checks each window once): one past it, or npos where the fast path leaves
// it to the walker.
size_t read_kineto_event_fast(std::string_view text, size_t at, KinetoRawEvent& raw);

// parse_kineto_trace_text with every window walked by simdjson: the
// reference the fast path is tested against.
KinetoTrace parse_kineto_trace_text_walked(std::string_view text, const std::string& source_name);

// parse_kineto_trace_text with windows of `window_bytes` (tests put window
// boundaries anywhere), the fast path on or off.
KinetoTrace parse_kineto_trace_text_in_windows(std::string_view text, const std::string& source_name,
                                               size_t window_bytes, bool fast_events);

}  // namespace snr::pytorch::detail
