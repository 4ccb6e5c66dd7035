// Fuzz target for the pathfinding input readers: the first byte picks the
// reader, the rest is its input. Only snr::Error may escape a reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "pathfind/inputs/device.h"
#include "pathfind/inputs/measured_gemm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 2) {
      case 0: (void)snr::pathfind::parse_device_yaml(text, "fuzz.yaml"); break;
      default: (void)snr::pathfind::parse_llmcompass_gemm_csv(text, "fuzz.csv"); break;
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
