// libFuzzer entry: the ELF reader must reject any input cleanly.
#include <cstddef>
#include <cstdint>
#include <span>

#include "elf/elf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto image = snr::elf::read_elf(std::span<const uint8_t>(data, size), "fuzz");
  if (image.ok() && image.value().sections.size() < 64) {
    // Whatever parses must be writable when it is self-consistent.
    try {
      (void)snr::elf::write_elf(image.value());
    } catch (const snr::Error&) {
    }
  }
  return 0;
}
