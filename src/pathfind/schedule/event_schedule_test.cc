#include "pathfind/schedule/event_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"

namespace snr::pathfind {
namespace {

// Names of the critical path, first kernel first.
std::vector<std::string> path_names(const ScheduleGraph& g, const Schedule& s) {
  std::vector<std::string> names;
  for (const CriticalStep& step : s.critical_path) names.emplace_back(g.name(step.kernel));
  return names;
}

double path_sum_s(const ScheduleGraph& g, const Schedule& s) {
  double sum = 0;
  for (const CriticalStep& step : s.critical_path) sum += step.gap_s + g.duration_s(step.kernel);
  return sum;
}

TEST(PathfindSchedule, ChainRunsBackToBack) {
  ScheduleGraph g(1, 1);
  g.add("a", 0, 1, {});
  g.add("b", 0, 2, {0});
  g.add("c", 0, 3, {1});
  Schedule s = schedule_events(g);
  EXPECT_EQ(s.makespan_s, 6);
  EXPECT_EQ(s.start_s, (std::vector<double>{0, 1, 3}));
  EXPECT_EQ(s.finish_s, (std::vector<double>{1, 3, 6}));
  EXPECT_EQ(s.stage_busy_s, (std::vector<double>{6}));
  EXPECT_EQ(path_names(g, s), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(s.critical_path[0].cause, StartCause::kGraphStart);
  EXPECT_EQ(s.critical_path[1].cause, StartCause::kDependency);
  EXPECT_EQ(describe_cause(g, s.critical_path[2]), "dependency b finished");
}

TEST(PathfindSchedule, ForkJoinOverThreeStagesWaitsForTheLongerBranch) {
  // a(1) on stage 0 forks b(2) on stage 1 and c(3) on stage 2; d(1) on stage 0 joins.
  ScheduleGraph g(3, 1);
  g.add("a", 0, 1, {});
  g.add("b", 1, 2, {0});
  g.add("c", 2, 3, {0});
  g.add("d", 0, 1, {1, 2});
  Schedule s = schedule_events(g);
  EXPECT_EQ(s.start_s, (std::vector<double>{0, 1, 1, 4}));
  EXPECT_EQ(s.makespan_s, 5);
  EXPECT_EQ(s.stage_busy_s, (std::vector<double>{2, 2, 3}));
  EXPECT_EQ(path_names(g, s), (std::vector<std::string>{"a", "c", "d"}));
  // Other stage, zero transfer time: still reported as the transfer it is.
  EXPECT_EQ(s.critical_path[2].cause, StartCause::kTransfer);
  EXPECT_EQ(s.critical_path[2].gap_s, 0);
}

TEST(PathfindSchedule, TransfersArePaidOnlyAcrossStages) {
  // a(2)@0 -> b(1)@1 (transfer 0.5) and c(1.5)@0 (same stage, free);
  // d(1)@1 needs b (same stage) and c (other stage, transfer 0.25).
  ScheduleGraph g(2, 1);
  g.add("a", 0, 2, {});
  g.add("b", 1, 1, {0}, 0.5);
  g.add("c", 0, 1.5, {0}, 0.5);
  g.add("d", 1, 1, {1, 2}, 0.25);
  Schedule s = schedule_events(g);
  // b: 2 + 0.5 = 2.5 .. 3.5; c: 2 .. 3.5; d: max(3.5, 3.5 + 0.25) = 3.75 .. 4.75.
  EXPECT_EQ(s.start_s, (std::vector<double>{0, 2.5, 2, 3.75}));
  EXPECT_EQ(s.makespan_s, 4.75);
  EXPECT_EQ(path_names(g, s), (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_EQ(s.critical_path[1].cause, StartCause::kDependency);
  EXPECT_EQ(s.critical_path[2].cause, StartCause::kTransfer);
  EXPECT_EQ(s.critical_path[2].gap_s, 0.25);
  EXPECT_EQ(describe_cause(g, s.critical_path[2]), "transfer from stage 0 (c finished, 0.25 s transfer)");
  EXPECT_EQ(path_sum_s(g, s), s.makespan_s);
}

ScheduleGraph diamond(uint32_t k) {
  ScheduleGraph g(1, k);
  g.add("a", 0, 1, {});
  g.add("b", 0, 2, {0});
  g.add("c", 0, 3, {0});
  g.add("d", 0, 1, {1, 2});
  return g;
}

TEST(PathfindSchedule, TwoSlotsRunTheBranchesTogether) {
  ScheduleGraph g = diamond(2);
  Schedule s = schedule_events(g);
  EXPECT_EQ(s.start_s, (std::vector<double>{0, 1, 1, 4}));
  EXPECT_EQ(s.makespan_s, 5);
  EXPECT_EQ(s.stage_busy_s[0], 7);  // kernel-seconds: more than the makespan with k = 2
  EXPECT_EQ(path_names(g, s), (std::vector<std::string>{"a", "c", "d"}));
  for (const CriticalStep& step : s.critical_path) EXPECT_NE(step.cause, StartCause::kStageBusy);
}

TEST(PathfindSchedule, OneSlotMakesTheCriticalPathWaitForTheStage) {
  ScheduleGraph g = diamond(1);
  Schedule s = schedule_events(g);
  // b (lower index) takes the slot at 1; c, ready at 1, waits until 3.
  EXPECT_EQ(s.start_s, (std::vector<double>{0, 1, 3, 6}));
  EXPECT_EQ(s.makespan_s, 7);
  EXPECT_EQ(path_names(g, s), (std::vector<std::string>{"a", "b", "c", "d"}));
  const CriticalStep& c = s.critical_path[2];
  EXPECT_EQ(c.cause, StartCause::kStageBusy);
  EXPECT_EQ(g.name(c.after), "b");
  EXPECT_EQ(c.queued_s, 2);
  EXPECT_EQ(describe_cause(g, c), "stage 0 busy until b finished (queued 2 s)");
  EXPECT_EQ(path_sum_s(g, s), s.makespan_s);
  EXPECT_NE(describe_critical_path(g, s).find("c  stage 0  3 s  <- stage 0 busy until b finished"), std::string::npos);
}

TEST(PathfindSchedule, GpipeTwoStagesThreeMicrobatchesByHand) {
  // Forward 1 s and backward 2 s per stage and microbatch, 0.5 s per hop.
  // Program order: all forwards (stage 0 then stage 1), then the backwards
  // last microbatch first, as GPipe runs them after the flush.
  ScheduleGraph g(2, 1);
  uint32_t f0[3], f1[3], b1[3];
  for (int m = 0; m < 3; ++m) f0[m] = g.add("F0." + std::to_string(m), 0, 1, {});
  for (int m = 0; m < 3; ++m) f1[m] = g.add("F1." + std::to_string(m), 1, 1, {f0[m]}, 0.5);
  for (int m = 2; m >= 0; --m) b1[m] = g.add("B1." + std::to_string(m), 1, 2, {f1[m]});
  for (int m = 2; m >= 0; --m) g.add("B0." + std::to_string(m), 0, 2, {b1[m], f0[m]}, 0.5);
  Schedule s = schedule_events(g);
  // Stage 0 forwards 0-3; stage 1 forwards 1.5-4.5 (first hop 0.5 s);
  // stage 1 backwards 4.5-10.5 back to back; stage 0 backwards start 0.5 s
  // after each stage-1 backward: 7-9, 9-11, 11-13. (m + p - 1)(f + b) + 2 hops.
  EXPECT_EQ(s.makespan_s, (3 + 2 - 1) * (1 + 2) + 2 * 0.5);
  EXPECT_EQ(s.start_s, (std::vector<double>{0, 1, 2, 1.5, 2.5, 3.5, 4.5, 6.5, 8.5, 7, 9, 11}));
  EXPECT_EQ(path_names(g, s), (std::vector<std::string>{"F0.0", "F0.1", "F0.2", "F1.2", "B1.2", "B1.1", "B1.0",
                                                         "B0.0"}));
  std::vector<StartCause> causes;
  for (const CriticalStep& step : s.critical_path) causes.push_back(step.cause);
  EXPECT_EQ(causes, (std::vector<StartCause>{StartCause::kGraphStart, StartCause::kStageBusy, StartCause::kStageBusy,
                                             StartCause::kTransfer, StartCause::kDependency, StartCause::kStageBusy,
                                             StartCause::kStageBusy, StartCause::kTransfer}));
  EXPECT_EQ(s.critical_path[6].queued_s, 8.5 - 2.5);  // B1.0 was ready when F1.0 finished
  EXPECT_EQ(path_sum_s(g, s), s.makespan_s);
  EXPECT_EQ(s.stage_busy_s, (std::vector<double>{9, 9}));
}

TEST(PathfindSchedule, EmptyGraphTakesNoTime) {
  Schedule s = schedule_events(ScheduleGraph(2, 1));
  EXPECT_EQ(s.makespan_s, 0);
  EXPECT_TRUE(s.critical_path.empty());
  EXPECT_EQ(s.stage_busy_s, (std::vector<double>{0, 0}));
}

TEST(PathfindSchedule, MillionKernelWavefront) {
  // Four stages, each a chain; kernel j of stage s also needs kernel j of
  // stage s-1: a pipeline wavefront finishing at chain length + stages - 1.
  constexpr uint32_t kStages = 4, kPerStage = (1u << 20) / kStages;
  ScheduleGraph g(kStages, 1);
  g.reserve(size_t{kStages} * kPerStage, size_t{2} * kStages * kPerStage);
  std::vector<uint32_t> prev(kStages, kNoKernel);
  for (uint32_t j = 0; j < kPerStage; ++j) {
    uint32_t below = kNoKernel;
    for (uint32_t st = 0; st < kStages; ++st) {
      uint32_t deps[2];
      size_t n = 0;
      if (prev[st] != kNoKernel) deps[n++] = prev[st];
      if (below != kNoKernel) deps[n++] = below;
      below = prev[st] = g.add("k", st, 1, std::span<const uint32_t>(deps, n));
    }
  }
  Schedule s = schedule_events(g);
  EXPECT_EQ(s.makespan_s, kPerStage + kStages - 1);
  EXPECT_EQ(s.critical_path.size(), kPerStage + kStages - 1);
  for (double busy : s.stage_busy_s) EXPECT_EQ(busy, kPerStage);
}

void expect_error(const ScheduleGraph& g, const std::string& fragment) {
  try {
    schedule_events(g);
    ADD_FAILURE() << "no error, expected: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(PathfindSchedule, RejectsBadGraphsNamingKernelAndField) {
  expect_error(ScheduleGraph(1, 0), "kernels_per_stage (k) is 0");
  expect_error(ScheduleGraph(0, 1), "stages is 0");
  {
    ScheduleGraph g(2, 1);
    g.add("a", 0, 1, {});
    g.add("far", 2, 1, {0});
    expect_error(g, "kernel 'far' (#1): stage 2 is out of range (2 stages)");
  }
  {
    ScheduleGraph g(1, 1);
    g.add("neg", 0, -1, {});
    expect_error(g, "kernel 'neg' (#0): duration_s is -1");
  }
  {
    ScheduleGraph g(1, 1);
    g.add("nan", 0, std::nan(""), {});
    expect_error(g, "kernel 'nan' (#0): duration_s is nan");
  }
  {
    ScheduleGraph g(1, 1);
    g.add("inf", 0, 1, {}, std::numeric_limits<double>::infinity());
    expect_error(g, "kernel 'inf' (#0): transfer_in_s is inf");
  }
  {
    ScheduleGraph g(1, 1);
    g.add("a", 0, 1, {1});
    g.add("b", 0, 1, {0});
    expect_error(g, "kernel 'a' (#0): dependency 1 is not an earlier kernel");
  }
  {
    ScheduleGraph g(1, 1);
    g.add("self", 0, 1, {0});
    expect_error(g, "kernel 'self' (#0): dependency 0 is not an earlier kernel");
  }
  {
    ScheduleGraph g(1, 1);
    g.add("a", 0, 1, {});
    g.add("b", 0, 1, {7});
    expect_error(g, "kernel 'b' (#1): dependency 7");
  }
}

}  // namespace
}  // namespace snr::pathfind
