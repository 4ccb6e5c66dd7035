// Generated plans of the built-in algorithms: every combination of
// collective, transfer and protocol moves exactly the bytes its collective
// requires (the data-movement checker, both interleavings, race detection)
// for several GPU counts, workgroup counts and sizes; the traffic per GPU is
// what the algorithm sends; and bad parameters are errors naming them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/error.h"
#include "dsim/loadstore/generated/plan_check_for_tests.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

using ::testing::HasSubstr;

GeneratedPlanOptions options_for(std::string_view collective, uint32_t gpus, uint32_t workgroups, uint64_t buffer,
                                 Transfer transfer, Protocol protocol) {
  return plan_options(collective, gpus, workgroups, buffer, transfer, protocol);
}

std::string check(const Program& program, std::string_view collective) {
  return check_generated_plan(program, collective);
}

TEST(PlanGenerator, EveryVariantMovesExactlyItsCollectivesBytes) {
  size_t checked = 0;
  for (const std::string& name : plan_algorithm_names()) {
    const PlanAlgorithm& algorithm = find_plan_algorithm(name);
    for (std::string_view collective : algorithm.collectives()) {
      for (Transfer transfer : {Transfer::kPut, Transfer::kGet}) {
        for (Protocol protocol : {Protocol::kSimple, Protocol::kLL}) {
          if (!algorithm.supports(transfer, protocol)) continue;
          for (uint32_t gpus : {2u, 3u, 4u, 7u}) {
            // halving-doubling refuses 3 and 7 (HalvingDoublingPlans tests that).
            if (!algorithm.unsupported_gpus(gpus).empty()) continue;
            for (uint32_t workgroups : {1u, 3u, 8u}) {
              // One element per chunk (most workgroups idle), an uneven
              // split over the workgroups, and a few cache lines per slice.
              for (uint64_t elements_per_chunk : {1u, 13u, 96u}) {
                const uint64_t buffer = elements_per_chunk * kPlanElementBytes * gpus;
                SCOPED_TRACE(fmt::format("{} {} {} {} gpus={} workgroups={} buffer={}", name, collective,
                                         transfer_name(transfer), protocol_name(protocol), gpus, workgroups, buffer));
                const Program program = generate_collective_plan(
                    algorithm, options_for(collective, gpus, workgroups, buffer, transfer, protocol));
                EXPECT_EQ(check(program, collective), "");
                EXPECT_EQ(program.kernels.size(), gpus);
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  // ring: 3 collectives, direct: 2, with 4 variants each; nccl-ring: 3 and
  // nccl-tree: 1, put only (2 variants); double-binary-tree: 1, put only;
  // nccl-nvls: 3, put Simple only; 4 GPU counts, 3x3 shapes;
  // halving-doubling: 3 collectives, 4 variants, 2 GPU counts.
  EXPECT_EQ(checked, (5u * 4 + 5u * 2 + 3u * 1) * 4 * 9 + 3u * 4 * 2 * 9);
}

TEST(PlanGenerator, CaseStudyShapesCheck) {
  // The shapes of the case studies (32 GPUs x 32 workgroups, 16 x 60) at a
  // small size, through the same checker.
  struct Shape {
    const char* algorithm;
    std::string_view collective;
    uint32_t gpus, workgroups;
  } shapes[] = {{"ring", kReduceScatter, 32, 32}, {"ring", kAllGather, 16, 60}, {"direct", kAllToAll, 16, 60}};
  for (const Shape& s : shapes) {
    for (Transfer transfer : {Transfer::kPut, Transfer::kGet}) {
      SCOPED_TRACE(fmt::format("{} {} {}", s.algorithm, s.collective, transfer_name(transfer)));
      const Program program =
          generate_collective_plan(find_plan_algorithm(s.algorithm),
                                   options_for(s.collective, s.gpus, s.workgroups, uint64_t{s.gpus} * 512, transfer,
                                               Protocol::kSimple));
      EXPECT_EQ(check(program, s.collective), "");
    }
  }
}

TEST(PlanGenerator, RingTrafficIsOneChunkPerStep) {
  const uint32_t n = 4;
  const uint64_t buffer = 4096, chunk = buffer / n;
  const PlanAlgorithm& ring = find_plan_algorithm("ring");
  // Put: N-1 chunks leave each GPU as remote stores, none are loaded remotely;
  // Simple adds one "free" handshake and one signal per step, LL none.
  {
    const Program p = generate_collective_plan(ring, options_for(kAllGather, n, 1, buffer, Transfer::kPut,
                                                                 Protocol::kSimple));
    const auto t = traffic(p);
    EXPECT_EQ(t[1].remote_store_bytes, (n - 1) * chunk);
    EXPECT_EQ(t[1].remote_load_bytes, 0u);
    EXPECT_EQ(t[1].wire_bytes_remote, (n - 1) * chunk);
    EXPECT_EQ(t[1].op_counts[static_cast<size_t>(OpKind::kSemaphoreRelease)], 1 + (n - 1));
    EXPECT_EQ(t[1].op_counts[static_cast<size_t>(OpKind::kSemaphoreAcquire)], 1 + (n - 1));
  }
  // Get: the same chunks are loaded from the previous GPU instead.
  {
    const Program p = generate_collective_plan(ring, options_for(kAllGather, n, 1, buffer, Transfer::kGet,
                                                                 Protocol::kSimple));
    const auto t = traffic(p);
    EXPECT_EQ(t[1].remote_load_bytes, (n - 1) * chunk);
    EXPECT_EQ(t[1].remote_store_bytes, 0u);
  }
  // LL put: twice the wire bytes (data and flag words), no semaphore at all.
  {
    const Program p = generate_collective_plan(ring, options_for(kReduceScatter, n, 2, buffer, Transfer::kPut,
                                                                 Protocol::kLL));
    const auto t = traffic(p);
    EXPECT_EQ(t[2].remote_store_bytes, (n - 1) * chunk);
    EXPECT_EQ(t[2].wire_bytes_remote, 2 * (n - 1) * chunk);
    EXPECT_EQ(t[2].semaphore_requests, 0u);
    EXPECT_TRUE(p.semaphores.empty());
  }
  // All-reduce: reduce-scatter then all-gather, 2(N-1) chunks out.
  {
    const Program p = generate_collective_plan(ring, options_for(kAllReduce, n, 1, buffer, Transfer::kPut,
                                                                 Protocol::kSimple));
    EXPECT_EQ(traffic(p)[0].remote_store_bytes, 2 * (n - 1) * chunk);
    EXPECT_EQ(p.gpus[0].input_bytes, buffer);
    EXPECT_EQ(p.gpus[0].output_bytes, buffer);
  }
}

TEST(PlanGenerator, DirectGivesEachPeerItsOwnChannel) {
  // 16 GPUs and 60 workgroups: 4 lanes per peer, one channel per workgroup,
  // so every workgroup signals exactly one peer once (Simple put: "free"
  // and "data").
  const Program p = generate_collective_plan(
      find_plan_algorithm("direct"),
      options_for(kAllToAll, 16, 60, 16 * 4096, Transfer::kPut, Protocol::kSimple));
  EXPECT_EQ(p.workgroups.size(), 16u * 60);
  for (const Workgroup& wg : p.workgroups) {
    uint32_t releases = 0;
    for (uint32_t i = wg.first_op; i < wg.first_op + wg.op_count; ++i) {
      releases += p.ops[i].kind == OpKind::kSemaphoreRelease;
    }
    EXPECT_EQ(releases, 2u);
  }
  const auto t = traffic(p);
  EXPECT_EQ(t[5].remote_store_bytes, 15u * 4096);
  EXPECT_EQ(t[5].local_store_bytes, 4096u);  // its own block
}

TEST(PlanGenerator, AutoProtocolFollowsTheAlphaBetaCrossover) {
  // 1 TiB/s and 1 us: Simple pays off from S* = 2 alpha B = 2.2 MB per step.
  const AlphaBetaLink link{1024.0 * 1024 * 1024 * 1024, 1e-6};
  const PlanAlgorithm& ring = find_plan_algorithm("ring");
  const PlanAlgorithm& direct = find_plan_algorithm("direct");
  auto pick = [&](const PlanAlgorithm& a, std::string_view collective, uint64_t buffer) {
    return choose_protocol(a, options_for(collective, 16, 1, buffer, Transfer::kPut, Protocol::kSimple), link);
  };
  EXPECT_EQ(pick(ring, kAllGather, 16u << 20), Protocol::kLL);       // 1 MiB per ring step
  EXPECT_EQ(pick(ring, kAllGather, 64u << 20), Protocol::kSimple);   // 4 MiB per ring step
  EXPECT_EQ(pick(direct, kAllToAll, 2u << 20), Protocol::kLL);       // 15 x 128 KiB per exchange
  EXPECT_EQ(pick(direct, kAllToAll, 4u << 20), Protocol::kSimple);   // 15 x 256 KiB
  // An algorithm without LL runs small buffers with what it has.
  const PlanAlgorithm& nvls = find_plan_algorithm("nccl-nvls");
  ASSERT_FALSE(nvls.supports(Transfer::kPut, Protocol::kLL));
  const Protocol small = pick(nvls, kAllReduce, 16u << 10);
  EXPECT_TRUE(nvls.supports(Transfer::kPut, small)) << protocol_name(small);
}

TEST(PlanGenerator, APlanTooLargeForTheMachineIsRefusedAfterItsFirstGpu) {
  // A ring on 4096 GPUs is O(GPUs^2) ops: about 10^11 bytes as a program.
  const double memory_bytes =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (memory_bytes > 2e11) GTEST_SKIP() << "this machine could hold the plan";
  EXPECT_THAT([] {
    (void)generate_collective_plan(find_plan_algorithm("ring"),
                                   options_for(kAllReduce, 4096, 32, 4096 * 64, Transfer::kPut, Protocol::kSimple));
  }, ::testing::ThrowsMessage<Error>(::testing::HasSubstr("allreduce on 4096 GPUs with 32 workgroups each expands "
                                                          "into about")));
}

TEST(PlanGenerator, ARunOfTooManyRequestsIsRefusedAfterItsFirstGpu) {
  GeneratedPlanOptions options = options_for(kAllReduce, 8, 4, 8 << 20, Transfer::kPut, Protocol::kSimple);
  const Program program = generate_collective_plan(find_plan_algorithm("ring"), options);
  const uint64_t requests = line_requests(program, options.cache_line_bytes);
  options.max_line_requests = requests;  // exactly the run: allowed
  EXPECT_NO_THROW((void)generate_collective_plan(find_plan_algorithm("ring"), options));
  options.max_line_requests = requests - requests / 4;
  EXPECT_THAT([&] { (void)generate_collective_plan(find_plan_algorithm("ring"), options); },
              ::testing::ThrowsMessage<Error>(HasSubstr(fmt::format(
                  "allreduce of 8388608 B per GPU on 8 GPUs issues about {:.3g} cache-line requests, more than the",
                  static_cast<double>(requests)))));
}

TEST(PlanGenerator, SizesPerCollective) {
  EXPECT_EQ(collective_buffers(kAllGather, 4, 4096).input_bytes, 1024u);
  EXPECT_EQ(collective_buffers(kAllGather, 4, 4096).output_bytes, 4096u);
  EXPECT_EQ(collective_buffers(kReduceScatter, 4, 4096).input_bytes, 4096u);
  EXPECT_EQ(collective_buffers(kReduceScatter, 4, 4096).output_bytes, 1024u);
  EXPECT_EQ(collective_buffers(kAllToAll, 4, 4096).output_bytes, 4096u);
}

TEST(PlanGenerator, IdleWorkgroupsAreLeftOut) {
  // 4 GPUs, one element per chunk: one workgroup of 8 has data.
  const Program p = generate_collective_plan(
      find_plan_algorithm("ring"), options_for(kAllGather, 4, 8, 16, Transfer::kGet, Protocol::kSimple));
  EXPECT_EQ(p.workgroups.size(), 4u);
  EXPECT_EQ(p.kernels[3].workgroup_count, 1u);
}

TEST(PlanGenerator, TheCheckerCatchesABrokenGeneratedPlan) {
  // Dropping the last "data" signal of GPU 0 must show up as a deadlock, so
  // the checks above can fail.
  Program p = generate_collective_plan(find_plan_algorithm("ring"),
                                       options_for(kAllGather, 3, 1, 3 * 64, Transfer::kPut, Protocol::kSimple));
  const Workgroup& wg = p.workgroups[0];
  for (uint32_t i = wg.first_op + wg.op_count; i-- > wg.first_op;) {
    if (p.ops[i].kind == OpKind::kSemaphoreRelease) {
      p.ops[i].kind = OpKind::kNop;
      break;
    }
  }
  EXPECT_THAT(check(p, kAllGather), HasSubstr("deadlock: gpu 1 threadblock 0"));
}

TEST(PlanGenerator, ErrorsNameTheParameter) {
  const PlanAlgorithm& direct = find_plan_algorithm("direct");
  EXPECT_THAT([&] { (void)find_plan_algorithm("tree"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("unknown collective algorithm 'tree' (registered: ring, "
                                                        "direct")));
  EXPECT_THAT([&] {
    (void)generate_collective_plan(direct, options_for(kReduceScatter, 4, 1, 4096, Transfer::kPut,
                                                       Protocol::kSimple));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("'direct' does not implement 'reducescatter'")));
  EXPECT_THAT([&] {
    (void)generate_collective_plan(direct, options_for(kAllToAll, 3, 1, 4000, Transfer::kPut, Protocol::kSimple));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("a 4000-byte buffer does not split into 3 chunks")));
  EXPECT_THAT([&] {
    (void)generate_collective_plan(direct, options_for(kAllToAll, 1, 1, 4096, Transfer::kPut, Protocol::kSimple));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("1 GPUs")));
  EXPECT_THAT([&] { (void)parse_transfer("push"); }, ::testing::ThrowsMessage<Error>(HasSubstr("put or get")));
  EXPECT_EQ(parse_protocol("ll"), Protocol::kLL);
  EXPECT_EQ(&default_plan_algorithm(kAllToAll), &direct);
  EXPECT_EQ(default_plan_algorithm(kAllReduce).name(), "ring");
  // Wavefronts are counted, never clamped: a partly filled last one counts,
  // more than a workgroup holds is an error.
  EXPECT_EQ(wavefronts_per_workgroup(32, 1024), 1u);
  EXPECT_EQ(wavefronts_per_workgroup(1000, 64), 16u);
  EXPECT_EQ(wavefronts_per_workgroup(65535, 1), 65535u);
  GeneratedPlanOptions wide = options_for(kAllReduce, 4, 1, 4096, Transfer::kPut, Protocol::kSimple);
  wide.threads_per_workgroup = 65536;
  wide.wavefront_threads = 1;
  EXPECT_THAT([&] { (void)generate_collective_plan(find_plan_algorithm("ring"), wide); },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("make 65536 wavefronts, more than the 65535 a workgroup holds")));
}

}  // namespace
}  // namespace snr::dsim::loadstore
