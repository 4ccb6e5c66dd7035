#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/file_io.h"
#include "elf/elf.h"

namespace snr::elf {
namespace {

std::filesystem::path source_dir() {
  // Set by the test environment (common/test_environment.cc) or ctest.
  const char* dir = std::getenv("SNR_SOURCE_DIR");
  if (dir == nullptr) throw Error("SNR_SOURCE_DIR is not set");
  return dir;
}

Image sample_image() {
  Image image;
  image.entry = 0x10000;
  Section text{.name = ".text", .address = 0x10000, .size_bytes = 8, .align_bytes = 4, .execute = true,
               .data = {0x13, 0x05, 0x50, 0x00, 0x73, 0x00, 0x00, 0x00}};
  Section data{.name = ".data", .address = 0x11008, .size_bytes = 4, .align_bytes = 4, .write = true,
               .data = {1, 2, 3, 4}};
  Section bss{.name = ".bss", .kind = SectionKind::kNoBits, .address = 0x1100c, .size_bytes = 64,
              .align_bytes = 8, .write = true, .data = {}};
  image.sections = {text, data, bss};
  image.symbols = {
      {.name = "_start", .value = 0x10000, .size_bytes = 8, .type = SymbolType::kFunc,
       .binding = SymbolBinding::kGlobal, .section = 0},
      {.name = "layer3.attn.qkv_matmul", .value = 0x10004, .type = SymbolType::kNoType, .section = 0},
      {.name = "table", .value = 0x11008, .size_bytes = 4, .type = SymbolType::kObject, .section = 1},
  };
  return image;
}

TEST(Elf, WriteThenReadRoundTrips) {
  const std::vector<uint8_t> bytes = write_elf(sample_image());
  Image back = read_elf(bytes, "mem").value();
  EXPECT_EQ(back.entry, 0x10000u);
  ASSERT_EQ(back.segments.size(), 3u);
  EXPECT_EQ(back.segments[0].vaddr, 0x10000u);
  EXPECT_EQ(back.segments[0].flags, kSegmentRead | kSegmentExecute);
  EXPECT_EQ(back.segments[0].data.size(), 8u);
  EXPECT_EQ(back.segments[2].mem_bytes, 64u);
  EXPECT_TRUE(back.segments[2].data.empty());
  ASSERT_EQ(back.sections.size(), 3u);
  EXPECT_EQ(back.sections[1].data, (std::vector<uint8_t>{1, 2, 3, 4}));
  ASSERT_EQ(back.symbols.size(), 3u);
  // Locals come first in the file.
  EXPECT_EQ(back.symbols[0].name, "layer3.attn.qkv_matmul");
  const Symbol* start = back.find_symbol("_start");
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->type, SymbolType::kFunc);
  EXPECT_EQ(start->binding, SymbolBinding::kGlobal);
  EXPECT_EQ(start->section, 0);
  // Deterministic bytes.
  EXPECT_EQ(write_elf(sample_image()), bytes);
}

TEST(Elf, GlibcSymbolKindsRoundTrip) {
  // Static glibc binaries carry TLS offsets, IFUNC resolvers and
  // GNU-unique bindings beside ordinary symbols.
  Image image = sample_image();
  image.symbols.push_back({.name = "errno", .value = 0x10, .type = SymbolType::kTls, .section = 1});
  image.symbols.push_back({.name = "memcpy", .value = 0x10000, .type = SymbolType::kGnuIfunc,
                           .binding = SymbolBinding::kGlobal, .section = 0});
  image.symbols.push_back({.name = "unique", .value = 0x11008, .type = SymbolType::kObject,
                           .binding = SymbolBinding::kGnuUnique, .section = 1});
  const Image back = read_elf(write_elf(image), "mem").value();
  ASSERT_NE(back.find_symbol("errno"), nullptr);
  EXPECT_EQ(back.find_symbol("errno")->type, SymbolType::kTls);
  EXPECT_EQ(back.find_symbol("memcpy")->type, SymbolType::kGnuIfunc);
  EXPECT_EQ(back.find_symbol("unique")->binding, SymbolBinding::kGnuUnique);
}

TEST(Elf, EveryTruncationIsAnErrorNotACrash) {
  const std::vector<uint8_t> bytes = write_elf(sample_image());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = read_elf(std::span(bytes.data(), n), "cut");
    // Trailing section data can be cut without harm only if nothing
    // references it; our writer puts the section table last, so every
    // prefix is invalid.
    EXPECT_FALSE(r.ok()) << "prefix of " << n << " bytes parsed";
  }
}

TEST(Elf, CorruptFieldsGivePreciseErrors) {
  const std::vector<uint8_t> good = write_elf(sample_image());
  auto error_of = [&](size_t offset, uint8_t value) {
    std::vector<uint8_t> bad = good;
    bad[offset] = value;
    auto r = read_elf(bad, "bad.elf");
    return r.ok() ? std::string("ok") : std::string(r.error().what());
  };
  EXPECT_EQ(error_of(0, 0), "bad.elf: byte offset 0x0: not an ELF file (bad magic)");
  EXPECT_NE(error_of(4, 1).find("not ELF64"), std::string::npos);
  EXPECT_NE(error_of(18, 62).find("e_machine 62 is not EM_RISCV"), std::string::npos);
  EXPECT_NE(error_of(16, 3).find("ET_DYN"), std::string::npos);
  EXPECT_NE(error_of(63, 0x7f).find("e_shstrndx"), std::string::npos);
  // p_offset of the first program header pointed far past the end.
  EXPECT_NE(error_of(64 + 8 + 3, 0x7f).find("program header 0 contents"), std::string::npos);
}

TEST(Elf, OverlappingSectionsAreRejectedByTheWriter) {
  Image image = sample_image();
  image.sections[1].address = 0x10004;
  EXPECT_THROW(write_elf(image), Error);
}

TEST(Elf, ReadsGlibcStaticProgram) {
  // Built at test time: glibc's static archives carry TLS symbols (errno)
  // that a reader of only the five classic symbol types refuses.
  if (std::system("command -v riscv64-linux-gnu-gcc > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "riscv64-linux-gnu-gcc is not installed (Debian gcc-riscv64-linux-gnu)";
  }
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("snr_elf_glibc_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto source = dir / "main.c", binary = dir / "main";
  std::ofstream(source) << "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n";
  const std::string compile = fmt::format("riscv64-linux-gnu-gcc -O2 -static -o {} {} > /dev/null 2>&1",
                                          binary.string(), source.string());
  if (std::system(compile.c_str()) != 0) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "no static glibc for riscv64 (Debian libc6-dev-riscv64-cross)";
  }
  const auto image = read_elf_file(binary.string());
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(image.ok()) << image.error().what();
  const Symbol* main_symbol = image.value().find_symbol("main");
  ASSERT_NE(main_symbol, nullptr);
  EXPECT_EQ(main_symbol->type, SymbolType::kFunc);
  bool has_tls = false;
  for (const Symbol& s : image.value().symbols) has_tls |= s.type == SymbolType::kTls;
  EXPECT_TRUE(has_tls);
}

TEST(Elf, ReadsGccBuiltProgram) {
  auto image = read_elf_file((source_dir() / "src/elf/testdata/gcc_hello.elf").string()).value();
  const Symbol* start = image.find_symbol("_start");
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(image.entry, start->value);
  EXPECT_EQ(start->type, SymbolType::kFunc);
  ASSERT_NE(image.find_symbol("fib"), nullptr);
  ASSERT_GE(image.segments.size(), 2u);
  bool has_text = false;
  for (const auto& s : image.sections) has_text |= s.name == ".text" && s.execute;
  EXPECT_TRUE(has_text);
}

}  // namespace
}  // namespace snr::elf
