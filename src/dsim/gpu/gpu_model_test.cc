// Cycle counts computed by hand on the fixed-latency network (1 GHz clock:
// one cycle = 1 ns; local one-way 5 ns, so a local load or store round trip
// is 10 cycles; remote one-way 500 ns).
#include "dsim/gpu/gpu_model.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "dsim/gpu/fixed_latency_network.h"

namespace snr::dsim::gpu {
namespace {

namespace ls = loadstore;

constexpr TimePs kNs = 1000;

// Builds programs op by op: one kernel per GPU, workgroups in order.
class Builder {
 public:
  explicit Builder(uint32_t gpus) {
    program.gpus.assign(gpus, ls::GpuBuffers{1 << 20, 1 << 20, 1 << 20, 0});
    for (uint32_t g = 0; g < gpus; ++g) program.kernels.push_back(ls::Kernel{g, 0, 0, 0});
  }
  uint32_t workgroup(uint32_t gpu, uint16_t wavefronts = 1) {
    ls::Workgroup wg;
    wg.gpu = gpu;
    wg.first_op = static_cast<uint32_t>(program.ops.size());
    wg.wavefronts = wavefronts;
    program.workgroups.push_back(wg);
    current_ = static_cast<uint32_t>(program.workgroups.size() - 1);
    ls::Kernel& k = program.kernels[gpu];
    if (k.workgroup_count == 0) k.first_workgroup = current_;
    ++k.workgroup_count;
    return current_;
  }
  void op(ls::OpKind kind, uint64_t bytes, std::vector<ls::MemRange> ranges, uint32_t sync = ls::kNone,
          uint32_t reduce_cycles = 0, uint8_t flags = 0) {
    ls::GpuOp op;
    op.kind = kind;
    op.flags = flags;
    op.bytes = bytes;
    op.first_range = static_cast<uint32_t>(program.ranges.size());
    op.range_count = static_cast<uint16_t>(ranges.size());
    op.sync = sync;
    op.reduce_cycles = reduce_cycles;
    program.ranges.insert(program.ranges.end(), ranges.begin(), ranges.end());
    program.ops.push_back(op);
    program.origins.push_back(ls::OpOrigin{current_, program.workgroups[current_].op_count, ls::kNone, 0, 0});
    ++program.workgroups[current_].op_count;
  }
  void memcpy(uint64_t bytes, uint32_t src_gpu, uint32_t dst_gpu) {
    op(ls::OpKind::kMemcpy, bytes,
       {ls::MemRange{src_gpu, ls::Space::kInput, 0, 0, 0}, ls::MemRange{dst_gpu, ls::Space::kOutput, 0, 0, 0}});
  }
  uint32_t semaphore(uint32_t gpu, uint32_t initial = 0) {
    program.semaphores.push_back(ls::Semaphore{gpu, initial, program.add_name("sem" + std::to_string(gpu))});
    return static_cast<uint32_t>(program.semaphores.size() - 1);
  }
  ls::Program program;

 private:
  uint32_t current_ = 0;
};

GpuConfig test_config(uint32_t cus = 4, uint32_t unroll = 1) {
  GpuConfig c;
  c.compute_units = cus;
  c.workgroups_per_cu = 1;
  c.clock_ghz = 1.0;
  c.unroll = unroll;
  c.max_outstanding_per_cu = 64;
  return c;
}

RunStats run(const ls::Program& program, const GpuConfig& config) {
  EventLoop loop;
  FixedLatencyNetwork network(loop, 5 * kNs, 500 * kNs);
  GpuModel model(program, config, loop, network);
  model.start();
  loop.run();
  return model.finish();
}

TEST(GpuModel, MemcpyUnrollOneIsLoadWaitStorePerLine) {
  Builder b(1);
  b.workgroup(0);
  b.memcpy(512, 0, 0);  // 4 lines
  // Line k: load at 11k, back 10 cycles later, store in that cycle, next
  // load one cycle after; the last store (issued at 43) is acked at 53.
  const RunStats stats = run(b.program, test_config(4, 1));
  EXPECT_EQ(stats.end_ps, 53 * kNs);
  EXPECT_EQ(stats.requests, 8u);
  EXPECT_EQ(stats.gpus[0].data_bytes, 8u * 128);
  EXPECT_EQ(stats.gpus[0].control_bytes, 8u * 16);
  EXPECT_EQ(stats.gpus[0].remote_bytes, 0u);
}

TEST(GpuModel, MemcpyUnrollFourOverlapsTheLoads) {
  Builder b(1);
  b.workgroup(0);
  b.memcpy(512, 0, 0);
  // Loads at 0..3, back at 10..13; stores at 13..16, the last acked at 26.
  EXPECT_EQ(run(b.program, test_config(4, 4)).end_ps, 26 * kNs);
}

TEST(GpuModel, FlowLevelCostsWhatItsLinesCost) {
  Builder b(1);
  b.workgroup(0);
  b.memcpy(512, 0, 0);
  GpuConfig config = test_config(4, 4);
  config.granularity = Granularity::kFlow;
  // One flow of 4 loads issued at 0 leaves when its last line would have
  // (3) and is back at 13; the CU is busy issuing it until 4. The store
  // flow issues at 13, leaves at 16 and is acked at 26: as line by line,
  // with 2 requests instead of 8 (the stats still count lines).
  const RunStats stats = run(b.program, config);
  EXPECT_EQ(stats.end_ps, 26 * kNs);
  EXPECT_EQ(stats.requests, 8u);
  EXPECT_EQ(stats.max_in_flight, 1u);
  EXPECT_EQ(stats.gpus[0].data_bytes, 8u * 128);
  EXPECT_EQ(stats.gpus[0].control_bytes, 8u * 16);
  // Unroll 1: flows of one line, the request-level times exactly.
  config.unroll = 1;
  EXPECT_EQ(run(b.program, config).end_ps, 53 * kNs);
}

TEST(GpuModel, OutstandingLimitThrottlesIssue) {
  Builder b(1);
  b.workgroup(0);
  b.memcpy(512, 0, 0);
  GpuConfig config = test_config(4, 4);
  config.max_outstanding_per_cu = 2;
  // Loads 0,1 at 0,1; loads 2,3 at 10,11 as slots free; back at 20,21;
  // stores (holding no slot) at 21..24; last ack at 34.
  EXPECT_EQ(run(b.program, config).end_ps, 34 * kNs);
  // Stores holding their slot until acknowledged: stores at 21,22, then
  // 31,32 after the first acks; last ack at 42.
  config.stores_wait_for_ack = true;
  EXPECT_EQ(run(b.program, config).end_ps, 42 * kNs);
}

TEST(GpuModel, StoresIssueWhileLoadsFillTheOutstandingSlots) {
  Builder b(1);
  b.workgroup(0, 2);
  b.memcpy(256, 0, 0);  // one line per wavefront
  GpuConfig config = test_config(4, 1);
  config.max_outstanding_per_cu = 1;
  // Wavefront 0 loads at 0 (the one slot); its line is back at 10, when
  // wavefront 1 takes the slot for its load; wavefront 0's store needs no
  // slot and goes at 11 (acked 21); wavefront 1's line is back at 20, its
  // store acked at 30.
  EXPECT_EQ(run(b.program, config).end_ps, 30 * kNs);
}

TEST(GpuModel, SemaphoreHandshakeBetweenTwoGpus) {
  Builder b(2);
  const uint32_t sem = b.semaphore(1);
  b.workgroup(0);
  b.memcpy(128, 0, 1);                              // put one line into gpu 1
  b.op(ls::OpKind::kSemaphoreRelease, 0, {}, sem);  // fenced signal
  const uint32_t receiver = b.workgroup(1);
  b.op(ls::OpKind::kSemaphoreAcquire, 0, {}, sem);  // wait
  b.memcpy(128, 1, 1);                              // then use the data
  const RunStats stats = run(b.program, test_config());
  // gpu 0: load 0..10, remote store at 10 acked at 1010, release at 1010
  // reaches gpu 1 at 1510 (acked at 2010). gpu 1: its poll parked since 5
  // is answered at 1510 and returns at 1515; load 1515..1525, store acked
  // at 1535.
  EXPECT_EQ(stats.gpus[0].end_ps, 2010 * kNs);
  EXPECT_EQ(stats.gpus[1].end_ps, 1535 * kNs);
  EXPECT_EQ(stats.workgroup_end_ps[receiver], 1535 * kNs);
  // Control: gpu 0's load request, store ack, release line + ack.
  EXPECT_EQ(stats.gpus[0].control_bytes, 16u + 16u + 128u + 16u);
  EXPECT_EQ(stats.gpus[0].remote_bytes, 128u + 16u + 128u + 16u);
}

TEST(GpuModel, WorkgroupsGoRoundRobinToFreeCusWithinTheLimit) {
  Builder b(1);
  const uint32_t cycles[] = {10, 20, 30, 40, 5};
  for (uint32_t c : cycles) {
    b.workgroup(0);
    b.op(ls::OpKind::kReduce, 0, {}, ls::kNone, c);
  }
  GpuConfig config = test_config(2);
  config.workgroups_per_cu = 2;
  const RunStats stats = run(b.program, config);
  // wg0..3 alternate cu0/cu1; wg4 waits for the first free slot (cu0 at 10).
  // The ALU of a CU runs one ReduceOp at a time: cu0 0-10 wg0, 10-40 wg2,
  // 40-45 wg4; cu1 0-20 wg1, 20-60 wg3.
  EXPECT_EQ(stats.workgroup_cu, (std::vector<uint32_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(stats.workgroup_start_ps, (std::vector<TimePs>{0, 0, 0, 0, 10 * kNs}));
  EXPECT_EQ(stats.workgroup_end_ps, (std::vector<TimePs>{10 * kNs, 20 * kNs, 40 * kNs, 60 * kNs, 45 * kNs}));
}

TEST(GpuModel, NopOpHoldsWavefrontsUntilAllArrive) {
  Builder b(1);
  const uint32_t sem = b.semaphore(0, 1);
  b.workgroup(0, 2);
  b.op(ls::OpKind::kSemaphoreAcquire, 0, {}, sem);  // wavefront 0 only: back at 10
  b.op(ls::OpKind::kNop, 0, {});
  b.memcpy(256, 0, 0);  // one line per wavefront, both after 10
  // Loads at 10 and 11, stores at 20 and 21, last ack at 31 (without the
  // NopOp wavefront 1 would copy its line at once and the run end at 21).
  EXPECT_EQ(run(b.program, test_config()).end_ps, 31 * kNs);
}

TEST(GpuModel, BarrierOpHoldsWorkgroupsUntilAllArrive) {
  Builder b(1);
  b.program.barriers.push_back(ls::Barrier{0, 2, b.program.add_name("barrier 0")});
  for (uint32_t c : {10u, 50u}) {
    b.workgroup(0);
    b.op(ls::OpKind::kReduce, 0, {}, ls::kNone, c);
    b.op(ls::OpKind::kBarrier, 0, {}, 0);
    b.memcpy(128, 0, 0);
  }
  const RunStats stats = run(b.program, test_config(2));
  // Both copy after 50: load 50..60, store acked at 70.
  EXPECT_EQ(stats.workgroup_end_ps, (std::vector<TimePs>{70 * kNs, 70 * kNs}));
}

TEST(GpuModel, BarrierCountsAWorkgroupOnceWhileItsStoresDrain) {
  Builder b(1);
  b.program.barriers.push_back(ls::Barrier{0, 2, b.program.add_name("barrier 0")});
  b.workgroup(0);
  b.memcpy(128, 0, 0);  // its store is acknowledged at 20, while it waits at the barrier
  b.op(ls::OpKind::kBarrier, 0, {}, 0);
  b.op(ls::OpKind::kReduce, 0, {}, ls::kNone, 1);
  b.workgroup(0);
  b.op(ls::OpKind::kReduce, 0, {}, ls::kNone, 50);
  b.op(ls::OpKind::kBarrier, 0, {}, 0);
  const RunStats stats = run(b.program, test_config(2));
  // Released when the second workgroup arrives at 50; the first then
  // reduces for one cycle.
  EXPECT_EQ(stats.workgroup_end_ps, (std::vector<TimePs>{51 * kNs, 50 * kNs}));
}

TEST(GpuModel, ChainedReduceCostsCyclesPerLine) {
  Builder b(1);
  b.workgroup(0);
  b.op(ls::OpKind::kLoad, 256,
       {ls::MemRange{0, ls::Space::kInput, 0, 0, 0}, ls::MemRange{0, ls::Space::kScratch, 0, 0, 0}});
  b.op(ls::OpKind::kReduce, 256, {}, ls::kNone, 0, ls::GpuOp::kChained);
  b.op(ls::OpKind::kStore, 256, {ls::MemRange{0, ls::Space::kOutput, 0, 0, 0}}, ls::kNone, 0, ls::GpuOp::kChained);
  GpuConfig config = test_config(1, 2);
  config.reduce_cycles_per_line = 3;
  // 2 lines x 2 sources: loads at 0..3, back by 13; reduce 2 lines x 3
  // cycles = 13..19; stores at 19, 20; last ack at 30.
  EXPECT_EQ(run(b.program, config).end_ps, 30 * kNs);
}

TEST(GpuModel, PacketLoadWaitsForThePacketStore) {
  Builder b(2);
  ls::MemRange remote_packet{1, ls::Space::kScratch, ls::MemRange::kPacket, 0, 0};
  ls::MemRange local_packet{1, ls::Space::kScratch, ls::MemRange::kPacket, 0, 0};
  b.workgroup(0);
  b.op(ls::OpKind::kMemcpy, 64, {ls::MemRange{0, ls::Space::kInput, 0, 0, 0}, remote_packet});
  b.workgroup(1);
  b.op(ls::OpKind::kMemcpy, 64, {local_packet, ls::MemRange{1, ls::Space::kOutput, 0, 0, 0}});
  const RunStats stats = run(b.program, test_config());
  // gpu 0: load 0..10, packet store (128 wire bytes for 64 payload) at 10
  // reaches gpu 1 at 510; gpu 1's packet load, parked since 5, returns at
  // 515; store acked at 525.
  EXPECT_EQ(stats.gpus[1].end_ps, 525 * kNs);
  EXPECT_EQ(stats.gpus[0].data_bytes, 64u + 128u);
}

TEST(GpuModel, DeadlockNamesTheWaitingOp) {
  Builder b(1);
  const uint32_t sem = b.semaphore(0);
  b.workgroup(0);
  b.op(ls::OpKind::kSemaphoreAcquire, 0, {}, sem);
  try {
    run(b.program, test_config());
    FAIL() << "expected a deadlock";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("waits on sem0"), std::string::npos) << e.what();
  }
}

TEST(GpuConfig, StrictReaderNamesTheKey) {
  EXPECT_EQ(parse_gpu_config("unroll: 8\n", "t").unroll, 8u);
  EXPECT_EQ(parse_gpu_config("gpu:\n  compute_units: 64\nnetwork: {}\n", "t").compute_units, 64u);
  EXPECT_THROW(parse_gpu_config("unrol: 8\n", "t"), Error);
  try {
    parse_gpu_config("unroll: 0\n", "t.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'unroll'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_gpu_config("cache_line_bytes: 100\n", "t"), Error);
  EXPECT_THROW(parse_gpu_config("clock_ghz: -1\n", "t"), Error);
  EXPECT_THROW(parse_gpu_config("max_outstanding_per_cu: -1\n", "t"), Error);
  EXPECT_TRUE(parse_gpu_config("stores_wait_for_ack: true\n", "t").stores_wait_for_ack);
  EXPECT_THROW(parse_gpu_config("stores_wait_for_ack: 3\n", "t"), Error);
  // yes/on/Y are YAML 1.1 spellings yaml-cpp would take; snr's booleans are true and false.
  for (const char* other : {"yes", "on", "Y", "True", "[true]"}) {
    EXPECT_THROW(parse_gpu_config(std::string("stores_wait_for_ack: ") + other + "\n", "t"), Error) << other;
  }
  EXPECT_FALSE(parse_gpu_config("stores_wait_for_ack: false\n", "t").stores_wait_for_ack);
  EXPECT_EQ(parse_gpu_config("unroll: 8\n", "t").granularity, Granularity::kRequest);
  EXPECT_EQ(parse_gpu_config("granularity: flow\n", "t").granularity, Granularity::kFlow);
  try {
    parse_gpu_config("granularity: packet\n", "t.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown granularity 'packet'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snr::dsim::gpu
