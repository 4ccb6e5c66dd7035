// Where to cut a trace's "nodes" list so that two threads can read its
// halves at once: a guess, found without reading the list from its start.
// The reader of the first half confirms it (it must end a node exactly
// there) before the second half's reading is used, so a wrong guess costs
// time, never a wrong trace.
#pragma once

#include <cstddef>
#include <string_view>

namespace snr::pytorch::detail {

// The offset of a '{' near the middle of [first_node, text.size()) that
// looks like the start of a list element: "}" "," and then "{", with a
// newline between them (JSON strings cannot hold a raw newline, so both
// brackets are outside strings: how PyTorch and `snr et link` write one
// node per line or block), else the first "},{" there; npos when neither
// is found within a few megabytes of the middle.
size_t guess_node_list_split(std::string_view text, size_t first_node);

}  // namespace snr::pytorch::detail
