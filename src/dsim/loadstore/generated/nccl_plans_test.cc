// NCCL's ring and tree as generated plans: every variant moves exactly its
// collective's bytes (the data-movement checker, with race detection), the
// traffic and op counts are the ones computed by hand below, and NCCL's
// tuning picks what NCCL's cost model picks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/error.h"
#include "dsim/loadstore/generated/plan_check_for_tests.h"
#include "dsim/loadstore/generated/nccl_tuning.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

using ::testing::HasSubstr;

GeneratedPlanOptions nccl_options(std::string_view collective, uint32_t gpus, uint32_t channels, uint64_t buffer,
                                  Protocol protocol, uint32_t slices = 0) {
  GeneratedPlanOptions o;
  o.collective = std::string(collective);
  o.gpus = gpus;
  o.workgroups = channels;
  o.buffer_bytes = buffer;
  o.protocol = protocol;
  o.slices_per_step = slices;
  o.threads_per_workgroup = 512;
  return o;
}

std::string check(const Program& program, std::string_view collective) {
  return check_generated_plan(program, collective);
}

uint64_t count(const GpuTraffic& t, OpKind kind) { return t.op_counts[static_cast<size_t>(kind)]; }

TEST(NcclPlans, EveryVariantMovesExactlyItsCollectivesBytes) {
  size_t checked = 0;
  for (std::string_view name : {"nccl-ring", "nccl-tree"}) {
    const PlanAlgorithm& algorithm = find_plan_algorithm(name);
    for (std::string_view collective : algorithm.collectives()) {
      for (Protocol protocol : {Protocol::kSimple, Protocol::kLL, Protocol::kLL128}) {
        for (uint32_t gpus : {2u, 3u, 4u, 7u, 8u}) {
          for (uint32_t channels : {1u, 3u, 8u}) {
            // One element per chunk (most channels idle), an uneven split,
            // and a few lines per slice; Simple also with 3 slices per step.
            for (uint64_t elements : {1u, 13u, 96u}) {
              for (uint32_t slices : {0u, 3u}) {
                const uint64_t buffer = elements * kPlanElementBytes * gpus;
                SCOPED_TRACE(fmt::format("{} {} {} gpus={} channels={} buffer={} slices={}", name, collective,
                                         protocol_name(protocol), gpus, channels, buffer, slices));
                const Program p = generate_collective_plan(
                    algorithm, nccl_options(collective, gpus, channels, buffer, protocol, slices));
                EXPECT_EQ(check(p, collective), "");
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  // ring: 3 collectives, tree: all-reduce; 3 protocols, 5 GPU counts, 3x3x2 shapes.
  EXPECT_EQ(checked, 4u * 3 * 5 * 18);
}

TEST(NcclPlans, RingAllReduceStepsAndBytesByHand) {
  // 4 GPUs, 1 channel, 4 KiB: a chunk is 1 KiB. Each GPU sends 2(N-1) = 6
  // chunks to the next GPU, loads nothing remotely, and (Simple, 2 slices
  // per step) signals and waits once per slice of every step: 12 each.
  const uint32_t n = 4;
  const uint64_t buffer = 4096, chunk = buffer / n;
  const PlanAlgorithm& ring = find_plan_algorithm("nccl-ring");
  {
    const Program p = generate_collective_plan(ring, nccl_options(kAllReduce, n, 1, buffer, Protocol::kSimple));
    const auto t = traffic(p);
    for (uint32_t g = 0; g < n; ++g) {
      EXPECT_EQ(t[g].remote_store_bytes, 2 * (n - 1) * chunk);
      EXPECT_EQ(t[g].remote_load_bytes, 0u);
      EXPECT_EQ(t[g].wire_bytes_remote, 2 * (n - 1) * chunk);
      EXPECT_EQ(count(t[g], OpKind::kSemaphoreRelease), 2 * (n - 1) * 2);
      EXPECT_EQ(count(t[g], OpKind::kSemaphoreAcquire), 2 * (n - 1) * 2);
      // Per slice: 2(N-1) sends and a last receive, 2N-1 loops; the first
      // send and the last receive are copies, the 2N-3 between them one
      // fused load loop each.
      EXPECT_EQ(count(t[g], OpKind::kMemcpy), 2u * 2);
      EXPECT_EQ(count(t[g], OpKind::kLoad), (2 * n - 3) * 2);
      // Reductions: N-1 steps of the reduce-scatter half.
      EXPECT_EQ(count(t[g], OpKind::kReduce), (n - 1) * 2);
    }
  }
  // LL: no semaphores, every payload byte travels with a flag word.
  {
    const Program p = generate_collective_plan(ring, nccl_options(kAllReduce, n, 2, buffer, Protocol::kLL));
    const auto t = traffic(p);
    EXPECT_EQ(t[1].remote_store_bytes, 2 * (n - 1) * chunk);
    EXPECT_EQ(t[1].wire_bytes_remote, 2 * 2 * (n - 1) * chunk);
    EXPECT_TRUE(p.semaphores.empty());
  }
  // LL128: a flag word per 128-byte line. One channel, so each step stores
  // one 1024-byte range: ceil(1024 / 120) = 9 lines of 128 bytes.
  {
    const Program p = generate_collective_plan(ring, nccl_options(kAllReduce, n, 1, buffer, Protocol::kLL128));
    const auto t = traffic(p);
    EXPECT_EQ(t[2].remote_store_bytes, 2 * (n - 1) * chunk);
    EXPECT_EQ(t[2].wire_bytes_remote, 2 * (n - 1) * 9 * 128u);
    EXPECT_TRUE(p.semaphores.empty());
  }
}

TEST(NcclPlans, RingAllGatherAndReduceScatterAreTheHalves) {
  const uint32_t n = 8;
  const uint64_t buffer = 8 * 1024, chunk = buffer / n;
  const PlanAlgorithm& ring = find_plan_algorithm("nccl-ring");
  for (std::string_view collective : {kAllGather, kReduceScatter}) {
    SCOPED_TRACE(collective);
    const Program p = generate_collective_plan(ring, nccl_options(collective, n, 1, buffer, Protocol::kSimple, 1));
    const auto t = traffic(p);
    EXPECT_EQ(t[3].remote_store_bytes, (n - 1) * chunk);
    EXPECT_EQ(count(t[3], OpKind::kSemaphoreRelease), n - 1);
    EXPECT_EQ(count(t[3], OpKind::kSemaphoreAcquire), n - 1);
  }
}

TEST(NcclPlans, TreeIsAChainThroughGpuZero) {
  // 4 GPUs: the leaf (3) sends the whole buffer up, the root (0) the whole
  // buffer down, the middle GPUs both; Simple signals once per piece (one
  // piece per chunk) on each direction.
  const uint32_t n = 4;
  const uint64_t buffer = 4096;
  const Program p = generate_collective_plan(find_plan_algorithm("nccl-tree"),
                                             nccl_options(kAllReduce, n, 1, buffer, Protocol::kSimple));
  const auto t = traffic(p);
  EXPECT_EQ(t[0].remote_store_bytes, buffer);
  EXPECT_EQ(t[1].remote_store_bytes, 2 * buffer);
  EXPECT_EQ(t[2].remote_store_bytes, 2 * buffer);
  EXPECT_EQ(t[3].remote_store_bytes, buffer);
  EXPECT_EQ(count(t[0], OpKind::kSemaphoreRelease), n);
  EXPECT_EQ(count(t[1], OpKind::kSemaphoreRelease), 2 * n);
  EXPECT_EQ(count(t[3], OpKind::kSemaphoreRelease), n);
  // The root has no down workgroup: 3 GPUs x 2 + 1.
  EXPECT_EQ(p.workgroups.size(), 7u);
}

TEST(NcclPlans, PrologueIsSmWorkBeforeTheFirstSend) {
  GeneratedPlanOptions o = nccl_options(kAllReduce, 2, 1, 1024, Protocol::kLL);
  o.prologue_cycles = 1600;  // 16 wavefronts of 32 threads: 100 cycles each
  const Program p = generate_collective_plan(find_plan_algorithm("nccl-ring"), o);
  const GpuOp& first = p.ops[p.workgroups[0].first_op];
  EXPECT_EQ(first.kind, OpKind::kReduce);
  EXPECT_FALSE(first.chained());
  EXPECT_EQ(first.reduce_cycles, 100u);
  EXPECT_EQ(p.ops[p.workgroups[0].first_op + 1].kind, OpKind::kNop);
}

TEST(NcclPlans, OnlyPutAndOnlyTheirCollectives) {
  EXPECT_THAT([] {
    GeneratedPlanOptions o = nccl_options(kAllReduce, 4, 1, 4096, Protocol::kSimple);
    o.transfer = Transfer::kGet;
    (void)generate_collective_plan(find_plan_algorithm("nccl-ring"), o);
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("no get-based variant")));
  EXPECT_THAT([] {
    (void)generate_collective_plan(find_plan_algorithm("nccl-tree"),
                                   nccl_options(kAllGather, 4, 1, 4096, Protocol::kSimple));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("'nccl-tree' does not implement 'allgather'")));
  // The generic ring knows LL and Simple only.
  EXPECT_THAT([] {
    (void)generate_collective_plan(find_plan_algorithm("ring"),
                                   nccl_options(kAllGather, 4, 1, 4096, Protocol::kLL128));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("with the LL128 protocol")));
  EXPECT_EQ(parse_protocol("ll128"), Protocol::kLL128);
}

TEST(NcclTuning, GraphsOfTheDgxSystems) {
  // A100: 12 NVLinks x 20 GB/s (NCCL's figure) = 240 GB/s: 6 rings of
  // 40 GB/s, split into 12 of 20; kernels get twice that, 24 channels.
  const NcclSystem& a100 = *find_nccl_system("dgx-a100");
  EXPECT_EQ(nccl_graph(a100).channels, 12u);
  EXPECT_DOUBLE_EQ(nccl_graph(a100).bw_per_channel_gbps, 20.0);
  EXPECT_EQ(nccl_max_channels(a100), 24u);
  // H100: 18 x 20.6 = 370.8 GB/s: 6 rings of 60, split into 12 of 30.
  const NcclSystem& h100 = *find_nccl_system("dgx-h100");
  EXPECT_EQ(nccl_graph(h100).channels, 12u);
  EXPECT_DOUBLE_EQ(nccl_graph(h100).bw_per_channel_gbps, 30.0);
  EXPECT_EQ(find_nccl_system("generic-448"), nullptr);
}

TEST(NcclTuning, ChoiceBySizeOnEightA100s) {
  const NcclSystem& a100 = *find_nccl_system("dgx-a100");
  // 1 KiB: latency alone decides. Ring LL costs 6.6 + 14 x 0.6 = 15.0 us,
  // tree LL 6.8 + 2 x 7 x 0.6 = 15.2 us: ring LL. A channel's threads need
  // 8 bytes each per GPU (8 x 8 = 64), so 1 channel and the threads halved
  // from 512 down to 64.
  NcclChoice c = nccl_choose(a100, kAllReduce, 8, 1024);
  EXPECT_EQ(c.estimate.algorithm, "nccl-ring");
  EXPECT_EQ(c.estimate.protocol, Protocol::kLL);
  EXPECT_NEAR(c.estimate.latency_us, 15.0, 1e-9);
  EXPECT_EQ(c.channels, 1u);
  EXPECT_EQ(c.threads, 64u);
  // 1 MiB: ring LL 15.0 + 1 MiB / (87.7 x 8/14 GB/s) = 35.9 us beats ring
  // LL128 (40.6 + 8.3) and Simple (56.0 + 7.6); 1 MiB fills all 24 channels.
  c = nccl_choose(a100, kAllReduce, 8, 1 << 20);
  EXPECT_EQ(c.estimate.protocol, Protocol::kLL);
  EXPECT_NEAR(c.estimate.time_us, 35.9, 0.05);
  EXPECT_EQ(c.channels, 24u);
  EXPECT_EQ(c.threads, 512u);
  // 8 MiB: LL128's 126 GB/s pays for its 40.6 us; Simple's 137 GB/s does not yet.
  c = nccl_choose(a100, kAllReduce, 8, 8u << 20);
  EXPECT_EQ(c.estimate.protocol, Protocol::kLL128);
  EXPECT_EQ(c.threads, 640u);
  // 128 MiB: bandwidth decides: ring Simple (240 x 8/14 = 137 GB/s), 24
  // channels of 512 threads plus the synchronization warp.
  c = nccl_choose(a100, kAllReduce, 8, 128u << 20);
  EXPECT_EQ(c.estimate.algorithm, "nccl-ring");
  EXPECT_EQ(c.estimate.protocol, Protocol::kSimple);
  EXPECT_EQ(c.channels, 24u);
  EXPECT_EQ(c.threads, 544u);
  // Forced choices stay inside what is asked for.
  c = nccl_choose(a100, kAllReduce, 8, 1 << 20, "nccl-tree");
  EXPECT_EQ(c.estimate.algorithm, "nccl-tree");
  c = nccl_choose(a100, kAllGather, 8, 1 << 20, "auto", Protocol::kSimple);
  EXPECT_EQ(c.estimate.algorithm, "nccl-ring");
  EXPECT_EQ(c.estimate.protocol, Protocol::kSimple);
  EXPECT_THAT([&] { (void)nccl_choose(a100, kAllGather, 8, 1 << 20, "nccl-tree"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("no nccl-tree variant of allgather")));
}

TEST(NcclTuning, TwoGpusSwitchToSimpleEarly) {
  // 2 GPUs have 2 steps: Simple's 8.4 + 2 x 3.4 = 15.2 us latency pays off
  // from about 1 MB (ring LL: 7.8 us at 87.7 GB/s, Simple: 240 GB/s).
  const NcclSystem& a100 = *find_nccl_system("dgx-a100");
  EXPECT_EQ(nccl_choose(a100, kAllReduce, 2, 512 << 10).estimate.protocol, Protocol::kLL);
  EXPECT_EQ(nccl_choose(a100, kAllReduce, 2, 2 << 20).estimate.protocol, Protocol::kSimple);
}

}  // namespace
}  // namespace snr::dsim::loadstore
