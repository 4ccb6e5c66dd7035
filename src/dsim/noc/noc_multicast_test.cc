// Switch multicast (NVLS) on hand-computed times. The mesh is the two-router
// fixture: CU 0 and the I/O port on the left router, the HBM channel on the
// right one. Serialization at 128 GiB/s: 16 B take ceil(116.4) = 117 ps,
// 128 B ceil(931.3) = 932 ps; a 1e6 GiB/s link takes 1 ps.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "common/error.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/gpu/one_line_copy_for_tests.h"
#include "dsim/noc/noc_network.h"
#include "dsim/noc/noc_test_fixtures.h"

namespace snr::dsim::noc {
namespace {

using gpu::Access;
using gpu::MessageClass;
using gpu::Multicast;
using Times = std::vector<std::pair<uint32_t, TimePs>>;

// 128 GiB/s everywhere; 1 ns between routers, 100 ns up to the switch,
// 5 ns of reduction latency; memory answers at once.
NocConfig multicast_config() {
  NocConfig c = two_router_config();
  c.io_link = {128, 0};
  c.scale_up_link = {128, 100};
  c.scale_up_multicast = true;
  c.switch_reduce = {128, 5};
  return c;
}

// A multicast access from `src_gpu` to `members` (which must outlive it):
// a reduce-load asks with a 16-byte request and gets a line back, a
// broadcast-store sends the line and gets a 16-byte acknowledgement.
Access multicast_access(Multicast kind, uint32_t src_gpu, const std::vector<uint32_t>& members) {
  const bool load = kind == Multicast::kReduceLoad;
  Access a{src_gpu, 0, src_gpu, 0, load ? 16u : 128u, load ? 128u : 16u,
           load ? MessageClass::kControl : MessageClass::kData, load ? MessageClass::kData : MessageClass::kControl};
  a.multicast = kind;
  a.members = members.data();
  a.member_count = static_cast<uint32_t>(members.size());
  return a;
}

Access reduce_load(uint32_t src_gpu, const std::vector<uint32_t>& members) {
  return multicast_access(Multicast::kReduceLoad, src_gpu, members);
}

void expect_one_reduce_load(uint32_t gpus) {
  EventLoop loop;
  NocNetwork net(multicast_config(), gpus, loop);
  Recorder sink(loop);
  net.attach(sink);
  ASSERT_TRUE(net.carries_multicast());
  std::vector<uint32_t> members;
  for (uint32_t g = 0; g < gpus; ++g) members.push_back(g);
  net.send(7, reduce_load(0, members));
  loop.run();
  EXPECT_EQ(sink.arrivals, Times(gpus, {7, 101819}));
  EXPECT_EQ(sink.completions, (Times{{7, 215275}}));
  const NocStats& stats = net.stats();
  ASSERT_EQ(stats.planes.size(), 1u);
  EXPECT_EQ(stats.planes[0].reduce_loads, 1u);
  EXPECT_EQ(stats.planes[0].fanout_messages, gpus);
  EXPECT_EQ(stats.planes[0].fanout_bytes, 16u * gpus);
  EXPECT_EQ(stats.planes[0].gathered_bytes, 128u * gpus);
  EXPECT_EQ(stats.planes[0].reduce_busy_ps, 932u);
  // The requester's port carried one request up and one line down.
  EXPECT_EQ(stats.kinds[static_cast<int>(LinkKind::kCu)].bytes, 16u + 128u);
}

TEST(NocMulticast, ReduceLoadOverTwoGpus) { expect_one_reduce_load(2); }
TEST(NocMulticast, ReduceLoadOverFourGpus) { expect_one_reduce_load(4); }

TEST(NocMulticast, ReductionEngineTakesOneLineAtATime) {
  // gpu 0 and gpu 1 each reduce-load line 0 over {0, 1}; the engine is
  // slower: 128 B at 64 GiB/s = ceil(1862.6) = 1863 ps. Both requests reach
  // the plane at 100351; gpu 1's copies go down behind gpu 0's (117 ps
  // later) and its lines queue behind gpu 0's on each member's hbm, router,
  // io and scale-up links (932 ps each), so gpu 0's group is complete at
  // 206547 and gpu 1's at 207479. The engine reduces gpu 0's line
  // [206547, 208410) and gpu 1's, which waits for it, [208410, 210273);
  // each answer leaves 5 ns later and takes 3 x 932 down to its CU.
  NocConfig config = multicast_config();
  config.switch_reduce = {64, 5};
  EventLoop loop;
  NocNetwork net(config, 2, loop);
  Recorder sink(loop);
  net.attach(sink);
  const std::vector<uint32_t> members{0, 1};
  net.send(0, reduce_load(0, members));
  net.send(1, reduce_load(1, members));
  loop.run();
  EXPECT_EQ(sink.completions, (Times{{0, 208410 + 5000 + 3 * 932}, {1, 210273 + 5000 + 3 * 932}}));
  EXPECT_EQ(net.stats().planes[0].reduce_busy_ps, 2u * 1863);
}

// Only the scale-up links are slow (128 GiB/s, no latency); every other
// link takes 1 ps a hop.
NocConfig fast_mesh_config() {
  NocConfig c = multicast_config();
  c.router_link = {1e6, 0};
  c.cu_link = {1e6, 0};
  c.hbm_link = {1e6, 0};
  c.io_link = {1e6, 0};
  c.scale_up_link = {128, 0};
  return c;
}

Access broadcast_store(uint32_t src_gpu, const std::vector<uint32_t>& members) {
  return multicast_access(Multicast::kBroadcastStore, src_gpu, members);
}

TEST(NocMulticast, BroadcastStoreIsAcknowledgedAfterTheLastMember) {
  // gpu 0 stores a line to {0, 1}, gpu 1 to {0, 1}, at once. Each request:
  // cu 1 + io 1 + scale-up 932: the plane at 934. Both copies of gpu 0's
  // line go down [934, 1866), gpu 1's wait behind them on the same two
  // fan-out links: [1866, 2798). Each copy reaches memory 3 hops later
  // (1869, 2801); its 16-byte acknowledgement is back up at the plane 3 +
  // 117 later (1989, 2921). gpu 0's store is acknowledged once both its
  // members' acknowledgements are in, at 1989, but gpu 0's fan-out link
  // carries gpu 1's copy until 2798: down [2798, 2915), + io + cu = 2917.
  // gpu 1's, at 2921, finds its link free: 2921 + 117 + 2 = 3040.
  EventLoop loop;
  NocNetwork net(fast_mesh_config(), 2, loop);
  Recorder sink(loop);
  net.attach(sink);
  const std::vector<uint32_t> members{0, 1};
  net.send(0, broadcast_store(0, members));
  net.send(1, broadcast_store(1, members));
  loop.run();
  EXPECT_EQ(sink.arrivals, (Times{{0, 1869}, {0, 1869}, {1, 2801}, {1, 2801}}));
  EXPECT_EQ(sink.completions, (Times{{0, 2917}, {1, 3040}}));
  const NocStats& stats = net.stats();
  EXPECT_EQ(stats.planes[0].broadcast_stores, 2u);
  EXPECT_EQ(stats.planes[0].fanout_messages, 4u);
  EXPECT_EQ(stats.planes[0].fanout_bytes, 4u * 128);
  EXPECT_EQ(stats.planes[0].gathered_bytes, 4u * 16);
  EXPECT_EQ(stats.planes[0].reduce_busy_ps, 0u);
  // The fan-out copies waited on the plane's down links: gpu 1's two copies
  // 932 ps each, and gpu 0's acknowledgement 2798 - 1989.
  EXPECT_EQ(stats.kinds[static_cast<int>(LinkKind::kScaleUp)].queued_ps, 2u * 932 + (2798 - 1989));
}

TEST(NocMulticast, RefusedWhereTheConfigurationHasNone) {
  EventLoop loop;
  NocNetwork net(two_router_config(), 2, loop);
  Recorder sink(loop);
  net.attach(sink);
  EXPECT_FALSE(net.carries_multicast());
  const std::vector<uint32_t> members{0, 1};
  EXPECT_THROW(net.send(0, reduce_load(0, members)), Error);
  NocNetwork flows(multicast_config(), 2, loop);
  flows.carry_flows(1000);
  EXPECT_FALSE(flows.carries_multicast());
}

TEST(NocMulticast, ConfigurationKeys) {
  const NocConfig c = parse_noc_config(
      "scale_up: {multicast: true, reduction: {bandwidth_gib_per_s: 64, latency_ns: 20}}\n", "t.yaml");
  EXPECT_TRUE(c.scale_up_multicast);
  EXPECT_DOUBLE_EQ(c.switch_reduce.bandwidth_gib_per_s, 64);
  EXPECT_DOUBLE_EQ(c.switch_reduce.latency_ns, 20);
  EXPECT_THROW(parse_noc_config("scale_up: {multicast: 1}\n", "t.yaml"), Error);
  EXPECT_THROW(parse_noc_config("scale_up: {reduction: {bandwidth_gib_per_s: 0}}\n", "t.yaml"), Error);
  EXPECT_TRUE(noc_config_preset("dgx-h100").scale_up_multicast);
  EXPECT_FALSE(noc_config_preset("dgx-a100").scale_up_multicast);
  EXPECT_FALSE(noc_config_preset("generic-448").scale_up_multicast);
}

gpu::RunStats run_switch_reduce(const NocConfig& config) {
  // gpu 0 loads one line through a switch range over {0, 1} (multimem.ld_reduce).
  const loadstore::Program p = gpu::one_switch_reduced_load();
  gpu::GpuConfig gpu_config;
  gpu_config.clock_ghz = 1.0;
  gpu_config.compute_units = 2;
  EventLoop loop;
  NocNetwork net(config, 2, loop);
  gpu::GpuModel model(p, gpu_config, loop, net);
  model.start();
  loop.run();
  return model.finish();
}

TEST(NocMulticast, GpuModelSendsOneSwitchRequest) {
  // The reduce-load is back at 215275 (as above); the local store issues at
  // the next 1 ns cycle, 216000: cu 932, router 932 + 1000, hbm 932 to
  // memory, and the 16-byte acknowledgement 117 + 117 + 1000 + 117 back.
  const gpu::RunStats stats = run_switch_reduce(multicast_config());
  EXPECT_EQ(stats.requests, 2u);
  EXPECT_EQ(stats.end_ps, 216000u + 932 + 1932 + 932 + 1351);
  EXPECT_EQ(stats.gpus[0].loaded_bytes, 128u);
}

TEST(NocMulticast, GpuModelExpandsWhereTheNetworkHasNone) {
  // As before this model existed: one load per member. The local one is
  // back long before the remote one, issued a cycle later at 1000 and back
  // at 1000 + 209343 (a unicast remote load, see above); the store issues
  // at 211000 and is acknowledged 932 + 1932 + 932 + 1351 later.
  NocConfig config = multicast_config();
  config.scale_up_multicast = false;
  const gpu::RunStats stats = run_switch_reduce(config);
  EXPECT_EQ(stats.requests, 3u);
  EXPECT_EQ(stats.end_ps, 211000u + 932 + 1932 + 932 + 1351);
  EXPECT_EQ(stats.gpus[0].loaded_bytes, 256u);
}

}  // namespace
}  // namespace snr::dsim::noc
