// Fuzzes the hardware-config YAML reader: any input must give a config or a
// snr::Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hw/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    snr::hw::HwConfig config =
        snr::hw::parse_config_yaml(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    (void)config.to_yaml();
  } catch (const snr::Error&) {
  }
  return 0;
}
