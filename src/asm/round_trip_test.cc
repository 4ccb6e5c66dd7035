// Generated from the table: for every instruction form, random operands ->
// encode -> disassemble -> assemble must give the same word, in both
// disassembly modes.
#include <gtest/gtest.h>

#include <random>

#include "asm/assembler.h"
#include "isa/disasm.h"
#include "isa/isa.h"
#include "isa/random_operands.h"

namespace snr::assembler {
namespace {

constexpr uint64_t kPc = 0x200000;

uint32_t first_word(const elf::Image& image) {
  const auto& d = image.sections.at(0).data;
  return static_cast<uint32_t>(d.at(0)) | static_cast<uint32_t>(d.at(1)) << 8 | static_cast<uint32_t>(d.at(2)) << 16 |
         static_cast<uint32_t>(d.at(3)) << 24;
}

void round_trip_all(bool aliases) {
  std::mt19937_64 rng(aliases ? 11 : 22);
  isa::DisasmOptions options;
  options.aliases = aliases;
  options.assembler_targets = true;
  for (const auto& row : isa::instruction_table()) {
    for (int i = 0; i < 50; ++i) {
      const uint32_t word = isa::encode(isa::random_operands(row, rng)).value();
      const std::string text = isa::disassemble(isa::decode(word), kPc, options);
      auto image = assemble(text + "\n", {.source_name = "rt.s", .text_base = kPc});
      ASSERT_TRUE(image.ok()) << row.mnemonic << ": '" << text << "': " << image.error().what();
      ASSERT_EQ(image.value().sections.at(0).size_bytes, 4u) << text;
      EXPECT_EQ(first_word(image.value()), word) << "'" << text << "'";
    }
  }
}

TEST(RoundTrip, EveryRowCanonicalSyntax) { round_trip_all(false); }
TEST(RoundTrip, EveryRowAliasSyntax) { round_trip_all(true); }

}  // namespace
}  // namespace snr::assembler
