// Fuzz target for the readers of Calculon's files (model, system,
// execution): the first byte picks the reader, the rest is its JSON. Only
// snr::Error may escape a reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "pathfind/inputs/device.h"
#include "pathfind/llm/calculon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const snr::pathfind::DeviceSpec base = snr::pathfind::device_preset("a100-80gb");
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 3) {
      case 0: (void)snr::pathfind::parse_calculon_model(text, "model.json"); break;
      case 1: (void)snr::pathfind::parse_calculon_system(text, "system.json", base); break;
      default: (void)snr::pathfind::parse_calculon_execution(text, "execution.json"); break;
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
