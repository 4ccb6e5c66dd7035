// libFuzzer target for the spec YAML reader: any input must either parse
// and validate, or fail with snr::Error; never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "compiler/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    snr::compiler::Spec spec = snr::compiler::parse_spec_yaml(text, "fuzz.yaml");
    spec.validate();
    (void)spec.to_text();
  } catch (const snr::Error&) {
  }
  return 0;
}
