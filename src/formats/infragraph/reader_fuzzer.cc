// Fuzz entry point: arbitrary bytes into the InfraGraph reader, then the
// writer and the reader again. Only snr::Error is an acceptable failure,
// and whatever reads must read back the same after writing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/error.h"
#include "formats/infragraph/infragraph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace snr::infragraph;
  Infrastructure infra;
  try {
    infra = parse_infrastructure(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
  } catch (const snr::Error&) {
    return 0;
  }
  for (auto format : {OutputFormat::kYaml, OutputFormat::kJson}) {
    const Infrastructure again = parse_infrastructure(write_document(infra, format), "fuzz-output");
    if (!(again == infra)) std::abort();
  }
  return 0;
}
