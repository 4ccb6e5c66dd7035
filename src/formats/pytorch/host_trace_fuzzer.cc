// Fuzz entry point: arbitrary bytes into the host execution-trace reader.
// Only snr::Error is an acceptable failure. The verbatim values the reader
// keeps as compact JSON text must be exactly what nlohmann's dump() writes
// for them (writers copy them out unchanged): a difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "formats/pytorch/host_trace.h"

namespace {

void check_canonical(std::string_view text) {
  if (text.empty()) return;  // null
  if (nlohmann::json::parse(text).dump() != text) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto trace = snr::pytorch::parse_host_trace_text(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
    for (const auto& node : trace.nodes) {
      for (const auto* values : {&node.inputs, &node.outputs}) {
        for (const auto& v : *values) {
          check_canonical(v.value);
          check_canonical(v.shape);
          check_canonical(v.stride);
        }
      }
      for (const auto& attr : node.extra_attrs) check_canonical(attr);
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
