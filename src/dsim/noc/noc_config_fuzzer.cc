// Fuzz target for the NoC topology reader (and the GPU config reader, which
// shares its files): bad input must end in snr::Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "dsim/gpu/gpu_config.h"
#include "dsim/noc/noc_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const snr::dsim::noc::NocConfig config = snr::dsim::noc::parse_noc_config(text, "fuzz");
    (void)config.endpoints();
  } catch (const snr::Error&) {
  }
  try {
    (void)snr::dsim::gpu::parse_gpu_config(text, "fuzz");
  } catch (const snr::Error&) {
  }
  return 0;
}
