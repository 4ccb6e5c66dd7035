// The NoC's per-bin link record (`snr collective --trace`): hand-computed
// bins, exact queueing through bin merges, and a whole run whose bins add up
// to the network's own per-kind figures without changing its result.
#include "dsim/noc/link_timeline.h"

#include <gtest/gtest.h>

#include <numeric>

#include "dsim/gpu/gpu_config.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/noc/noc_network.h"

namespace snr::dsim::noc {
namespace {

namespace ls = loadstore;
using gpu::TimePs;

TEST(LinkTimeline, BinsStartAtOnePicosecondAndSplitASerialization) {
  LinkTimeline t;
  t.transmitted(0, 0, 3, 10);  // busy 0-3 ps: one picosecond in each of bins 0, 1, 2
  EXPECT_EQ(t.bin_width_ps(), 1u);
  EXPECT_EQ(t.bins_used(), 3u);
  EXPECT_EQ(t.bin(0, 0).busy_ps, 1u);
  EXPECT_EQ(t.bin(2, 0).busy_ps, 1u);
  EXPECT_EQ(t.bin(0, 0).bytes, 10u);
  EXPECT_EQ(t.bin(1, 0).bytes, 0u);
}

TEST(LinkTimeline, MergingBinsKeepsQueueingExact) {
  LinkTimeline t;
  t.transmitted(0, 0, 3, 10);
  t.enqueued(1, 2);  // one message waits 2-5 ps
  t.dequeued(1, 5);
  EXPECT_EQ(t.queued_ps(1), (std::vector<TimePs>{0, 0, 1, 1, 1, 0}));
  // An event at 399 ps is past 200 one-picosecond bins: they merge once.
  t.transmitted(2, 399, 1, 1);
  EXPECT_EQ(t.bin_width_ps(), 2u);
  EXPECT_EQ(t.bins_used(), 200u);
  EXPECT_EQ(t.bin(0, 0).busy_ps, 2u);  // 0-2 ps
  EXPECT_EQ(t.bin(1, 0).busy_ps, 1u);  // 2-3 ps
  EXPECT_EQ(t.bin(0, 0).bytes, 10u);
  EXPECT_EQ(t.bin(199, 2).busy_ps, 1u);
  const std::vector<TimePs> queued = t.queued_ps(1);
  // Waiting 2-4 ps in bin 1 and 4-5 ps in bin 2.
  EXPECT_EQ(queued[0], 0u);
  EXPECT_EQ(queued[1], 2u);
  EXPECT_EQ(queued[2], 1u);
  EXPECT_EQ(std::accumulate(queued.begin(), queued.end(), TimePs{0}), 3u);
}

TEST(LinkTimeline, ALongRunEndsWithOneToTwoHundredBins) {
  LinkTimeline t;
  t.enqueued(4, 1000);
  t.dequeued(4, 1'000'000'000);  // a millisecond
  EXPECT_GE(t.bins_used(), LinkTimeline::kMaxBins / 2);
  EXPECT_LE(t.bins_used(), LinkTimeline::kMaxBins);
  EXPECT_LT(1'000'000'000 / t.bin_width_ps(), LinkTimeline::kMaxBins);
  const std::vector<TimePs> queued = t.queued_ps(4);
  EXPECT_EQ(std::accumulate(queued.begin(), queued.end(), TimePs{0}), 1'000'000'000u - 1000u);
}

// Two GPUs of the paper's preset, each copying 64 KiB to the other from
// four workgroups: every link kind carries traffic and queues build up.
ls::Program exchange_program() {
  ls::Program p;
  p.gpus.assign(2, ls::GpuBuffers{1 << 20, 1 << 20, 1 << 20, 0});
  for (uint32_t g = 0; g < 2; ++g) {
    p.kernels.push_back(ls::Kernel{g, static_cast<uint32_t>(p.workgroups.size()), 4, 0});
    for (uint32_t w = 0; w < 4; ++w) {
      ls::Workgroup wg;
      wg.gpu = g;
      wg.first_op = static_cast<uint32_t>(p.ops.size());
      wg.op_count = 1;
      wg.wavefronts = 4;
      p.workgroups.push_back(wg);
      ls::GpuOp op;
      op.kind = ls::OpKind::kMemcpy;
      op.bytes = 16384;
      p.add_op(op,
               {ls::MemRange{g, ls::Space::kInput, 0, 0, w * 16384ull},
                ls::MemRange{1 - g, ls::Space::kOutput, 0, 0, w * 16384ull}},
               ls::OpOrigin{w, 0, ls::kNone, 0, 0});
    }
  }
  return p;
}

struct ExchangeRun {
  gpu::RunStats stats;
  NocStats net;
  LinkTimeline timeline;
  bool recorded = false;
};

ExchangeRun run_exchange(bool record) {
  const ls::Program program = exchange_program();
  EventLoop loop;
  NocNetwork network(noc_config_preset("generic-448"), 2, loop);
  if (record) network.record_timeline();
  gpu::GpuModel model(program, gpu::gpu_config_preset("generic-448"), loop, network);
  model.start();
  loop.run();
  ExchangeRun r{model.finish(), network.stats(), {}, network.timeline() != nullptr};
  if (r.recorded) r.timeline = *network.timeline();
  return r;
}

TEST(LinkTimeline, BinsAddUpToTheNetworksFiguresAndChangeNothing) {
  const ExchangeRun plain = run_exchange(false);
  const ExchangeRun traced = run_exchange(true);
  ASSERT_FALSE(plain.recorded);
  ASSERT_TRUE(traced.recorded);
  EXPECT_EQ(plain.stats.end_ps, traced.stats.end_ps);
  EXPECT_EQ(plain.stats.workgroup_end_ps, traced.stats.workgroup_end_ps);
  const LinkTimeline& t = traced.timeline;
  // Nothing after the last workgroup retires: the bins cover the run.
  EXPECT_LE((t.bins_used() - 1) * t.bin_width_ps(), traced.stats.end_ps);
  bool some_queueing = false;
  for (int k = 0; k < LinkTimeline::kKinds; ++k) {
    const LinkKindStats& s = traced.net.kinds[k];
    EXPECT_EQ(s.messages, plain.net.kinds[k].messages) << k;
    EXPECT_EQ(s.queued_ps, plain.net.kinds[k].queued_ps) << k;
    TimePs busy = 0;
    uint64_t bytes = 0;
    for (uint32_t b = 0; b < t.bins_used(); ++b) {
      busy += t.bin(b, k).busy_ps;
      bytes += t.bin(b, k).bytes;
      EXPECT_LE(t.bin(b, k).busy_ps, s.links * t.bin_width_ps()) << "kind " << k << " bin " << b;
    }
    EXPECT_EQ(busy, s.busy_ps) << k;
    EXPECT_GT(s.bytes, 0u) << k;
    EXPECT_EQ(bytes, s.bytes) << k;
    const std::vector<TimePs> queued = t.queued_ps(k);
    EXPECT_EQ(std::accumulate(queued.begin(), queued.end(), TimePs{0}), s.queued_ps) << k;
    some_queueing = some_queueing || s.queued_ps > 0;
  }
  EXPECT_TRUE(some_queueing);
}

}  // namespace
}  // namespace snr::dsim::noc
