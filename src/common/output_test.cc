#include "common/output.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>

#include "common/error.h"
#include "common/file_io.h"
#include "common/progress.h"

namespace snr::output {
namespace {
namespace fs = std::filesystem;

class OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt_dir();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string fmt_dir() { return "snr_output_test." + std::to_string(::getpid()); }
  [[nodiscard]] size_t entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(dir_)) ++n;
    return n;
  }
  fs::path dir_;
};

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(OutputTest, FileChecksCreateParentsAndRejectDirectoriesAndFileParents) {
  check_output_file(dir_ / "a/b/out.db");
  EXPECT_TRUE(fs::is_directory(dir_ / "a/b"));
  EXPECT_EQ(entries(), 2u);  // no probe left behind
  EXPECT_NE(message_of([&] { check_output_file(dir_ / "a"); }).find("is a directory"), std::string::npos);
  std::ofstream(dir_ / "plain") << "x";
  const std::string parent_is_file = message_of([&] { check_output_file(dir_ / "plain/out.db", "-o"); });
  EXPECT_NE(parent_is_file.find("-o"), std::string::npos);
  EXPECT_NE(parent_is_file.find("plain"), std::string::npos);
  EXPECT_NE(message_of([&] { check_output_directory(dir_ / "plain"); }).find("not a directory"), std::string::npos);
  EXPECT_NE(message_of([&] { check_output_prefix(dir_ / "a"); }).find("is a directory"), std::string::npos);
}

TEST_F(OutputTest, StagedOutputsAppearOnlyOnCommit) {
  {
    StagedFile file(dir_ / "f.txt");
    std::ofstream(file.path()) << "half";
  }
  EXPECT_EQ(entries(), 0u);
  {
    StagedDirectory out(dir_ / "out");
    std::ofstream(out.path() / "manifest.json") << "{}";
    EXPECT_FALSE(fs::exists(dir_ / "out/manifest.json"));
    out.commit();
  }
  EXPECT_TRUE(fs::exists(dir_ / "out/manifest.json"));
  {
    StagedPrefix prefix(dir_ / "out/trace");
    std::ofstream(prefix.staged_prefix().string() + ".0.et") << "r0";
    std::ofstream(prefix.staged_prefix().string() + ".1.et") << "r1";
    prefix.commit();
  }
  EXPECT_EQ(read_file(dir_ / "out/trace.1.et"), "r1");
  EXPECT_EQ(entries(), 4u);  // out, manifest.json, trace.0.et, trace.1.et
}

TEST_F(OutputTest, InterruptRemovesStaging) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    install_interrupt_cleanup();
    auto* staged = new StagedPrefix(dir_ / "t");  // NOLINT: the signal ends the process
    for (int i = 0; i < 300; ++i) std::ofstream(staged->staged_prefix().string() + "." + std::to_string(i) + ".et") << i;
    fs::create_directories(staged->staging_directory() / "sub");
    std::ofstream(staged->staging_directory() / "sub/x") << "x";
    ::raise(SIGINT);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_EQ(entries(), 0u);
}

TEST_F(OutputTest, FitsRefusesWhatCannotFit) {
  EXPECT_NO_THROW(check_output_fits(dir_ / "x", 1000, 1, "tiny"));
  EXPECT_NE(message_of([&] { check_output_fits(dir_ / "x", UINT64_MAX / 2, 1, "huge output"); }).find("huge output"),
            std::string::npos);
}

TEST_F(OutputTest, ShownPathsNameTheTargetNotTheStaging) {
  StagedDirectory staged(dir_ / "report");
  const std::string line = "wrote " + (staged.path() / "index.html").string() + " and " + staged.path().string();
  EXPECT_EQ(shown_path_text(line, staged),
            "wrote " + (dir_ / "report" / "index.html").string() + " and " + (dir_ / "report").string());
  EXPECT_EQ(shown_path_text("no path here", staged), "no path here");
}

TEST(Progress, LineHasRateAndEta) {
  EXPECT_EQ(ProgressMeter::format_line(500, 2000, "ranks", 2.0), "500/2000 ranks, 250.0/s, ETA 6 s");
  EXPECT_EQ(ProgressMeter::format_line(2000, 2000, "ranks", 1.0), "2000/2000 ranks, 2.0k/s");
  EXPECT_EQ(ProgressMeter::format_line(1, 1000000, "files", 1.0), "1/1000000 files, 1.0/s, ETA 277 h 46 min");
}

}  // namespace
}  // namespace snr::output
