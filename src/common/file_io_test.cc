#include "common/file_io.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/scratch_dir.h"

namespace snr {
namespace {

TEST(FileIo, AtomicWriteLeavesNothingWhenNotCommitted) {
  auto dir = snr::testing::scratch_path("file_io");
  std::filesystem::create_directories(dir);
  auto target = dir / "out.bin";
  std::filesystem::remove(target);
  {
    AtomicFileWriter writer(target);
    writer.write("partial");
  }
  EXPECT_FALSE(std::filesystem::exists(target));
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ADD_FAILURE() << "leftover temporary file " << entry.path();
  }
  write_file_atomic(target, "complete");
  EXPECT_EQ(read_file(target), "complete");
  std::filesystem::remove_all(dir);
}

TEST(FileIo, MissingFileNamesPath) {
  try {
    (void)read_file("/nonexistent/snr/file");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/snr/file"), std::string::npos);
  }
}

}  // namespace
}  // namespace snr
