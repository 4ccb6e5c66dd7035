// Run-time launches (gpu_model_launch.cc), with times computed by hand on
// the fixed-latency network: 1 GHz clock (a cycle is 1 ns), local one-way
// 5 ns. A one-line local memcpy with unroll 1 loads at its first cycle, has
// the line back 10 ns later, stores in that cycle and is acknowledged 10 ns
// after: 20 ns from launch to retirement.
#include <gtest/gtest.h>

#include <functional>

#include "common/error.h"
#include "dsim/core/actions_at_for_tests.h"
#include "dsim/gpu/fixed_latency_network.h"
#include "dsim/gpu/one_line_copy_for_tests.h"
#include "dsim/gpu/gpu_model.h"

namespace snr::dsim::gpu {
namespace {

namespace ls = loadstore;

constexpr TimePs kNs = 1000;

GpuConfig one_cu_config() {
  GpuConfig c;
  c.compute_units = 1;
  c.workgroups_per_cu = 1;
  c.clock_ghz = 1.0;
  c.unroll = 1;
  return c;
}

TEST(GpuModelLaunch, KernelsLaunchedAtDifferentTimesShareTheCu) {
  EventLoop loop;
  FixedLatencyNetwork network(loop, 5 * kNs, 500 * kNs);
  GpuModel model(2, one_cu_config(), loop, network);
  const ls::Program copy = one_line_copy();
  ActionsAt at(loop, "test launcher");
  TimePs done_a = 0, done_b = 0, done_c = 0;
  const uint32_t a = model.add_program(copy, {0});
  const uint32_t b = model.add_program(copy, {0});
  const uint32_t c = model.add_program(copy, {1});
  EXPECT_EQ(model.kernels_open(), 3u);
  at.at(0, [&] { model.launch(a, [&](uint32_t) { done_a = loop.now(); }); });
  at.at(5 * kNs, [&] { model.launch(b, [&](uint32_t) { done_b = loop.now(); }); });
  at.at(7 * kNs, [&] { model.launch(c, [&](uint32_t) { done_c = loop.now(); }); });
  loop.run();
  (void)model.finish();
  // A: 0 -> 20. B waits for GPU 0's only slot: placed when A retires at 20,
  // loads at 20, stores at 30, acknowledged at 40. C on GPU 1's own CU:
  // 7 -> 27.
  EXPECT_EQ(done_a, 20 * kNs);
  EXPECT_EQ(done_b, 40 * kNs);
  EXPECT_EQ(done_c, 27 * kNs);
  EXPECT_EQ(model.kernels_open(), 0u);
  // Everything finished: the next program starts the arrays over (its
  // first kernel is 0 again) and runs as if alone.
  const uint32_t d = model.add_program(copy, {1});
  EXPECT_EQ(d, 0u);
  TimePs done_d = 0;
  at.at(100 * kNs, [&] { model.launch(d, [&](uint32_t) { done_d = loop.now(); }); });
  loop.run();
  EXPECT_EQ(done_d, 120 * kNs);
}

TEST(GpuModelLaunch, SemaphoresOfAProgramMeetAcrossLaunches) {
  // Plan GPU 0 puts a line into plan GPU 1 and signals; plan GPU 1 waits,
  // then copies locally. Plan GPU 1's kernel is launched long after plan
  // GPU 0's, while the signal is on its way: the semaphore belongs to the
  // program, not to a kernel, so the late kernel still sees it.
  ls::Program p;
  p.gpus.assign(2, ls::GpuBuffers{1 << 20, 1 << 20, 0, 0});
  p.semaphores.push_back(ls::Semaphore{1, 0, p.add_name("sem")});
  p.kernels.push_back(ls::Kernel{0, 0, 1, 0});
  p.kernels.push_back(ls::Kernel{1, 1, 1, 0});
  ls::GpuOp copy;
  copy.kind = ls::OpKind::kMemcpy;
  copy.bytes = 128;
  ls::GpuOp release;
  release.kind = ls::OpKind::kSemaphoreRelease;
  release.sync = 0;
  ls::GpuOp acquire;
  acquire.kind = ls::OpKind::kSemaphoreAcquire;
  acquire.sync = 0;
  p.workgroups.push_back(ls::Workgroup{0, 0, 2, 1, 0});
  p.add_op(copy, {ls::MemRange{0, ls::Space::kInput, 0, 0, 0}, ls::MemRange{1, ls::Space::kOutput, 0, 0, 0}}, {});
  p.add_op(release, {}, {});
  p.workgroups.push_back(ls::Workgroup{1, 2, 2, 1, 0});
  p.add_op(acquire, {}, {});
  p.add_op(copy, {ls::MemRange{1, ls::Space::kOutput, 0, 0, 0}, ls::MemRange{1, ls::Space::kInput, 0, 0, 0}}, {});

  EventLoop loop;
  FixedLatencyNetwork network(loop, 5 * kNs, 500 * kNs);
  GpuModel model(2, one_cu_config(), loop, network);
  ActionsAt at(loop, "test launcher");
  // Placed on the model's GPUs 1 and 0 (swapped), to check the mapping.
  const uint32_t first = model.add_program(p, {1, 0});
  TimePs done0 = 0, done1 = 0;
  at.at(0, [&] { model.launch(first, [&](uint32_t) { done0 = loop.now(); }); });
  at.at(1200 * kNs, [&] { model.launch(first + 1, [&](uint32_t) { done1 = loop.now(); }); });
  loop.run();
  (void)model.finish();
  // Plan GPU 0: load at 0, back at 10; the remote store at 10 is
  // acknowledged at 1010; the fenced release goes at 1010, reaches the
  // semaphore at 1510 and is acknowledged at 2010.
  EXPECT_EQ(done0, 2010 * kNs);
  // Plan GPU 1 at 1200: its poll (the semaphore is its own) parks at 1205
  // and is answered when the release arrives at 1510, back at 1515; the
  // local copy loads at 1515, stores at 1525, acknowledged at 1535.
  EXPECT_EQ(done1, 1535 * kNs);
}

TEST(GpuModelLaunch, MulticastGroupsOfProgramsInFlightMapToTheirMembers) {
  // B's group 1 is A's group 0 ({0, 1}), which the model already has: B's
  // ranges must name that one, not a group B's count would place after A's.
  EventLoop loop;
  FixedLatencyNetwork network(loop, 5 * kNs, 500 * kNs);
  GpuModel model(2, one_cu_config(), loop, network);
  const uint32_t a = model.add_program(one_switch_reduced_load({{0, 1}}, 0), {0, 1});
  const uint32_t b = model.add_program(one_switch_reduced_load({{1}, {0, 1}}, 1), {0, 1});
  ActionsAt at(loop, "test launcher");
  TimePs done_a = 0, done_b = 0;
  at.at(0, [&] {
    model.launch(a, [&](uint32_t) { done_a = loop.now(); });
    model.launch(b, [&](uint32_t) { done_b = loop.now(); });
  });
  loop.run();
  const RunStats& stats = model.finish();
  // The network has no multicast: one load per member. A loads from GPU 0
  // at 0 and from GPU 1 at 1 (back at 1001), stores at 1001, acknowledged
  // at 1011; B, on the same slot, likewise from 1011: 2022.
  EXPECT_EQ(done_a, 1011 * kNs);
  EXPECT_EQ(done_b, 2022 * kNs);
  EXPECT_EQ(stats.requests, 6u);
}

TEST(GpuModelLaunch, ModelsFromAProgramRefuseRunTimePrograms) {
  EventLoop loop;
  FixedLatencyNetwork network(loop, 5 * kNs, 500 * kNs);
  const ls::Program copy = one_line_copy();
  GpuModel model(copy, one_cu_config(), loop, network);
  EXPECT_THROW(model.add_program(copy, {0}), Error);
  GpuModel launching(1, one_cu_config(), loop, network);
  EXPECT_THROW(launching.add_program(copy, {1}), Error);   // no GPU 1
  EXPECT_THROW(launching.add_program(copy, {0, 0}), Error);  // a one-GPU program on two
  EXPECT_THROW(launching.launch(0, {}), Error);               // nothing added
}

}  // namespace
}  // namespace snr::dsim::gpu
