// libFuzzer entry: the assembler must turn any text into an image or a
// clean error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "asm/assembler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto image = snr::assembler::assemble(text, {.source_name = "fuzz.s"});
  if (image.ok()) (void)snr::elf::write_elf(image.value());
  return 0;
}
