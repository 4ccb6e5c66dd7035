// DMA timing with hand-computed cycles (config: sim_test_util.h).
#include "sim/dma_timing.h"

#include <gtest/gtest.h>

#include <map>

#include "sim/sim_test_util.h"

namespace snr::sim {
namespace {

struct Harness {
  explicit Harness(uint64_t chips = 1)
      : config(testing::round_number_config(chips)), topology(config), dma(config, topology, bus) {
    bus.dma.subscribe([this](const DmaEvent& e) { phases[{e.dma_id, e.phase}] = e.cycle; });
    dma.on_completion([this](const DmaCompletion& c) { done[c.dma_id] = c.cycle; });
  }
  uint64_t issue(uint64_t cycle, MemoryKind src, MemoryKind dst, uint64_t bytes, uint32_t src_chip = 0,
                 uint32_t dst_chip = 0) {
    DmaRequest r;
    r.src_chip = src_chip, r.dst_chip = dst_chip, r.src_memory = src, r.dst_memory = dst, r.bytes = bytes;
    r.row_bytes = bytes;
    return dma.issue(cycle, r);
  }
  uint64_t at(uint64_t id, DmaPhase phase) { return phases.at({id, phase}); }

  hw::HwConfig config;
  hw::Topology topology;
  EventBus bus;
  DmaTiming dma;
  std::map<std::pair<uint64_t, DmaPhase>, uint64_t> phases;
  std::map<uint64_t, uint64_t> done;
};

TEST(DmaTiming, SingleTransferIsBaseLatencyPlusBytesOverBandwidth) {
  Harness h;
  uint64_t id = h.issue(0, MemoryKind::kHbm, MemoryKind::kVmem, 6400);
  h.dma.advance_to(1000);
  EXPECT_EQ(h.at(id, DmaPhase::kBaseLatencyDone), 100u);
  EXPECT_EQ(h.at(id, DmaPhase::kTransferStart), 100u);
  EXPECT_EQ(h.at(id, DmaPhase::kTransferEnd), 200u);  // 6400 B / min(64, 128) B per cycle
  EXPECT_EQ(h.done.at(id), 200u);
}

TEST(DmaTiming, ParallelBaseLatenciesOverlap) {
  Harness h;
  // Three 64-byte DMAs issued on consecutive cycles: their base latencies
  // run at the same time (done at 100, 101, 102), and each transfer is 1 cycle.
  uint64_t a = h.issue(0, MemoryKind::kHbm, MemoryKind::kVmem, 64);
  uint64_t b = h.issue(1, MemoryKind::kHbm, MemoryKind::kVmem, 64);
  uint64_t c = h.issue(2, MemoryKind::kHbm, MemoryKind::kVmem, 64);
  h.dma.advance_to(1000);
  EXPECT_EQ(h.done.at(a), 101u);
  EXPECT_EQ(h.done.at(b), 102u);
  EXPECT_EQ(h.done.at(c), 103u);  // not 3 x 101: base latency is not accumulative
}

TEST(DmaTiming, OneLinkServesOneTransferAtATime) {
  Harness h;
  uint64_t a = h.issue(0, MemoryKind::kHbm, MemoryKind::kVmem, 6400);
  uint64_t b = h.issue(0, MemoryKind::kHbm, MemoryKind::kVmem, 6400);
  h.dma.advance_to(1000);
  EXPECT_EQ(h.at(a, DmaPhase::kTransferStart), 100u);
  EXPECT_EQ(h.at(a, DmaPhase::kTransferEnd), 200u);
  EXPECT_EQ(h.at(b, DmaPhase::kBaseLatencyDone), 100u);
  EXPECT_EQ(h.at(b, DmaPhase::kTransferStart), 200u);  // queued behind a on the same link
  EXPECT_EQ(h.at(b, DmaPhase::kTransferEnd), 300u);
}

TEST(DmaTiming, SharedMemoryBandwidthIsSplitAmongActiveTransfers) {
  Harness h;
  // Different links (HBM->VMEM, HBM->SMEM) share HBM's 64 B/cycle.
  // a alone 100..101 moves 64 B; then both at 32 B/cycle: a's remaining
  // 6336 B take 198 cycles (done 299); b has moved 6336 B by then and its
  // last 64 B go at the full 64 B/cycle: done 300.
  uint64_t a = h.issue(0, MemoryKind::kHbm, MemoryKind::kVmem, 6400);
  uint64_t b = h.issue(1, MemoryKind::kHbm, MemoryKind::kSmem, 6400);
  h.dma.advance_to(1000);
  EXPECT_EQ(h.at(b, DmaPhase::kTransferStart), 101u);
  EXPECT_EQ(h.done.at(a), 299u);
  EXPECT_EQ(h.done.at(b), 300u);
}

TEST(DmaTiming, RemoteTransferUsesIciLinkAndHopLatency) {
  Harness h(2);
  // base 100 + 1 hop x 10; rate min(HBM 64, HBM 64, ICI 32) = 32 B/cycle.
  uint64_t id = h.issue(0, MemoryKind::kHbm, MemoryKind::kHbm, 6400, 0, 1);
  h.dma.advance_to(1000);
  EXPECT_EQ(h.at(id, DmaPhase::kTransferStart), 110u);
  EXPECT_EQ(h.done.at(id), 310u);
}

TEST(DmaTiming, ZeroByteDmaCompletesWhenItsBaseLatencyEnds) {
  Harness h;
  uint64_t id = h.issue(5, MemoryKind::kHbm, MemoryKind::kVmem, 0);
  h.dma.advance_to(1000);
  EXPECT_EQ(h.done.at(id), 105u);
  EXPECT_EQ(h.dma.next_event_cycle(), UINT64_MAX);
}

}  // namespace
}  // namespace snr::sim

namespace snr::sim {
namespace {

TEST(DmaTimingFixedPoint, BytesToQ16IsChecked) {
  EXPECT_EQ(dma_bytes_q16(1), 65536u);
  EXPECT_EQ(dma_bytes_q16((1ull << 48) - 1), ((1ull << 48) - 1) << 16);
  EXPECT_THROW((void)dma_bytes_q16(1ull << 48), Error);
}

TEST(DmaTimingFixedPoint, FastestValidBandwidthTimesExactly) {
  // 1 PB/s HBM and VMEM at the slowest clock: a 1 GiB DMA is still timed
  // from its bytes (the rate used to wrap to 1 B/cycle above 1e24 B/s).
  hw::HwConfig config = testing::round_number_config(1);
  hw::apply_overrides(config, {"clock=1MHz", "hbm.bandwidth=1PB/s", "vmem.bandwidth=1PB/s", "dma.base_latency=0ns",
                               "ici.hop_latency=0ns"});
  hw::Topology topology(config);
  EventBus bus;
  DmaTiming dma(config, topology, bus);
  uint64_t done_cycle = 0;
  dma.on_completion([&](const DmaCompletion& c) { done_cycle = c.cycle; });
  DmaRequest r;
  r.src_memory = MemoryKind::kHbm, r.dst_memory = MemoryKind::kVmem, r.bytes = 1ull << 30, r.row_bytes = r.bytes;
  dma.issue(0, r);
  dma.advance_to(UINT64_MAX - 1);
  EXPECT_EQ(done_cycle, 2u);  // 2^30 B / 1e9 B per cycle, rounded up
}

}  // namespace
}  // namespace snr::sim
