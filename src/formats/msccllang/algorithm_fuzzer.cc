// Fuzz entry point: arbitrary bytes into the MSCCLang XML reader. Only
// snr::Error is an acceptable failure; an algorithm that reads must summarize.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "formats/msccllang/algorithm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto algorithm =
        snr::msccllang::parse_algorithm(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
    (void)snr::msccllang::summarize(algorithm);
  } catch (const snr::Error&) {
  }
  return 0;
}
