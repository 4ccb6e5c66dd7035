#include "record/program_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace snr::record {
namespace {

// Little-endian bytes as a hex word, highest byte first (as a listing
// prints an instruction word).
std::string word_text(const std::string& bytes, uint64_t offset, uint64_t length) {
  std::string out = "0x";
  for (uint64_t i = length; i > 0; --i) out += fmt::format("{:02x}", static_cast<uint8_t>(bytes[offset + i - 1]));
  return out;
}

}  // namespace

void check_program_code(const snapshot::Snapshot& snapshot, const std::vector<ProgramCode>& programs) {
  if (programs.empty()) return;
  for (const snapshot::pb::Chip& chip : snapshot.chips) {
    if (!chip.recorded()) continue;
    const ProgramCode& program = programs.size() == 1 ? programs.front() : programs.at(chip.chip());
    for (const snapshot::pb::CodeRange& code : chip.code()) {
      const uint64_t code_end = code.address() + code.data().size();
      for (const ProgramCode::Range& range : program.ranges) {
        const uint64_t begin = std::max(code.address(), range.address);
        const uint64_t end = std::min(code_end, range.address + range.bytes.size());
        for (uint64_t pc = begin; pc < end; ++pc) {
          const char ran = code.data()[pc - code.address()];
          if (ran == range.bytes[pc - range.address]) continue;
          // Name the aligned 4-byte word (or what of it both hold).
          const uint64_t word = std::max({pc & ~uint64_t{3}, code.address(), range.address});
          const uint64_t length = std::min({uint64_t{4}, code_end - word, range.address + range.bytes.size() - word});
          throw Error(fmt::format(
              "chip {} ran {} at pc {:#x}, where {} has {}: the target runs another program than the one that named "
              "the breakpoint and the ops (give the --elf or --model the target was started with)",
              chip.chip(), word_text(code.data(), word - code.address(), length), word, program.origin,
              word_text(range.bytes, word - range.address, length)));
        }
      }
    }
  }
}

}  // namespace snr::record
