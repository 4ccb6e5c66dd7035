// A program image ready to load into the scalar space: what an ELF file's
// PT_LOAD segments and entry point say, independent of the ELF reader.
#pragma once

#include <cstdint>
#include <string>
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

}  // namespace snr::sim
