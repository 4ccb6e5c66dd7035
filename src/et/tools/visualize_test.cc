#include "et/tools/visualize.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/test_traces.h"

namespace snr::et {
namespace {

namespace fs = std::filesystem;

class VisualizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("snr_visualize_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    write_file_atomic(dir_ / "s.et",
                      chakra::encode_trace(chakra::testing::sample_metadata(), chakra::testing::sample_nodes()));
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(VisualizeTest, DotHasLabelsAndDistinctEdgeStyles) {
  std::string dot = render_dot(dir_ / "s.et");
  EXPECT_NE(dot.find("n1 [label=\"1: all_reduce_grad\\nCOMM_COLL_NODE\\n1048576 B\\nALL_REDUCE\""), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("n0 [label=\"0: gemm_fwd\\nCOMP_NODE\\n120 us\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("  n0 -> n1;\n"), std::string::npos);
  EXPECT_NE(dot.find("  n0 -> n2 [style=dashed"), std::string::npos);
  EXPECT_EQ(dot, render_dot(dir_ / "s.et"));  // deterministic
}

TEST_F(VisualizeTest, MaxNodesGuardRefusesLargeTraces) {
  VisualizeOptions options;
  options.max_nodes = 5;
  EXPECT_THROW(visualize_trace(dir_ / "s.et", dir_ / "s.dot", options), Error);
  EXPECT_FALSE(fs::exists(dir_ / "s.dot"));
  options.max_nodes = 6;
  EXPECT_EQ(visualize_trace(dir_ / "s.et", dir_ / "s.dot", options), 6u);
}

TEST_F(VisualizeTest, UnknownExtensionIsAnError) {
  EXPECT_THROW(visualize_trace(dir_ / "s.et", dir_ / "s.png"), Error);
}

TEST_F(VisualizeTest, SvgThroughGraphvizWhenInstalled) {
  if (::access("/usr/bin/dot", X_OK) != 0) GTEST_SKIP() << "graphviz dot not installed";
  visualize_trace(dir_ / "s.et", dir_ / "s.svg");
  std::string svg = read_file(dir_ / "s.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("optimizer_step"), std::string::npos);
}

}  // namespace
}  // namespace snr::et
