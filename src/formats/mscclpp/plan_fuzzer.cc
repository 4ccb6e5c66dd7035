// Fuzz entry point: arbitrary bytes into the MSCCL++ plan reader. Only
// snr::Error is an acceptable failure; a plan that reads must summarize.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "formats/mscclpp/plan_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto plan =
        snr::mscclpp::parse_plan(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
    (void)snr::mscclpp::summarize(plan);
  } catch (const snr::Error&) {
  }
  return 0;
}
