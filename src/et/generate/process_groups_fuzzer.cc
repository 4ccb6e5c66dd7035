// libFuzzer entry point: ASTRA-sim comm-group files come from users, so any
// byte string must be rejected with snr::Error or accepted; what is accepted
// must survive writing and reading back unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "et/generate/workload_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the rank count, so small and large worlds are tried.
  const snr::et::Rank npus = 1 + data[0] % 64;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const auto groups = snr::et::ProcessGroups::from_json(text, npus, "fuzz");
    const std::string written = groups.to_json();
    const auto again = snr::et::ProcessGroups::from_json(written, npus, "fuzz (written back)");
    if (again.to_json() != written) __builtin_trap();
  } catch (const snr::Error&) {
  }
  return 0;
}
