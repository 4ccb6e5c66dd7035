// libFuzzer entry point: `snr rewrite --moves` reads a hand-written JSON
// file, so any byte string must be rejected with snr::Error or accepted; an
// accepted list must survive writing and reading back unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "rewrite/moves_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto moves = snr::rewrite::parse_moves_json(text, "fuzz");
    const std::string written = snr::rewrite::moves_to_json(moves);
    if (snr::rewrite::moves_to_json(snr::rewrite::parse_moves_json(written, "written back")) != written) {
      __builtin_trap();
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
