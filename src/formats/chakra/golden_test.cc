// Golden file: the sample trace as snr writes it. A change here is a change
// to the bytes on disk that other tools read — regenerate deliberately with
// SNR_UPDATE_GOLDEN=1 and review the diff of the jsonized golden too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/file_io.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/test_traces.h"

namespace snr::chakra {
namespace {

std::filesystem::path golden_path() {
  // SNR_SOURCE_DIR when the test runner sets it, else the configured tree.
  const char* source = std::getenv("SNR_SOURCE_DIR");
  return std::filesystem::path(source != nullptr ? source : SNR_TEST_SOURCE_DIR) /
         "src/formats/chakra/testdata/sample.0.et";
}

TEST(ChakraGolden, SampleTraceEncodesToTheCheckedInBytes) {
  std::string encoded = encode_trace(testing::sample_metadata(), testing::sample_nodes());
  if (std::getenv("SNR_UPDATE_GOLDEN") != nullptr) write_file_atomic(golden_path(), encoded);
  ASSERT_TRUE(std::filesystem::exists(golden_path())) << golden_path();
  EXPECT_EQ(read_file(golden_path()), encoded);
  EtTrace trace = read_trace(golden_path());
  ASSERT_EQ(trace.nodes.size(), 6u);
  EXPECT_EQ(trace.nodes[5].name(), "optimizer_step");
}

}  // namespace
}  // namespace snr::chakra
