// Every MSCCL++ plan in ../shared/data/mscclpp lowers, completes without
// deadlock and moves exactly the bytes its collective requires; the lowered
// program's summary at a fixed size matches testdata/<plan>.lowered.txt.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "dsim/loadstore/shared_plan_files.h"
#include "dsim/loadstore/test_util.h"

namespace snr::dsim::loadstore {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> shared_plans() { return testing::shared_plan_files(false); }

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(LoadstoreSharedPlans, EveryPlanLowersAndMovesItsCollectivesBytes) {
  const auto plans = shared_plans();
  if (plans.empty()) GTEST_SKIP() << "no ../shared/data/mscclpp";
  size_t checked = 0;
  for (const fs::path& path : plans) {
    SCOPED_TRACE(path.string());
    mscclpp::Plan plan;
    try {
      plan = mscclpp::read_plan_file(path.string());
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("pre-August-2025 schema"));  // legacy/allreduce_nvls.json
      continue;
    }
    if (plan.variant == mscclpp::Plan::Variant::kConcrete) {
      MscclppLowering options;
      options.input_bytes = 1024;
      EXPECT_THROW(lower_mscclpp(plan, options), Error);
      continue;
    }
    // The smallest exact size and a realistic one (at least 1 MiB).
    const uint64_t small = smallest_exact_input_bytes(plan);
    const uint64_t large = small * (((uint64_t{1} << 20) + small - 1) / small);
    const DataCheckResult result = testing::check_plan(plan, small);
    EXPECT_TRUE(result.ok()) << testing::joined(result);
    EXPECT_TRUE(result.collective_checked) << plan.collective;
    MscclppLowering options;
    options.input_bytes = large;
    const std::string summary = summarize(lower_mscclpp(plan, options));
    const fs::path golden = fs::path(SNR_LOADSTORE_TESTDATA) / (path.stem().string() + ".lowered.txt");
    if (std::getenv("SNR_UPDATE_GOLDEN")) std::ofstream(golden, std::ios::binary) << summary;
    EXPECT_EQ(summary, read_text(golden));
    ++checked;
  }
  EXPECT_GE(checked, 8u);
}

}  // namespace
}  // namespace snr::dsim::loadstore
