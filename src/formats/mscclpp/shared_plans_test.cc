// Every MSCCL++ plan in ../shared/data/mscclpp reads, and its summary matches
// the golden file testdata/shared/<plan>.summary.txt; the legacy plans are
// read (mid-2025 variant) or rejected (camelCase schema) as documented.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "formats/mscclpp/plan_reader.h"

namespace snr::mscclpp {
namespace {

namespace fs = std::filesystem;

fs::path shared_dir() {
  const char* dir = std::getenv("SNR_SHARED_DATA");
  return dir ? fs::path(dir) / "mscclpp" : fs::path();
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(MscclppSharedPlans, EveryCurrentPlanReadsAndMatchesItsGolden) {
  const fs::path dir = shared_dir();
  if (dir.empty() || !fs::is_directory(dir)) GTEST_SKIP() << "no ../shared/data/mscclpp";
  std::vector<fs::path> plans;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") plans.push_back(entry.path());
  }
  std::sort(plans.begin(), plans.end());
  ASSERT_GE(plans.size(), 8u);
  for (const fs::path& path : plans) {
    SCOPED_TRACE(path.string());
    const Plan plan = read_plan_file(path.string());
    const std::string summary = summarize(plan);
    const fs::path golden = fs::path(SNR_MSCCLPP_TESTDATA) / "shared" / (path.stem().string() + ".summary.txt");
    if (std::getenv("SNR_UPDATE_GOLDEN")) {
      std::ofstream(golden, std::ios::binary) << summary;
    }
    EXPECT_EQ(summary, read_text(golden));
  }
}

TEST(MscclppSharedPlans, LegacyPlans) {
  const fs::path dir = shared_dir() / "legacy";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no ../shared/data/mscclpp/legacy";
  const Plan allgather = read_plan_file((dir / "allgather.json").string());
  EXPECT_EQ(allgather.variant, Plan::Variant::kNoSemaphores);
  EXPECT_EQ(allgather.name, "");
  try {
    read_plan_file((dir / "allreduce_nvls.json").string());
    FAIL() << "the camelCase schema must be rejected";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("pre-August-2025 schema (GPU key 'inputChunks')"));
  }
}

}  // namespace
}  // namespace snr::mscclpp
