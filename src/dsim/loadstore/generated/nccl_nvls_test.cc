// NCCL's NVLS as a generated plan and in NCCL's tuning: every variant moves
// exactly its collective's bytes (the data-movement checker, with race
// detection), a GPU touches only its own chunk through the switch, and the
// NVLS entries of the cost table are the ones worked out by hand below.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/error.h"
#include "dsim/loadstore/generated/nccl_tuning.h"
#include "dsim/loadstore/generated/plan_check_for_tests.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

using ::testing::HasSubstr;

GeneratedPlanOptions nvls_options(std::string_view collective, uint32_t gpus, uint32_t channels, uint64_t buffer) {
  GeneratedPlanOptions o;
  o.collective = std::string(collective);
  o.gpus = gpus;
  o.workgroups = channels;
  o.buffer_bytes = buffer;
  o.protocol = Protocol::kSimple;
  o.threads_per_workgroup = 640;
  return o;
}

TEST(NcclNvlsPlan, EveryVariantMovesExactlyItsCollectivesBytes) {
  const PlanAlgorithm& nvls = find_plan_algorithm("nccl-nvls");
  size_t checked = 0;
  for (std::string_view collective : nvls.collectives()) {
    for (uint32_t gpus : {2u, 3u, 4u, 8u}) {
      for (uint32_t channels : {1u, 3u, 16u}) {
        for (uint64_t elements : {1u, 13u, 96u}) {
          const uint64_t buffer = elements * kPlanElementBytes * gpus;
          SCOPED_TRACE(fmt::format("{} gpus={} channels={} buffer={}", collective, gpus, channels, buffer));
          const Program p = generate_collective_plan(nvls, nvls_options(collective, gpus, channels, buffer));
          EXPECT_EQ(check_generated_plan(p, collective), "");
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 3u * 4 * 3 * 3);
}

TEST(NcclNvlsPlan, EachGpuMovesItsOwnChunkThroughTheSwitchOnce) {
  // 8 GPUs, 1 MiB: chunk 128 KiB. All-reduce: GPU r reduce-loads chunk r
  // through the switch and broadcast-stores it, 128 KiB each way; nothing
  // else leaves the GPU but the 7 end-of-kernel signals per channel.
  const Program p =
      generate_collective_plan(find_plan_algorithm("nccl-nvls"), nvls_options(kAllReduce, 8, 16, 1 << 20));
  ASSERT_EQ(p.multicast_offsets.size(), 2u);  // one group: every GPU
  EXPECT_EQ(p.multicast_group(0), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (const GpuTraffic& t : traffic(p)) {
    EXPECT_EQ(t.multicast_load_bytes, 128u << 10);
    EXPECT_EQ(t.multicast_store_bytes, 128u << 10);
    EXPECT_EQ(t.remote_load_bytes + t.remote_store_bytes + t.local_load_bytes + t.local_store_bytes, 0u);
    EXPECT_EQ(t.op_counts[static_cast<size_t>(OpKind::kSemaphoreRelease)], 16u * 7);
  }
}

TEST(NcclNvlsPlan, SimpleAndPutOnly) {
  GeneratedPlanOptions o = nvls_options(kAllReduce, 4, 1, 4096);
  o.protocol = Protocol::kLL;
  EXPECT_THAT([&] { (void)generate_collective_plan(find_plan_algorithm("nccl-nvls"), o); },
              ::testing::ThrowsMessage<Error>(HasSubstr("with the LL protocol")));
  o.protocol = Protocol::kSimple;
  o.transfer = Transfer::kGet;
  EXPECT_THAT([&] { (void)generate_collective_plan(find_plan_algorithm("nccl-nvls"), o); },
              ::testing::ThrowsMessage<Error>(HasSubstr("no get-based variant")));
}

TEST(NcclNvlsTuning, GraphOnHopperOnly) {
  // H100: 18 NVLinks x 20.6 GB/s = 370.8 GB/s per GPU. 8 GPUs: the search
  // starts at the fastest speed s with 8 s <= 370.8 x 8/7 (50) and keeps
  // the first whose 8 channels fit every GPU's links, its own channel
  // twice: 9 s <= 370.8, so 40. 4 GPUs: 5 x 60 = 300 fits: 60.
  const NcclSystem& h100 = *find_nccl_system("dgx-h100");
  EXPECT_EQ(nccl_nvls_graph(h100, 8).channels, 8u);
  EXPECT_DOUBLE_EQ(nccl_nvls_graph(h100, 8).bw_per_channel_gbps, 40.0);
  EXPECT_EQ(nccl_nvls_graph(h100, 4).channels, 4u);
  EXPECT_DOUBLE_EQ(nccl_nvls_graph(h100, 4).bw_per_channel_gbps, 60.0);
  // A100's NVSwitch has no multicast: no NVLS entry, so nothing changes there.
  const NcclSystem& a100 = *find_nccl_system("dgx-a100");
  EXPECT_EQ(nccl_nvls_graph(a100, 8).channels, 0u);
  for (const NcclEstimate& e : nccl_cost_table(a100, kAllReduce, 8, 4 << 20)) EXPECT_NE(e.algorithm, "nccl-nvls");
  EXPECT_THAT([&] { (void)nccl_choose(a100, kAllReduce, 8, 4 << 20, "nccl-nvls"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("no nccl-nvls variant of allreduce")));
}

double nvls_bandwidth(std::string_view collective, uint32_t gpus) {
  for (const NcclEstimate& e : nccl_cost_table(*find_nccl_system("dgx-h100"), collective, gpus, 1 << 20)) {
    if (e.algorithm == "nccl-nvls") {
      EXPECT_EQ(e.protocol, Protocol::kSimple);
      EXPECT_DOUBLE_EQ(e.latency_us, 25.0);
      return e.bandwidth_gbps;
    }
  }
  ADD_FAILURE() << "no NVLS entry";
  return 0;
}

TEST(NcclNvlsTuning, BandwidthOnH100) {
  // 8 GPUs, all-reduce: 40 x 0.85 x 7/8 x 2 = 59.5 per channel, capped at
  // the graph's 40; 8 channels = 320 GB/s of bus bandwidth, x 8/14 = 182.9.
  EXPECT_NEAR(nvls_bandwidth(kAllReduce, 8), 320.0 * 8 / 14, 1e-9);
  // 4 GPUs: 60 x 0.85 x 3/4 x 2 = 76.5, capped at 60: 240 x 4/6 = 160.
  EXPECT_NEAR(nvls_bandwidth(kAllReduce, 4), 160.0, 1e-9);
  // All-gather: 40 x 0.85 x 7/8 x 7/8 = 26.03 per channel, x 8 channels,
  // and NCCL does not convert it: 208.25 GB/s.
  EXPECT_NEAR(nvls_bandwidth(kAllGather, 8), 208.25, 1e-9);
  EXPECT_NEAR(nvls_bandwidth(kReduceScatter, 8), 208.25, 1e-9);
}

TEST(NcclNvlsTuning, ChoiceBySizeOnEightH100s) {
  const NcclSystem& h100 = *find_nccl_system("dgx-h100");
  // Ring LL (15.0 us, 141 x 8/14 = 80.6 GB/s) until NVLS's 10 us more
  // latency is paid by its 182.9 GB/s: S (1/80.57 - 1/182.86) / 1000 = 10
  // gives S = 1.44 MB. Then NVLS until ring Simple's 205.7 GB/s pays for
  // its 56.0 us: S (1/182.86 - 1/205.71) / 1000 = 31 gives S = 51.0 MB.
  EXPECT_EQ(nccl_choose(h100, kAllReduce, 8, 1 << 20).estimate.protocol, Protocol::kLL);
  NcclChoice c = nccl_choose(h100, kAllReduce, 8, 2 << 20);
  EXPECT_EQ(c.estimate.algorithm, "nccl-nvls");
  EXPECT_EQ(c.estimate.protocol, Protocol::kSimple);
  EXPECT_EQ(c.channels, 16u);  // NCCL's NVLS channels on Hopper, at every size
  EXPECT_EQ(c.threads, 640u);
  EXPECT_NEAR(c.estimate.time_us, 25.0 + (2 << 20) / (1000.0 * 320 * 8 / 14), 1e-9);
  EXPECT_EQ(nccl_choose(h100, kAllReduce, 8, 48u << 20).estimate.algorithm, "nccl-nvls");
  c = nccl_choose(h100, kAllReduce, 8, 52u << 20);
  EXPECT_EQ(c.estimate.algorithm, "nccl-ring");
  EXPECT_EQ(c.estimate.protocol, Protocol::kSimple);
  // 4 GPUs: NVLS's 160 GB/s never beats the ring's LL128 and Simple; nor
  // does it for all-gather (208 against the ring's 331 x 8/7).
  for (uint64_t bytes = 1024; bytes <= (uint64_t{1} << 30); bytes *= 2) {
    EXPECT_NE(nccl_choose(h100, kAllReduce, 4, bytes).estimate.algorithm, "nccl-nvls") << bytes;
    EXPECT_NE(nccl_choose(h100, kAllGather, 8, bytes).estimate.algorithm, "nccl-nvls") << bytes;
  }
  EXPECT_EQ(nccl_choose(h100, kAllGather, 8, 1 << 20, "nccl-nvls").estimate.algorithm, "nccl-nvls");
}

}  // namespace
}  // namespace snr::dsim::loadstore
