// A program image ready to load into the scalar space: what an ELF file's
// PT_LOAD segments and entry point say, independent of the ELF reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace snr::sim {

struct ProgramSegment {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;  // file contents; memory beyond is zero (bss)
  uint64_t memory_bytes = 0;   // >= bytes.size()
  bool executable = false;
};

struct ProgramImage {
  std::string name;  // for messages
  uint64_t entry = 0;
  std::vector<ProgramSegment> segments;
};

// Builds an image from encoded instruction words at `text_address` (tests
// and the built-in demo use this instead of an ELF file).
ProgramImage program_from_words(const std::vector<uint32_t>& words, uint64_t text_address, std::string name);

// Executed code as one text segment from the lowest to the highest byte of
// `ranges` (gaps zero): a foreign program's 2- and 4-byte instructions
// (`instruction_align_bytes` 2) or the NPU's words (4). Throws snr::Error
// when a range is not whole aligned units, when two ranges disagree on a
// byte (chips running different code), or when the text would span more
// than `max_span_bytes`.
constexpr uint64_t kMaxFlatTextSpanBytes = uint64_t{16} << 20;
struct CodeBytes {
  uint64_t address = 0;
  std::string_view bytes;
};
ProgramImage program_from_code_bytes(const std::vector<CodeBytes>& ranges, uint64_t max_span_bytes, std::string name,
                                     uint64_t instruction_align_bytes = 2);

}  // namespace snr::sim
