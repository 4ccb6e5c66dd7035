#include "formats/chakra/rank_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/error.h"

namespace snr::chakra {
namespace {

namespace fs = std::filesystem;

TEST(RankFiles, PathFollowsChakraNaming) {
  EXPECT_EQ(rank_trace_path("out/llama", 12).string(), "out/llama.12.et");
}

TEST(RankFiles, DiscoversRanksInNumericOrderAndIgnoresLookalikes) {
  fs::path dir = fs::temp_directory_path() / ("snr_rank_files_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* name : {"w.0.et", "w.1.et", "w.10.et", "w.2.et", "w.01.et", "w.x.et", "wx.3.et", "w.3.et.gz"}) {
    std::ofstream(dir / name) << "x";
  }
  auto found = discover_rank_traces(dir / "w");
  std::vector<uint64_t> ranks;
  for (const auto& f : found) ranks.push_back(f.rank);
  EXPECT_EQ(ranks, (std::vector<uint64_t>{0, 1, 2, 10}));
  try {
    resolve_trace_argument(dir / "w");
    FAIL() << "expected a gap error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 3 is missing"), std::string::npos) << e.what();
  }
  auto single = resolve_trace_argument(dir / "w.10.et");
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].rank, 10u);
  EXPECT_THROW(resolve_trace_argument(dir / "nothing"), Error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace snr::chakra
