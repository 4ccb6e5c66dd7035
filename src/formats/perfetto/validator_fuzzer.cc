// libFuzzer entry point: the timeline checker reads traces written by other
// tools, so any byte string must give a report, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/perfetto/trace_validator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto check = snr::perfetto::check_chrome_trace(text);
  (void)check.summary();
  return 0;
}
