// The moves file `snr rewrite --moves` reads: JSON
//   {"moves": [{"pcs": ["0x10040", "0x10044"], "before_pc": "0x10010"}, ...]}
// pcs as numbers or strings (decimal or 0x-hex). Errors name the move and
// the field at fault.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis.h"

namespace snr::rewrite {

// Throws snr::Error "<origin>: move 2: pcs[1]: ..." on malformed input.
std::vector<analyze::CodeMove> parse_moves_json(std::string_view text, std::string_view origin);
std::string moves_to_json(const std::vector<analyze::CodeMove>& moves);

}  // namespace snr::rewrite
