// Fuzzes the snapshot container reader and the semantic validator.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/error.h"
#include "formats/snapshot/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  snr::Result<snr::snapshot::Snapshot> snapshot =
      snr::snapshot::decode_snapshot(std::span<const uint8_t>(data, size), "fuzz");
  if (snapshot.ok()) {
    (void)snr::snapshot::validate_snapshot(snapshot.value());
    for (const auto& chip : snapshot.value().chips) {
      try {
        (void)snr::snapshot::decode_pcs(chip);
      } catch (const snr::Error&) {
      }
    }
  }
  return 0;
}
