// double-binary-tree as generated plans: every variant moves exactly an
// all-reduce's bytes (the data-movement checker) and completes on the GPU
// model for even and odd GPU counts; the trees and the bytes on each of
// their edges are the ones computed by hand; what it does not implement is
// an error naming it.
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

GeneratedPlanOptions options_for(uint32_t gpus, uint32_t workgroups, uint64_t buffer, Protocol protocol,
                                 uint32_t slices = 0) {
  GeneratedPlanOptions o = plan_options(kAllReduce, gpus, workgroups, buffer, GeneratedPlanOptions{}.transfer, protocol);
  o.slices_per_step = slices;
  o.threads_per_workgroup = 256;
  return o;
}

// Payload bytes `gpu` stores into each other GPU's memory.
std::map<uint32_t, uint64_t> stores_by_peer(const Program& p, uint32_t gpu) {
  std::map<uint32_t, uint64_t> bytes;
  for (const Workgroup& wg : p.workgroups) {
    if (wg.gpu != gpu) continue;
    for (uint32_t i = wg.first_op; i < wg.first_op + wg.op_count; ++i) {
      const GpuOp& op = p.ops[i];
      const MemRange* r = p.ranges_of(op);
      for (uint16_t j = 0; j < op.range_count; ++j) {
        const bool store = op.kind == OpKind::kStore || (op.kind == OpKind::kMemcpy && j == 1);
        if (store && r[j].gpu != gpu) bytes[r[j].gpu] += op.bytes;
      }
    }
  }
  return bytes;
}

TEST(DoubleBinaryTreePlans, EveryVariantMovesExactlyAnAllReducesBytesAndCompletes) {
  const PlanAlgorithm& dbt = find_plan_algorithm("double-binary-tree");
  size_t checked = 0;
  for (Protocol protocol : {Protocol::kSimple, Protocol::kLL}) {
    for (uint32_t gpus : {2u, 3u, 4u, 5u, 6u, 8u}) {
      for (uint32_t workgroups : {1u, 3u}) {
        // One element per chunk (one tree idle), an uneven split, a few
        // cache lines per piece; also 2 pieces per chunk.
        for (uint64_t elements : {1u, 13u, 96u}) {
          for (uint32_t slices : {0u, 2u}) {
            const uint64_t buffer = elements * kPlanElementBytes * gpus;
            SCOPED_TRACE(fmt::format("{} gpus={} workgroups={} buffer={} slices={}", protocol_name(protocol), gpus,
                                     workgroups, buffer, slices));
            const Program p = generate_collective_plan(dbt, options_for(gpus, workgroups, buffer, protocol, slices));
            EXPECT_EQ(check_generated_plan(p, kAllReduce), "");
            EXPECT_GT(run_generated_plan(p).end_ps, 0u);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 2u * 6 * 2 * 3 * 2);
}

TEST(DoubleBinaryTreePlans, TwoComplementaryTreesByHand) {
  // 4 GPUs. Tree 0 (NCCL's btree): 0 -> 2 -> {1, 3}; tree 1, its mirror:
  // 3 -> 1 -> {2, 0}. Each tree carries half the buffer (h): every non-root
  // sends h up, every parent h down to each child.
  const uint64_t buffer = 4096, h = buffer / 2;
  const Program p = generate_collective_plan(find_plan_algorithm("double-binary-tree"),
                                             options_for(4, 1, buffer, Protocol::kSimple));
  using Bytes = std::map<uint32_t, uint64_t>;
  EXPECT_EQ(stores_by_peer(p, 0), (Bytes{{2, h}, {1, h}}));                 // root of 0, leaf of 1
  EXPECT_EQ(stores_by_peer(p, 1), (Bytes{{2, 2 * h}, {3, h}, {0, h}}));     // leaf of 0, inner of 1
  EXPECT_EQ(stores_by_peer(p, 2), (Bytes{{0, h}, {1, 2 * h}, {3, h}}));     // inner of 0, leaf of 1
  EXPECT_EQ(stores_by_peer(p, 3), (Bytes{{2, h}, {1, h}}));                 // leaf of 0, root of 1
  // 8 GPUs: tree 0 is 0 -> 4 -> {2, 6} -> {1, 3, 5, 7} (ASTRA-sim's RootMin
  // in-order tree), tree 1 its mirror; every GPU is a leaf in one of them.
  // 2(N-1) tree edges carry h each way: 2(N-1) buffers in all, the ring's.
  const Program p8 = generate_collective_plan(find_plan_algorithm("double-binary-tree"),
                                              options_for(8, 1, 8 * 1024, Protocol::kLL));
  // GPU 4: inner node of tree 0 (parent 0, children 2 and 6), leaf of
  // tree 1 (parent 5); GPU 1: leaf of tree 0 (parent 2), inner node of tree
  // 1 (parent 3, children 2 and 0).
  EXPECT_EQ(stores_by_peer(p8, 4), (Bytes{{0, 4096}, {2, 4096}, {5, 4096}, {6, 4096}}));
  EXPECT_EQ(stores_by_peer(p8, 1), (Bytes{{0, 4096}, {2, 2 * 4096}, {3, 4096}}));
  uint64_t total = 0;
  for (const GpuTraffic& t : traffic(p8)) total += t.remote_store_bytes;
  EXPECT_EQ(total, 2u * 7 * 8 * 1024);
  // Four workgroups per channel (up and down per tree), less the roots' down.
  EXPECT_EQ(p.workgroups.size(), 4u * 4 - 2);
}

TEST(DoubleBinaryTreePlans, RefusesWhatItDoesNotImplement) {
  const PlanAlgorithm& dbt = find_plan_algorithm("double-binary-tree");
  EXPECT_THAT([&] {
    GeneratedPlanOptions o = options_for(4, 1, 4096, Protocol::kSimple);
    o.transfer = Transfer::kGet;
    (void)generate_collective_plan(dbt, o);
  },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("double-binary-tree allreduce: no get-based variant with the Simple protocol")));
  EXPECT_THAT([&] {
    GeneratedPlanOptions o = options_for(4, 1, 4096, Protocol::kSimple);
    o.collective = std::string(kAllGather);
    (void)generate_collective_plan(dbt, o);
  },
              ::testing::ThrowsMessage<Error>(HasSubstr("'double-binary-tree' does not implement 'allgather'")));
}

}  // namespace
}  // namespace snr::dsim::loadstore
