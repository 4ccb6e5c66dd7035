// libFuzzer entry: decode every 32-bit word of the input, disassemble it,
// compute its accesses with register values taken from the input, and
// check that legal words re-encode to themselves.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "isa/access.h"
#include "isa/disasm.h"
#include "isa/isa.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::array<uint64_t, 32> x{};
  for (size_t i = 0; i < 32 && (i + 1) * 8 <= size; ++i) std::memcpy(&x[i], data + i * 8, 8);
  snr::isa::Accesses accesses;
  for (size_t offset = 0; offset + 4 <= size; offset += 4) {
    uint32_t word = 0;
    std::memcpy(&word, data + offset, 4);
    const snr::isa::DecodedInstruction d = snr::isa::decode(word);
    (void)snr::isa::disassemble(d, offset);
    snr::isa::compute_accesses(d, std::span<const uint64_t, 32>(x), accesses);
    if (d.valid()) {
      auto re = snr::isa::encode(d);
      if (!re.ok() || re.value() != word) __builtin_trap();
    }
  }
  return 0;
}
