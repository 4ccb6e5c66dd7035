// `snr asm file.s -o file.elf`: assemble NPU/RISC-V source into an ELF executable.
#include <fmt/format.h>

#include "asm/assembler.h"
#include "cli/command.h"
#include "common/error.h"
#include "common/output.h"
#include "common/file_io.h"
#include "elf/elf.h"
#include "isa/address_map.h"

namespace {

void setup_asm(CLI::App& app, snr::cli::CommandContext& /*ctx*/) {
  auto* sub = app.add_subcommand("asm", "Assemble NPU/RISC-V assembly into an ELF executable");
  auto input = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto text_base = std::make_shared<uint64_t>(snr::isa::kDefaultTextBase);
  sub->add_option("input", *input, "Assembly source (.s)")->required();
  sub->add_option("-o,--output", *output, "Output ELF file")->required();
  sub->add_option("--text-base", *text_base,
                  "Address of .text (default 0x10000), 4-byte aligned; the sections must end inside the scalar space "
                  "(below 0x10000000)")
      ->check(snr::cli::in_range(0, snr::isa::kScalarLimit - 4));
  snr::cli::set_examples(sub, {"snr asm prog.s -o prog.elf", "snr asm prog.s -o prog.elf --text-base 0x20000"});
  sub->callback([input, output, text_base] {
    if (*text_base % 4 != 0) throw snr::Error(fmt::format("--text-base {:#x}: must be 4-byte aligned", *text_base));
    snr::cli::check_input_file(*input);
    snr::output::check_output_file(*output);
    snr::output::check_output_is_not_input(*output, *input);
    const std::string source = snr::read_file(*input);
    auto bytes = snr::assembler::assemble_to_elf(source, {.source_name = *input, .text_base = *text_base});
    if (!bytes.ok()) throw bytes.error();
    const auto& data = bytes.value();
    snr::write_file_atomic(*output, std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
  });
}

}  // namespace

SNR_REGISTER_COMMAND(asm, setup_asm);
