// Fuzz entry point for `snr et link`: one JSON document {"host": ET,
// "kineto": KINETO} through both readers, every matcher and the checks
// (wall-clock parsing included). Only snr::Error is an acceptable failure.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "et/convert/trace_linker.h"
#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/json_input.h"
#include "formats/pytorch/kineto_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto document = snr::pytorch::parse_json_document(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
    if (!document.is_object() || !document.contains("host") || !document.contains("kineto")) return 0;
    const auto host = snr::pytorch::parse_host_trace(document["host"], "fuzz-host");
    const auto device = snr::pytorch::parse_kineto_trace(document["kineto"], "fuzz-kineto");
    snr::et_convert::LinkOptions options;
    options.min_linked_fraction = 0.0;
    snr::et_convert::LinkStats stats;
    const auto linked = snr::et_convert::link_traces(host, device, options, stats);
    (void)snr::et_convert::describe(stats);
    (void)linked;
  } catch (const snr::Error&) {
  }
  return 0;
}
