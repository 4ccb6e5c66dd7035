// Whether a recorded window ran the program its symbols were taken from.
// `snr record --elf` / `--model` resolve --break and name the ops from
// that file; if the target runs another program, the breakpoint lands in
// the wrong code and every op name in the analysis belongs to the wrong
// program, with nothing to show it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/snapshot/snapshot.h"

namespace snr::record {

// The executable bytes of one program file.
struct ProgramCode {
  std::string origin;  // the file, for messages
  struct Range {
    uint64_t address = 0;
    std::string bytes;
  };
  std::vector<Range> ranges;
};

// Compares each recorded chip's executed code with `programs[chip]` (one
// entry stands for every chip). Bytes the program does not cover (code
// loaded at run time) are not compared. Throws snr::Error naming the chip,
// the pc and both words at the first difference.
void check_program_code(const snapshot::Snapshot& snapshot, const std::vector<ProgramCode>& programs);

}  // namespace snr::record
