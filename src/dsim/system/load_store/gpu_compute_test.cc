// Compute nodes as ReduceOp kernels on the GPU domain (gpu_compute.h), on
// the fixed-latency network of gpu_domain_test.cc: 1 GHz (a cycle is 1 ns),
// local one-way 5.25 ns, so a one-line local copy takes 21.5 ns.
#include "dsim/system/load_store/gpu_compute.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/error.h"
#include "dsim/core/actions_at_for_tests.h"
#include "dsim/gpu/fixed_latency_network.h"
#include "dsim/gpu/one_line_copy_for_tests.h"

namespace snr::dsim::load_store {
namespace {

namespace ls = loadstore;

gpu::GpuConfig config(uint32_t compute_units, uint32_t workgroups_per_cu) {
  gpu::GpuConfig c;
  c.compute_units = compute_units;
  c.workgroups_per_cu = workgroups_per_cu;
  c.clock_ghz = 1.0;
  c.unroll = 1;
  return c;
}

GpuDomain::NetworkFactory fixed_latency() {
  return [](EventLoop& ps_loop) { return std::make_unique<gpu::FixedLatencyNetwork>(ps_loop, 5250, 500'000); };
}

std::vector<uint32_t> reduce_cycles_per_workgroup(const ls::Program& kernel) {
  std::vector<uint32_t> cycles;
  for (const ls::Workgroup& wg : kernel.workgroups) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < wg.op_count; ++i) {
      const ls::GpuOp& op = kernel.ops[wg.first_op + i];
      EXPECT_EQ(op.kind, ls::OpKind::kReduce);
      EXPECT_FALSE(op.chained());
      sum += op.reduce_cycles;
    }
    cycles.push_back(static_cast<uint32_t>(sum));
  }
  return cycles;
}

TEST(GpuCompute, KernelKeepsEveryAluBusyForTheDuration) {
  EventLoop ns_loop;
  GpuDomain domain(ns_loop, 1, config(4, 2), fixed_latency());
  // One workgroup per CU (the default): each computes the whole duration.
  EXPECT_EQ(reduce_cycles_per_workgroup(GpuCompute(domain, config(4, 2), 0).kernel_for(100)),
            (std::vector<uint32_t>{100, 100, 100, 100}));
  // Two per CU share its ALU: half each.
  EXPECT_EQ(reduce_cycles_per_workgroup(GpuCompute(domain, config(4, 2), 8).kernel_for(100)),
            std::vector<uint32_t>(8, 50));
  // Fewer workgroups than CUs: each still the whole duration.
  EXPECT_EQ(reduce_cycles_per_workgroup(GpuCompute(domain, config(4, 2), 2).kernel_for(100)),
            (std::vector<uint32_t>{100, 100}));
  // 6 over 4 CUs: 100 x 4 / 6 = 66.7, rounded up.
  EXPECT_EQ(reduce_cycles_per_workgroup(GpuCompute(domain, config(4, 2), 6).kernel_for(100)),
            std::vector<uint32_t>(6, 67));
}

TEST(GpuCompute, RoundsUpToWholeCycles) {
  EventLoop ns_loop;
  gpu::GpuConfig c = config(1, 1);
  c.clock_ghz = 1.5;  // 667 ps cycles
  GpuDomain domain(ns_loop, 1, c, fixed_latency());
  // 10 ns = 10,000 ps = 14.99 cycles -> 15 (10,005 ps, reported at 11 ns).
  EXPECT_EQ(reduce_cycles_per_workgroup(GpuCompute(domain, c, 0).kernel_for(10)), std::vector<uint32_t>{15});
}

TEST(GpuCompute, AWorkgroupsShareIsAChainOfSlices) {
  EventLoop ns_loop;
  GpuDomain domain(ns_loop, 1, config(1, 1), fixed_latency());
  const ls::Program kernel = GpuCompute(domain, config(1, 1), 0, 40).kernel_for(100);
  ASSERT_EQ(kernel.workgroups.size(), 1u);
  ASSERT_EQ(kernel.workgroups[0].op_count, 3u);
  EXPECT_EQ(kernel.ops[0].reduce_cycles, 40u);
  EXPECT_EQ(kernel.ops[1].reduce_cycles, 40u);
  EXPECT_EQ(kernel.ops[2].reduce_cycles, 20u);
  // 5 s = 5e9 cycles does not fit one op's 32-bit count either way.
  const ls::Program long_kernel = GpuCompute(domain, config(1, 1), 0, UINT32_MAX).kernel_for(5'000'000'000);
  EXPECT_EQ(long_kernel.workgroups[0].op_count, 2u);
  EXPECT_EQ(uint64_t{long_kernel.ops[0].reduce_cycles} + long_kernel.ops[1].reduce_cycles, 5'000'000'000u);
}

struct ComputeRun {
  EventLoop ns_loop;
  GpuDomain domain;
  GpuCompute compute;
  ActionsAt side{ns_loop, "test system layer"};
  ComputeRun(const gpu::GpuConfig& c, uint32_t gpus, uint32_t workgroups, uint32_t slice_cycles = UINT32_MAX)
      : domain(ns_loop, gpus, c, fixed_latency()), compute(domain, c, workgroups, slice_cycles) {}
  // A compute node started at `at_ns`; its end lands in `end_ns`.
  void node_at(TimeNs at_ns, NpuId npu, uint64_t duration_ns, TimeNs& end_ns) {
    side.at(at_ns, [this, npu, duration_ns, &end_ns] {
      compute.start_compute(npu, duration_ns, [&end_ns](TimeNs done_ns) { end_ns = done_ns; });
    });
  }
  void copy_at(TimeNs at_ns, NpuId npu, TimeNs& end_ns) {
    side.at(at_ns, [this, npu, &end_ns] {
      domain.launch(domain.add_program(gpu::one_line_copy(), {npu}), [&end_ns](TimeNs done_ns) { end_ns = done_ns; });
    });
  }
};

TEST(GpuCompute, AloneItTakesItsDuration) {
  ComputeRun run(config(4, 2), 2, 0);
  TimeNs end0 = 0, end1 = 0;
  run.node_at(5, 0, 100, end0);
  run.node_at(7, 1, 30, end1);  // another GPU: no contention
  run.ns_loop.run();
  EXPECT_EQ(end0, 105u);
  EXPECT_EQ(end1, 37u);
}

TEST(GpuCompute, ACollectiveKernelWaitsForTheCuSlotsItHolds) {
  // One CU with one slot: the copy launched at 4 is placed when the compute
  // retires at 103, and takes its 21.5 ns from there (124.5 -> 125).
  ComputeRun run(config(1, 1), 1, 0);
  TimeNs compute_end = 0, copy_end = 0;
  run.node_at(3, 0, 100, compute_end);
  run.copy_at(4, 0, copy_end);
  run.ns_loop.run();
  EXPECT_EQ(compute_end, 103u);
  EXPECT_EQ(copy_end, 125u);
}

TEST(GpuCompute, WithASlotFreeTheCopyRunsBesideIt) {
  // Two slots: the copy does not use the ALU, so neither waits.
  ComputeRun run(config(1, 2), 1, 0);
  TimeNs compute_end = 0, copy_end = 0;
  run.node_at(3, 0, 100, compute_end);
  run.copy_at(4, 0, copy_end);
  run.ns_loop.run();
  EXPECT_EQ(compute_end, 103u);
  EXPECT_EQ(copy_end, 26u);  // 4 + 21.5, rounded up
}

TEST(GpuCompute, TwoKernelsOnOneCuShareItsAlu) {
  // The second node's ReduceOp starts when the ALU frees at 103.
  ComputeRun run(config(1, 2), 1, 0);
  TimeNs first_end = 0, second_end = 0;
  run.node_at(3, 0, 100, first_end);
  run.node_at(4, 0, 50, second_end);
  run.ns_loop.run();
  EXPECT_EQ(first_end, 103u);
  EXPECT_EQ(second_end, 153u);
}

TEST(GpuCompute, SlicesInterleaveOnTheAlu) {
  // Slices of 10 cycles: the two nodes alternate on the ALU from 13 on
  // (first 3-13, second 13-23, first 23-33, ...), the second's five slices
  // end at 103, the first's remaining ones run 103-153.
  ComputeRun run(config(1, 2), 1, 0, 10);
  TimeNs first_end = 0, second_end = 0;
  run.node_at(3, 0, 100, first_end);
  run.node_at(4, 0, 50, second_end);
  run.ns_loop.run();
  EXPECT_EQ(first_end, 153u);
  EXPECT_EQ(second_end, 103u);
}

TEST(GpuCompute, RefusesNodesBeyondTheClock) {
  ComputeRun run(config(1, 1), 1, 0);
  EXPECT_THROW(run.compute.start_compute(0, uint64_t{1} << 51, [](TimeNs) {}), Error);
}

}  // namespace
}  // namespace snr::dsim::load_store
