// Fuzz target for the grid file reader: any text is parsed; a grid that
// parses and has at most a few thousand points is expanded (sampling,
// canonical values, point keys). Only snr::Error may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "sweep/grid.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const snr::sweep::Grid grid = snr::sweep::parse_grid(text, "fuzz/grid.yaml");
    uint64_t points = grid.samples == 0 ? 1 : grid.samples;
    for (const auto& axis : grid.axes) points *= axis.size();
    if (points <= 4096) (void)snr::sweep::expand(grid);
  } catch (const snr::Error&) {
  }
  return 0;
}
