// isa_docgen [OUTPUT]: prints docs/isa.md (generated from the ISA table) to
// stdout, or writes it atomically to OUTPUT.
#include <cstdio>
#include <exception>

#include "asm/isa_reference.h"
#include "common/file_io.h"

int main(int argc, char** argv) {
  try {
    const std::string text = snr::assembler::isa_reference_markdown();
    if (argc > 1) {
      snr::write_file_atomic(argv[1], text);
    } else {
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "isa_docgen: %s\n", e.what());
    return 1;
  }
  return 0;
}
