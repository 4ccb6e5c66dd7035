// Fuzz target for what `snr pathfind predict` reads from users: the first
// byte picks the workload YAML reader or the parallelism string parser; a
// strategy that parses is also predicted for a small GEMM on the a100-80gb
// preset when it needs at most 64 devices. Only snr::Error may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "pathfind/predict/predict.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  using namespace snr::pathfind;
  try {
    if (data[0] % 2 == 0) {
      (void)parse_workload_yaml(text, "fuzz.yaml");
    } else {
      PredictInputs in;
      in.strategy = parse_strategy(text);
      if (in.strategy.devices() <= 64) {
        in.device = device_preset("a100-80gb");
        in.workload.name = "fuzz";
        in.workload.kind = WorkloadKind::kGemm;
        in.workload.gemm = {512, 512, 512};
        (void)predict(in);
      }
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
