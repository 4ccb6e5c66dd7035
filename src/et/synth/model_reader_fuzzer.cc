// libFuzzer entry point: synthesis models are files users pass around, so
// any byte string must be rejected with an snr::Error or accepted, never
// crash; an accepted model must also sample.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "et/synth/comm_model.h"
#include "et/synth/sampler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto model = snr::et::synth::comm_model_from_json(text, "fuzz input");
    (void)snr::et::synth::sample_master_trace(model, {.npus = 4, .seed = 1, .length = 16});
  } catch (const snr::Error&) {
  }
  return 0;
}
