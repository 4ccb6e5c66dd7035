// Lowering of each MSCCL++ op class into GPU operations, checked op by op
// on the hand-made plans (sizes chosen so offsets are easy to verify).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "dsim/loadstore/test_util.h"

namespace snr::dsim::loadstore {
namespace {

using ::testing::HasSubstr;
using testing::load_plan;

Program lower(const mscclpp::Plan& plan, uint64_t input_bytes) {
  MscclppLowering options;
  options.input_bytes = input_bytes;
  return lower_mscclpp(plan, options);
}

std::vector<OpKind> kinds(const Program& p, uint32_t workgroup) {
  std::vector<OpKind> out;
  const Workgroup& wg = p.workgroups[workgroup];
  for (uint32_t i = wg.first_op; i < wg.first_op + wg.op_count; ++i) out.push_back(p.ops[i].kind);
  return out;
}

TEST(LowerMscclpp, PutSignalWaitBecomeMemcpyAndSemaphoreOps) {
  const Program p = lower(load_plan("allgather_put.json"), 64);
  ASSERT_EQ(p.kernels.size(), 2u);
  ASSERT_EQ(p.workgroups.size(), 2u);
  EXPECT_EQ(p.workgroups[0].wavefronts, 32);  // 1024 threads / 32
  EXPECT_EQ(kinds(p, 1), (std::vector<OpKind>{OpKind::kMemcpy, OpKind::kMemcpy, OpKind::kSemaphoreRelease,
                                               OpKind::kSemaphoreAcquire, OpKind::kNop}));
  const GpuOp& put = p.ops[p.workgroups[1].first_op + 1];
  EXPECT_EQ(put.bytes, 64u);
  const MemRange* r = p.ranges_of(put);
  EXPECT_EQ(r[0].gpu, 1u);
  EXPECT_EQ(r[0].space, Space::kInput);
  EXPECT_EQ(r[1].gpu, 0u);  // remote store into gpu 0's output, chunk 1
  EXPECT_EQ(r[1].space, Space::kOutput);
  EXPECT_EQ(r[1].offset_bytes, 64u);
  // gpu 1's signal releases gpu 0's inbound semaphore; gpu 0's wait acquires it.
  const GpuOp& signal = p.ops[p.workgroups[1].first_op + 2];
  const GpuOp& wait = p.ops[p.workgroups[0].first_op + 3];
  EXPECT_EQ(signal.sync, wait.sync);
  EXPECT_EQ(p.semaphores[signal.sync].gpu, 0u);
  EXPECT_EQ(p.names[p.semaphores[signal.sync].name], "gpu 0 memory channel 0 (from gpu 1)");
  EXPECT_EQ(p.where(p.workgroups[1].first_op + 1), "gpu 1 threadblock 0 op 1 ('put')");
  const auto t = traffic(p);
  EXPECT_EQ(t[0].remote_store_bytes, 64u);
  EXPECT_EQ(t[0].local_store_bytes, 64u);
  EXPECT_EQ(t[0].semaphore_requests, 2u);
}

TEST(LowerMscclpp, ReadReduceSendSplitsAcrossTheThreadblockGroup) {
  const Program p = lower(load_plan("allreduce_rres_tbg.json"), 64);  // chunks of 32 B, slices of 16 B
  const Workgroup& wg = p.workgroups[1];  // gpu 0, threadblock 1
  EXPECT_EQ(kinds(p, 1), (std::vector<OpKind>{OpKind::kSemaphoreRelease, OpKind::kSemaphoreAcquire, OpKind::kNop,
                                               OpKind::kLoad, OpKind::kReduce, OpKind::kStore, OpKind::kNop,
                                               OpKind::kSemaphoreRelease, OpKind::kSemaphoreAcquire}));
  const GpuOp& load = p.ops[wg.first_op + 3];
  EXPECT_EQ(load.bytes, 16u);
  ASSERT_EQ(load.range_count, 2u);
  EXPECT_EQ(p.ranges_of(load)[0].offset_bytes, 16u);
  EXPECT_EQ(p.ranges_of(load)[1].gpu, 1u);  // remote load from the peer's input
  EXPECT_TRUE(p.ops[wg.first_op + 4].chained());
  const GpuOp& store = p.ops[wg.first_op + 5];
  EXPECT_TRUE(store.chained());
  EXPECT_EQ(p.ranges_of(store)[1].gpu, 1u);
  EXPECT_EQ(p.ranges_of(store)[1].space, Space::kOutput);
  // Relaxed signal keeps its flag; threadblock 1 uses the second channel to gpu 1.
  EXPECT_TRUE(p.ops[wg.first_op].flags & GpuOp::kRelaxed);
  EXPECT_EQ(p.names[p.semaphores[p.ops[wg.first_op].sync].name], "gpu 1 memory channel 1 (from gpu 0)");
}

TEST(LowerMscclpp, PacketOpsWriteDataAndFlagTogether) {
  const Program p = lower(load_plan("allreduce_packets.json"), 32);
  const GpuOp& ppkt = p.ops[p.workgroups[0].first_op];
  EXPECT_EQ(ppkt.kind, OpKind::kMemcpy);
  EXPECT_FALSE(p.ranges_of(ppkt)[0].packet());
  EXPECT_TRUE(p.ranges_of(ppkt)[1].packet());
  EXPECT_EQ(kinds(p, 1), (std::vector<OpKind>{OpKind::kLoad, OpKind::kReduce, OpKind::kStore, OpKind::kMemcpy}));
  const auto t = traffic(p);
  EXPECT_EQ(t[0].remote_store_bytes, 32u);  // payload: ppkt 16 B + respkt 16 B
  EXPECT_EQ(t[0].wire_bytes_remote, 64u);   // doubled by the flags
  EXPECT_EQ(t[0].op_counts[static_cast<size_t>(OpKind::kSemaphoreRelease)], 0u);
}

TEST(LowerMscclpp, SwitchOpsArePipelinedMulticastLoadsAndStores) {
  const Program p = lower(load_plan("allreduce_switch_pipeline.json"), 64);  // chunk 32 B, unit 16 B
  std::vector<OpKind> expect{OpKind::kSemaphoreRelease, OpKind::kSemaphoreAcquire, OpKind::kNop};
  for (int it = 0; it < 2; ++it) expect.insert(expect.end(), {OpKind::kLoad, OpKind::kStore});
  expect.insert(expect.end(), {OpKind::kNop, OpKind::kSemaphoreRelease, OpKind::kSemaphoreAcquire});
  EXPECT_EQ(kinds(p, 0), expect);
  const GpuOp& load = p.ops[p.workgroups[0].first_op + 5];
  EXPECT_TRUE(load.flags & GpuOp::kSwitchReduce);
  EXPECT_TRUE(p.ranges_of(load)[0].multicast());
  EXPECT_EQ(p.ranges_of(load)[0].offset_bytes, 16u);
  EXPECT_EQ(p.multicast_group(p.ranges_of(load)[0].gpu), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(p.where(p.workgroups[0].first_op + 5), "gpu 0 threadblock 0 op 3.0 (iteration 1) ('glres')");
}

// reuse_resources: scratch is MSCCL++'s fixed 64 MiB buffer in
// scratch_chunks chunks (here 2 of 32 MiB, 2 of 16 MiB when double-buffered);
// a message chunk larger than that puts scratch chunk i at i x 32 MiB, and a
// pipeline iteration's scratch offset wraps at 32 MiB.
TEST(LowerMscclpp, ReusedScratchWrapsPipelineIterationsAtItsChunk) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  struct Case {
    uint64_t input_bytes;
    bool double_buffer;
    uint64_t scratch_base, scratch_wrap;
  };
  // input chunk 1 of 2 is at input_bytes / 2; 16 MiB per iteration.
  for (const Case& c : {Case{64 * kMiB, false, 32 * kMiB, UINT64_MAX},  // chunk 32 MiB fits: plain offsets
                        Case{256 * kMiB, false, 32 * kMiB, 32 * kMiB},   // chunk 128 MiB: fixed chunks
                        Case{256 * kMiB, true, 16 * kMiB, 16 * kMiB}}) {
    SCOPED_TRACE(c.input_bytes);
    const Program p = lower(load_plan("reuse_scratch_pipeline.json",
                                      [&](nlohmann::json& j) { j["use_double_scratch_buffer"] = c.double_buffer; }),
                            c.input_bytes);
    const Workgroup& wg = p.workgroups[0];
    const uint64_t chunk = c.input_bytes / 2;
    ASSERT_EQ(wg.op_count, 2 * chunk / (16 * kMiB));
    for (uint32_t it = 0; it < wg.op_count / 2; ++it) {
      const uint64_t step = it * 16 * kMiB;
      const MemRange* in = p.ranges_of(p.ops[wg.first_op + 2 * it]);
      const MemRange* out = p.ranges_of(p.ops[wg.first_op + 2 * it + 1]);
      EXPECT_EQ(in[0].offset_bytes, chunk + step);  // input: never wraps
      const uint64_t scratch = (c.scratch_wrap == UINT64_MAX ? chunk : c.scratch_base) + step % c.scratch_wrap;
      EXPECT_EQ(in[1].space, Space::kScratch);
      EXPECT_EQ(in[1].offset_bytes, scratch) << it;
      EXPECT_EQ(out[0].offset_bytes, scratch) << it;
      EXPECT_EQ(out[1].offset_bytes, chunk + step);
    }
    EXPECT_EQ(p.gpus[0].scratch_bytes, c.scratch_wrap == UINT64_MAX ? 2 * chunk : 2 * c.scratch_base);
  }
}

TEST(LowerMscclpp, PlanWithoutBuffersLowersItsSynchronization) {
  const auto plan = load_plan("signal_wait_only.json");
  EXPECT_EQ(smallest_exact_input_bytes(plan), 0u);
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1} << 20}) {  // no buffers, whatever the size
    const Program p = lower(plan, bytes);
    EXPECT_EQ(kinds(p, 0), (std::vector<OpKind>{OpKind::kSemaphoreRelease, OpKind::kSemaphoreAcquire,
                                                 OpKind::kBarrier}));
    EXPECT_EQ(p.gpus[1].input_bytes + p.gpus[1].output_bytes + p.gpus[1].scratch_bytes, 0u);
  }
  EXPECT_TRUE(testing::check_plan(plan).ok());
}

TEST(LowerMscclpp, PortPutWithSignalAndFlushUsesTheProxy) {
  const Program p = lower(load_plan("allgather_port.json"), 16);
  EXPECT_EQ(kinds(p, 0), (std::vector<OpKind>{OpKind::kMemcpy, OpKind::kMemcpy, OpKind::kSemaphoreRelease,
                                               OpKind::kNop, OpKind::kSemaphoreAcquire}));
  EXPECT_TRUE(p.ops[1].flags & GpuOp::kViaProxy);
  EXPECT_TRUE(p.ops[3].flags & GpuOp::kDrain);
  EXPECT_EQ(traffic(p)[0].proxy_bytes, 16u);
}

TEST(LowerMscclpp, GpuSemaphoresAndBarriers) {
  const Program p = lower(load_plan("allreduce_get_sem_gstore.json"), 32);
  ASSERT_EQ(p.barriers.size(), 2u);
  EXPECT_EQ(p.barriers[0].participants, 2u);
  EXPECT_EQ(kinds(p, 1), (std::vector<OpKind>{OpKind::kSemaphoreAcquire, OpKind::kLoad, OpKind::kReduce,
                                               OpKind::kStore, OpKind::kLoad, OpKind::kStore, OpKind::kBarrier}));
  EXPECT_EQ(p.names[p.semaphores[p.ops[p.workgroups[1].first_op].sync].name], "gpu 0 semaphore 0");
}

TEST(LowerMscclpp, Errors) {
  // A signal over a channel the peer has no counterpart for.
  const auto unpaired = load_plan("allgather_put.json", [](nlohmann::json& j) {
    j["gpus"][0]["channels"][0]["connected_to"] = {1, 1};
    j["gpus"][0]["threadblocks"][0]["channels"][0]["channel_ids"] = {1};
  });
  try {
    lower(unpaired, 16);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("gpu 0 threadblock 0 op 2 ('signal'): memory channel 1 to gpu 1 has no "
                                    "counterpart on gpu 1"));
  }
  try {
    lower(load_plan("allreduce_rres_tbg.json"), 48);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("gpu 0: a 48-byte input buffer does not split into 2 chunks of whole 16-byte"));
  }
}

}  // namespace
}  // namespace snr::dsim::loadstore
