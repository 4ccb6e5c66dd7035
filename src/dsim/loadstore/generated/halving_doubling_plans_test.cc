// halving-doubling as generated plans: every variant moves exactly its
// collective's bytes (the data-movement checker) and completes on the GPU
// model; the partners and bytes of each step are the ones computed by hand
// (ASTRA-sim's: distance 1, 2, ..., N/2 halving the message, then back);
// a non-power-of-two GPU count is refused, naming the counts that work.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "common/error.h"
#include "dsim/loadstore/generated/plan_check_for_tests.h"
#include "dsim/loadstore/generated/plan_generator.h"
#include "dsim/loadstore/generated/plan_run_for_tests.h"

namespace snr::dsim::loadstore {
namespace {

using ::testing::HasSubstr;

GeneratedPlanOptions options_for(std::string_view collective, uint32_t gpus, uint32_t workgroups, uint64_t buffer,
                                 Transfer transfer, Protocol protocol) {
  GeneratedPlanOptions o = plan_options(collective, gpus, workgroups, buffer, transfer, protocol);
  o.threads_per_workgroup = 256;
  return o;
}

// Payload bytes GPU `gpu` stores into (or, `loads`, loads from) every other
// GPU's memory, by that GPU.
std::map<uint32_t, uint64_t> remote_bytes_by_peer(const Program& p, uint32_t gpu, bool loads) {
  std::map<uint32_t, uint64_t> bytes;
  for (const Workgroup& wg : p.workgroups) {
    if (wg.gpu != gpu) continue;
    for (uint32_t i = wg.first_op; i < wg.first_op + wg.op_count; ++i) {
      const GpuOp& op = p.ops[i];
      const MemRange* r = p.ranges_of(op);
      for (uint16_t j = 0; j < op.range_count; ++j) {
        const bool is_load = op.kind == OpKind::kLoad || (op.kind == OpKind::kMemcpy && j == 0);
        const bool is_store = op.kind == OpKind::kStore || (op.kind == OpKind::kMemcpy && j == 1);
        if ((loads ? is_load : is_store) && r[j].gpu != gpu) bytes[r[j].gpu] += op.bytes;
      }
    }
  }
  return bytes;
}

uint64_t count(const GpuTraffic& t, OpKind kind) { return t.op_counts[static_cast<size_t>(kind)]; }

TEST(HalvingDoublingPlans, EveryVariantMovesExactlyItsCollectivesBytesAndCompletes) {
  const PlanAlgorithm& hd = find_plan_algorithm("halving-doubling");
  size_t checked = 0;
  for (std::string_view collective : hd.collectives()) {
    for (Transfer transfer : {Transfer::kPut, Transfer::kGet}) {
      for (Protocol protocol : {Protocol::kSimple, Protocol::kLL}) {
        for (uint32_t gpus : {2u, 4u, 8u}) {
          for (uint32_t workgroups : {1u, 3u}) {
            // One element per chunk (idle workgroups), an uneven split, a
            // few cache lines per slice.
            for (uint64_t elements : {1u, 13u, 96u}) {
              const uint64_t buffer = elements * kPlanElementBytes * gpus;
              SCOPED_TRACE(fmt::format("{} {} {} gpus={} workgroups={} buffer={}", collective,
                                       transfer_name(transfer), protocol_name(protocol), gpus, workgroups, buffer));
              const Program p =
                  generate_collective_plan(hd, options_for(collective, gpus, workgroups, buffer, transfer, protocol));
              EXPECT_EQ(check_generated_plan(p, collective), "");
              EXPECT_GT(run_generated_plan(p).end_ps, 0u);
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 3u * 4 * 3 * 2 * 3);
}

TEST(HalvingDoublingPlans, StepsAndBytesPerStepByHand) {
  // 8 GPUs, 1 KiB chunks. Reduce-scatter: GPU 0 sends 4 chunks to GPU 1
  // (distance 1), 2 to GPU 2, 1 to GPU 4: buffer/2, /4, /8 in log2 8 = 3
  // steps. All-gather: 1 chunk to GPU 4, 2 to GPU 2, 4 to GPU 1.
  const uint32_t n = 8;
  const uint64_t chunk = 1024, buffer = n * chunk;
  const PlanAlgorithm& hd = find_plan_algorithm("halving-doubling");
  using Bytes = std::map<uint32_t, uint64_t>;
  const Program rs =
      generate_collective_plan(hd, options_for(kReduceScatter, n, 1, buffer, Transfer::kPut, Protocol::kSimple));
  EXPECT_EQ(remote_bytes_by_peer(rs, 0, false), (Bytes{{1, 4 * chunk}, {2, 2 * chunk}, {4, chunk}}));
  EXPECT_EQ(remote_bytes_by_peer(rs, 5, false), (Bytes{{4, 4 * chunk}, {7, 2 * chunk}, {1, chunk}}));
  const Program ag =
      generate_collective_plan(hd, options_for(kAllGather, n, 1, buffer, Transfer::kPut, Protocol::kSimple));
  EXPECT_EQ(remote_bytes_by_peer(ag, 0, false), (Bytes{{4, chunk}, {2, 2 * chunk}, {1, 4 * chunk}}));
  // All-reduce: both, 2(N-1) chunks out of every GPU as in the ring, in
  // 2 log2 N = 6 steps. Simple put: 3 "free" handshakes, then one signal and
  // one wait per step, each wait followed by a hold.
  const Program ar =
      generate_collective_plan(hd, options_for(kAllReduce, n, 1, buffer, Transfer::kPut, Protocol::kSimple));
  EXPECT_EQ(remote_bytes_by_peer(ar, 0, false), (Bytes{{1, 8 * chunk}, {2, 4 * chunk}, {4, 2 * chunk}}));
  const auto t = traffic(ar);
  for (uint32_t g = 0; g < n; ++g) {
    EXPECT_EQ(t[g].remote_store_bytes, 2 * (n - 1) * chunk);
    EXPECT_EQ(t[g].remote_load_bytes, 0u);
    EXPECT_EQ(count(t[g], OpKind::kSemaphoreRelease), 3u + 6);
    EXPECT_EQ(count(t[g], OpKind::kSemaphoreAcquire), 3u + 6);
  }
  // Every acquire is followed by a hold: semaphore ops run on wavefront 0
  // only.
  for (const Workgroup& wg : ar.workgroups) {
    for (uint32_t i = wg.first_op; i < wg.first_op + wg.op_count; ++i) {
      if (ar.ops[i].kind != OpKind::kSemaphoreAcquire) continue;
      const OpKind next = ar.ops[i + 1].kind;
      EXPECT_TRUE(next == OpKind::kNop || next == OpKind::kSemaphoreAcquire) << ar.where(i);
    }
  }
  // Get: the same bytes loaded from the partners instead.
  const Program get =
      generate_collective_plan(hd, options_for(kAllReduce, n, 1, buffer, Transfer::kGet, Protocol::kSimple));
  EXPECT_EQ(remote_bytes_by_peer(get, 0, true), (Bytes{{1, 8 * chunk}, {2, 4 * chunk}, {4, 2 * chunk}}));
  EXPECT_TRUE(remote_bytes_by_peer(get, 0, false).empty());
  // LL: packets carry the flags (twice the wire bytes), no semaphores.
  const Program ll =
      generate_collective_plan(hd, options_for(kAllReduce, n, 2, buffer, Transfer::kPut, Protocol::kLL));
  EXPECT_EQ(traffic(ll)[3].remote_store_bytes, 2 * (n - 1) * chunk);
  EXPECT_EQ(traffic(ll)[3].wire_bytes_remote, 2 * 2 * (n - 1) * chunk);
  EXPECT_TRUE(ll.semaphores.empty());
}

TEST(HalvingDoublingPlans, FewerStepsThanTheRingWhenLatencyBound) {
  // 8 GPUs, 4 KiB, 500 ns between GPUs: 6 steps against the ring's 14.
  const uint64_t buffer = 4096;
  auto end_ps = [&](std::string_view algorithm) {
    return run_generated_plan(generate_collective_plan(
                                  find_plan_algorithm(algorithm),
                                  options_for(kAllReduce, 8, 1, buffer, Transfer::kPut, Protocol::kSimple)))
        .end_ps;
  };
  const uint64_t hd = end_ps("halving-doubling"), ring = end_ps("ring");
  EXPECT_LT(hd * 2, ring) << "halving-doubling " << hd << " ps, ring " << ring << " ps";
}

TEST(HalvingDoublingPlans, RefusesWhatItDoesNotImplement) {
  const PlanAlgorithm& hd = find_plan_algorithm("halving-doubling");
  EXPECT_THAT([&] {
    (void)generate_collective_plan(hd, options_for(kAllReduce, 6, 1, 6 * 64, Transfer::kPut, Protocol::kSimple));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr(
                  "halving-doubling allreduce: 6 GPUs is not a power of two; halving-doubling pairs GPUs by rank "
                  "XOR 2^k (use 4 or 8 GPUs, or ring)")));
  EXPECT_THAT([&] {
    (void)generate_collective_plan(hd, options_for(kAllGather, 3, 1, 3 * 64, Transfer::kGet, Protocol::kLL));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("3 GPUs is not a power of two")));
  EXPECT_THAT([&] {
    (void)generate_collective_plan(hd, options_for(kAllReduce, 4, 1, 4096, Transfer::kPut, Protocol::kLL128));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("no put-based variant with the LL128 protocol")));
  EXPECT_THAT([&] {
    (void)generate_collective_plan(hd, options_for(kAllToAll, 4, 1, 4096, Transfer::kPut, Protocol::kSimple));
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("'halving-doubling' does not implement 'alltoall'")));
}

}  // namespace
}  // namespace snr::dsim::loadstore
