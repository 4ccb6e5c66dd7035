// Strict reader of MSCCL++ execution plans. Unknown keys, unknown ops, wrong
// types, out-of-range chunk indices and dangling channel, remote-buffer,
// switch-channel and semaphore references are snr::Error naming the file and
// the place (GPU, threadblock, op index, key). Plans in the pre-August-2025
// camelCase schema are rejected with a message saying so.
#pragma once

#include <string>
#include <string_view>

#include "formats/mscclpp/plan.h"

namespace snr::mscclpp {

// `source` names the input in error messages (usually the file path).
Plan parse_plan(std::string_view json_text, const std::string& source);
Plan read_plan_file(const std::string& path);

}  // namespace snr::mscclpp
