#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "asm/isa_reference.h"
#include "common/file_io.h"

namespace snr::assembler {
namespace {

TEST(IsaReference, CommittedDocsMatchTheTable) {
  const char* env = std::getenv("SNR_SOURCE_DIR");
  ASSERT_NE(env, nullptr) << "SNR_SOURCE_DIR is not set";
  const std::filesystem::path root = env;
  const std::string committed = read_file(root / "docs" / "isa.md");
  EXPECT_TRUE(committed == isa_reference_markdown())
      << "docs/isa.md is stale; regenerate: cmake --build build --target isa_docgen && "
         "build/src/asm/isa_docgen docs/isa.md";
}

}  // namespace
}  // namespace snr::assembler
