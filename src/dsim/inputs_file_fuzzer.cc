// Fuzz target for the reader of `snr sim`'s inputs.json: any bytes either
// give inputs whose values are in range and that write back to the same
// inputs, or end in snr::Error.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/error.h"
#include "dsim/inputs_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto inputs = snr::dsim::parse_inputs_json(text, "fuzz");
    if (inputs.workload_prefix.empty() || inputs.backend.empty()) std::abort();
    if (!std::isfinite(inputs.injection_scale) || inputs.injection_scale < 0) std::abort();
    if (!(inputs.scales.comm > 0)) std::abort();
    // Written back (paths made absolute) and read again: the same values.
    const auto again = snr::dsim::parse_inputs_json(snr::dsim::inputs_json(inputs), "again");
    if (again.backend != inputs.backend || again.scales.compute != inputs.scales.compute ||
        again.comm_group_configuration.empty() != inputs.comm_group_configuration.empty()) {
      std::abort();
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
