// `snr disasm file.elf`: objdump-style listing of an ELF executable.
#include <fmt/format.h>

#include "asm/listing.h"
#include "cli/command.h"
#include "common/file_io.h"
#include "common/output.h"
#include "elf/elf.h"

namespace {

void setup_disasm(CLI::App& app, snr::cli::CommandContext& /*ctx*/) {
  auto* sub = app.add_subcommand("disasm", "Disassemble an ELF executable (objdump-style)");
  auto input = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto symbol = std::make_shared<std::string>();
  auto no_aliases = std::make_shared<bool>(false);
  sub->add_option("input", *input, "ELF executable")->required();
  sub->add_option("-o,--output", *output, "Write the listing to this file instead of stdout")
      ->check(snr::cli::not_dash_for_stdout());
  sub->add_option("-s,--symbol", *symbol, "List only this symbol");
  sub->add_flag("--no-aliases", *no_aliases, "Canonical instructions only (as objdump -M no-aliases)");
  snr::cli::set_examples(sub, {"snr disasm prog.elf", "snr disasm prog.elf -s main -o main.lst"});
  sub->callback([input, output, symbol, no_aliases] {
    snr::cli::check_input_file(*input);
    if (!output->empty()) {
      snr::output::check_output_file(*output);
      snr::output::check_output_is_not_input(*output, *input);
    }
    auto image = snr::elf::read_elf_file(*input);
    if (!image.ok()) throw image.error();
    snr::assembler::ListingOptions options;
    options.aliases = !*no_aliases;
    if (!symbol->empty()) options.symbol = *symbol;
    const std::string listing =
        fmt::format("\n{}:     file format elf64-littleriscv\n{}", *input, snr::assembler::disassembly_listing(image.value(), options));
    if (output->empty()) {
      fmt::print("{}", listing);
    } else {
      snr::write_file_atomic(*output, listing);
    }
  });
}

}  // namespace

SNR_REGISTER_COMMAND(disasm, setup_disasm);
