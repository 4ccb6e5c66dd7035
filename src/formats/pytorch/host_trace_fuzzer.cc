// Fuzz entry point: arbitrary bytes into the host execution-trace reader.
// Only snr::Error is an acceptable failure.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "formats/pytorch/host_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto trace = snr::pytorch::parse_host_trace_text(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
    (void)trace;
  } catch (const snr::Error&) {
  }
  return 0;
}
