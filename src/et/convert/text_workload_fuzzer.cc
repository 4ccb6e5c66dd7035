// Fuzz entry point for `snr et convert --from text`: an ASTRA-sim text
// workload (a header line, a layer count, one line per layer) read and
// converted for two ranks over two passes. Only snr::Error is an acceptable
// failure, and every node's dependencies must name nodes written before it.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "common/error.h"
#include "et/convert/text_workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto workload = snr::et_convert::parse_text_workload(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.txt");
    for (int64_t rank = 0; rank < 2; ++rank) {
      const auto graph = snr::et_convert::convert_text_workload(workload, rank, 2);
      std::set<uint64_t> written;
      for (const auto& node : graph.nodes) {
        for (const uint64_t dep : node.data_deps) {
          if (written.count(dep) == 0) __builtin_trap();
        }
        for (const uint64_t dep : node.ctrl_deps) {
          if (written.count(dep) == 0) __builtin_trap();
        }
        written.insert(node.id);
      }
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
