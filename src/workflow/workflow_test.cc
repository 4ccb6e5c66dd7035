// Unit tests of the workflow building blocks; the pipelines themselves run end to
// end in tests/e2e (test_analyze_*.sh, test_demo.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

#include "common/error.h"
#include "common/file_io.h"
#include "common/scratch_dir.h"
#include "formats/snapshot/shared_snapshot.h"
#include "formats/snapshot/snapshot.h"
#include "workflow/analyze_run.h"
#include "workflow/demo.h"
#include "workflow/stages.h"

namespace snr::workflow {
namespace {

std::filesystem::path source_dir() {
  const char* source = std::getenv("SNR_SOURCE_DIR");
  return source != nullptr ? source : ".";
}

TEST(Workflow, BuiltInSpecIsTheExampleFile) {
  EXPECT_EQ(default_spec_yaml(), read_file(source_dir() / "examples/llm-decode.yaml"));
}

TEST(Workflow, FindsTheSnapshotNamedInRunDbMeta) {
  const std::filesystem::path dir = snr::testing::scratch_path("workflow");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  snapshot::Snapshot original;
  write_file_atomic(dir / "w.snr", snapshot::encode_snapshot(original));
  const std::string identity =
      snapshot::snapshot_identity((dir / "w.snr").string(), snapshot::read_snapshot_shared((dir / "w.snr").string()).value());
  EXPECT_TRUE(identity.starts_with("w.snr fnv1a64 0x")) << identity;
  EXPECT_EQ(identity.size(), std::string("w.snr fnv1a64 0x").size() + 16);
  const auto found = find_source_snapshot(identity, dir / "run.db");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->path, dir / "w.snr");
  // Same name, other contents: not the snapshot the run came from.
  snapshot::Snapshot other;
  other.header.mutable_stats()->set_instructions(5);
  write_file_atomic(dir / "w.snr", snapshot::encode_snapshot(other));
  EXPECT_FALSE(find_source_snapshot(identity, dir / "run.db").has_value());
  // Not a snapshot at all.
  write_file_atomic(dir / "w.snr", "not a snapshot");
  EXPECT_FALSE(find_source_snapshot(identity, dir / "run.db").has_value());
  EXPECT_FALSE(find_source_snapshot("", dir / "run.db").has_value());
  EXPECT_FALSE(find_source_snapshot("missing.snr fnv1a64 0x0000000000000001", dir / "run.db").has_value());
  std::filesystem::remove_all(dir);
}

TEST(Workflow, SummaryNamesTopStallsVmemAndSuggestions) {
  analyze::Analysis a;
  a.summary.chips = 2;
  a.summary.machine_chips = 2;
  a.summary.total_cycles = 2000;
  a.summary.clock_hz = 1e9;
  a.summary.instructions = 700;
  a.summary.dma_stall_cycles = 1000;
  a.summary.dma_base_stall_cycles = 800;
  a.summary.dma_transfer_stall_cycles = 200;
  a.stalls_by_op = {{"small", 1, 64, 10, 0, 0}, {"all_gather.setup", 6, 384, 790, 200, 0}};
  analyze::VmemUsage v;
  v.chip = 0;
  v.median_unused_fraction = 0.47;
  v.median_largest_unused_fraction = 0.25;
  a.vmem.push_back(v);
  analyze::Suggestion s;
  s.text = "issue the heads of the 3 chains together";
  s.predicted_saving_cycles = 600;
  s.verification.attempted = true;
  s.verification.legal = true;
  s.verification.baseline_cycles = 2000;
  s.verification.rewritten_cycles = 1500;
  s.verification.measured_saving_cycles = 500;
  s.verification.final_state_matched = true;
  a.suggestions.push_back(s);
  // Both savings with thousands separators, a small misprediction to a tenth.
  s.predicted_saving_cycles = 88260;
  s.verification.baseline_cycles = 1115828;
  s.verification.measured_saving_cycles = 88620;
  a.suggestions.push_back(s);
  const std::string text = format_summary(a, 3);
  EXPECT_NE(text.find("window: 2 chip(s), 2,000 cycles (2.0 µs at 1000 MHz), 700 instructions"), std::string::npos) << text;
  EXPECT_NE(text.find("(80.0% base latency, 20.0% transfer)"), std::string::npos) << text;
  // Largest stall first.
  EXPECT_LT(text.find("all_gather.setup"), text.find("small")) << text;
  EXPECT_NE(text.find("VMEM chip 0: median unused 47.0%, median largest contiguous unused 25.0%"), std::string::npos);
  EXPECT_NE(text.find("predicted 600 cycles / verified 500 cycles (25.0% of the window, same end state, "
                      "predicted +20.0%)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("predicted 88,260 cycles / verified 88,620 cycles (7.9% of the window, same end state, "
                      "predicted -0.4%)"),
            std::string::npos)
      << text;
}

TEST(Workflow, VerifiedSuggestionsRankByVerifiedSaving) {
  // In predicted order: a (not verified), b (illegal), c (verified, saves
  // 100), d (verified, saves 900), e (not verified).
  auto make = [](std::string name, uint64_t predicted, bool attempted, bool legal, int64_t measured) {
    analyze::Suggestion s;
    s.text = std::move(name);
    s.predicted_saving_cycles = predicted;
    s.verification.attempted = attempted;
    s.verification.legal = legal;
    s.verification.measured_saving_cycles = measured;
    return s;
  };
  std::vector<analyze::Suggestion> list = {make("a", 5000, false, false, 0), make("b", 4000, true, false, 0),
                                           make("c", 3000, true, true, 100), make("d", 2000, true, true, 900),
                                           make("e", 1000, false, false, 0)};
  rank_by_verified_saving(list);
  std::string order;
  for (const auto& s : list) order += s.text;
  EXPECT_EQ(order, "dcaeb");
}

TEST(Workflow, StageTimesAddUp) {
  std::vector<StageTime> stages;
  std::vector<std::string> lines;
  const Progress progress = [&lines](const std::string& line) { lines.push_back(line); };
  StageTimer timer(stages, "compile", progress);
  const double seconds = timer.finish("36 ops");
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages[0].name, "compile");
  EXPECT_GE(seconds, 0.0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("compile: 36 ops (")) << lines[0];
  EXPECT_EQ(format_stage_times({{"record", 1.25}, {"replay", 2.0}}), "record 1.2 s, replay 2.0 s, total 3.2 s");
}

// Stages beside others are marked, and the run's own wall time is the total.
TEST(Workflow, BackgroundStagesAreMarkedAndReportedByTheCaller) {
  std::vector<StageTime> stages;
  std::vector<std::string> lines;
  const Progress progress = [&lines](const std::string& line) { lines.push_back(line); };
  BackgroundStage stage("save snapshot");
  std::thread([&stage] { stage.finish("551 MB"); }).join();
  EXPECT_TRUE(lines.empty());  // nothing reported from the other thread
  stage.report(stages, progress);
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_TRUE(stages[0].background);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("save snapshot: 551 MB (")) << lines[0];
  EXPECT_EQ(format_stage_times({{"replay", 2.0}, {"save snapshot", 3.0, true}}, 3.5),
            "replay 2.0 s, save snapshot 3.0 s (background), total 3.5 s");
}

// Every job runs once, never more than the threads asked for at a time, and
// the first failure in job order is rethrown after all have run.
TEST(Workflow, JobsRunAtMostTheThreadsAskedFor) {
  std::atomic<int> running = 0, most = 0, done = 0;
  std::vector<std::function<void()>> jobs;
  for (int k = 0; k < 6; ++k) {
    jobs.emplace_back([&, k] {
      const int now = ++running;
      for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --running;
      ++done;
      if (k == 2) throw Error("job 2 failed");
      if (k == 4) throw Error("job 4 failed");
    });
  }
  try {
    run_at_most(jobs, 2);
    FAIL() << "expected job 2's error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "job 2 failed");
  }
  EXPECT_EQ(done.load(), 6);
  EXPECT_LE(most.load(), 2);
  if (std::thread::hardware_concurrency() > 1) {
    EXPECT_EQ(most.load(), 2);
  }
  // One at a time (snr demo's verifications), and 0 taken as 1.
  for (const size_t threads : {size_t{1}, size_t{0}}) {
    running = 0;
    most = 0;
    done = 0;
    EXPECT_THROW(run_at_most(jobs, threads), Error);
    EXPECT_EQ(done.load(), 6);
    EXPECT_EQ(most.load(), 1);
  }
}

}  // namespace
}  // namespace snr::workflow
