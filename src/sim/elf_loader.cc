#include "sim/elf_loader.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::sim {

ProgramImage program_from_elf(const elf::Image& image, std::string name) {
  ProgramImage program;
  program.name = std::move(name);
  program.entry = image.entry;
  for (const elf::Segment& segment : image.segments) {
    ProgramSegment out;
    out.address = segment.vaddr;
    out.bytes = segment.data;
    out.memory_bytes = segment.mem_bytes;
    out.executable = (segment.flags & elf::kSegmentExecute) != 0;
    program.segments.push_back(std::move(out));
  }
  if (program.segments.empty()) throw Error(fmt::format("{}: no PT_LOAD segments", program.name));
  return program;
}

ProgramImage program_from_builder(const assembler::ProgramBuilder& builder, std::string name) {
  Result<elf::Image> image = builder.build();
  if (!image.ok()) throw Error(fmt::format("{}: {}", name, image.error().what()));
  ProgramImage program;
  program.name = std::move(name);
  program.entry = image.value().entry;
  for (const elf::Section& section : image.value().sections) {
    if (section.size_bytes == 0) continue;
    program.segments.push_back({section.address, section.data, section.size_bytes, section.execute});
  }
  return program;
}

ProgramImage load_elf_program(const std::string& path) {
  return program_from_elf(elf::read_elf_file(path).value(), path);
}

}  // namespace snr::sim
