// Hand-computed routes and times on small meshes. A 128-byte message on a
// 128 GiB/s link takes ceil(128 B / 128 GiB/s) = ceil(931.32 ps) = 932 ps;
// a link of 1e6 GiB/s takes 1 ps for anything up to 128 bytes.
#include "dsim/noc/noc_network.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "common/file_io.h"
#include "dsim/gpu/fixed_latency_network.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/noc/noc_test_fixtures.h"

namespace snr::dsim::noc {
namespace {

using gpu::Access;
using gpu::MessageClass;

TEST(NocConfig, PresetIsThePapersGpu) {
  const NocConfig c = noc_config_preset("generic-448");
  EXPECT_EQ(c.routers(), 32u);
  EXPECT_EQ(c.compute_units(), 128u);
  EXPECT_EQ(c.hbm_channels(), 256u);
  EXPECT_EQ(c.io_ports(), 32u);
  EXPECT_EQ(c.endpoints(), 448u);
  EXPECT_DOUBLE_EQ(c.hbm_channels() * c.hbm_link.bandwidth_gib_per_s, 4096.0);   // 4 TiB/s
  EXPECT_DOUBLE_EQ(c.io_ports() * c.scale_up_link.bandwidth_gib_per_s, 1024.0);  // 1 TiB/s
}

TEST(NocConfig, StrictReaderNamesTheKeyPath) {
  const NocConfig c = parse_noc_config("mesh: {columns: 4, rows: 2}\nrouting: yx\n", "t.yaml");
  EXPECT_EQ(c.columns, 4u);
  EXPECT_EQ(c.routing, "yx");
  auto message = [](const char* text) {
    try {
      parse_noc_config(text, "t.yaml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("hbm: {per_router: 0}\n").find("'hbm.per_router' = 0 is out of range"), std::string::npos);
  EXPECT_NE(message("hbm: {bandwith_gib_per_s: 3}\n").find("unknown key 'hbm.bandwith_gib_per_s'"), std::string::npos);
  EXPECT_NE(message("routing: zigzag\n").find("unknown routing 'zigzag'"), std::string::npos);
  EXPECT_NE(message("arbitration: lottery\n").find("unknown arbitration"), std::string::npos);
  EXPECT_NE(message("io: {sides: [up]}\n").find("unknown side 'up'"), std::string::npos);
  EXPECT_NE(message("hbm: {sides: [top, top]}\n").find("side 'top' is listed twice"), std::string::npos);
  EXPECT_NE(message("scale_up: {latency_ns: -1}\n").find("'scale_up.latency_ns'"), std::string::npos);
  EXPECT_NE(message("mesh: {columns: x}\n").find("'mesh.columns' must be a whole number"), std::string::npos);
  EXPECT_NE(message("network: {mesh: {rows: 2000}}\n").find("'network.mesh.rows'"), std::string::npos);
}

TEST(NocConfig, AFileWithoutANameIsCalledByItsPath) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("noc_unnamed_" + std::to_string(::getpid()) + ".yaml");
  write_file_atomic(path, "mesh: {columns: 4, rows: 2}\n");
  EXPECT_EQ(load_noc_config(path.string()).name, path.string());
  write_file_atomic(path, "name: mine\nmesh: {columns: 4, rows: 2}\n");
  EXPECT_EQ(load_noc_config(path.string()).name, "mine");
  std::filesystem::remove(path);
}

TEST(NocNetwork, XyRoutingGoesAlongXThenY) {
  EventLoop loop;
  NocNetwork net(noc_config_preset("generic-448"), 1, loop);
  // CU 0 sits on router (0,0); HBM channel 255 on the bottom-right router (7,3).
  const std::vector<uint32_t> links = net.path(net.cu_node(0, 0), net.hbm_node(0, 255));
  ASSERT_EQ(links.size(), 12u);  // up, 7 east, 3 south, down
  EXPECT_EQ(net.link_kind(links.front()), LinkKind::kCu);
  EXPECT_EQ(net.link_kind(links.back()), LinkKind::kHbm);
  EXPECT_EQ(net.link_target(links[7]), net.router_node(0, 7, 0));  // x done first
  EXPECT_EQ(net.link_target(links[10]), net.router_node(0, 7, 3));
  NocConfig yx = noc_config_preset("generic-448");
  yx.routing = "yx";
  NocNetwork net_yx(yx, 1, loop);
  const std::vector<uint32_t> links_yx = net_yx.path(net_yx.cu_node(0, 0), net_yx.hbm_node(0, 255));
  ASSERT_EQ(links_yx.size(), 12u);
  EXPECT_EQ(net_yx.link_target(links_yx[3]), net_yx.router_node(0, 0, 3));  // y done first
}

TEST(NocNetwork, RemoteAccessCrossesThePortsSwitchPlane) {
  EventLoop loop;
  NocNetwork net(noc_config_preset("generic-448"), 2, loop);
  // gpu 0 CU 0 to gpu 1 channel 0 through port 5 (router (0,1) on both).
  const std::vector<uint32_t> links = net.path(net.cu_node(0, 0), net.hbm_node(1, 0), 5);
  // cu up, 1 south to (0,1), io down, scale-up up, plane down, io up, 1 north, hbm down
  ASSERT_EQ(links.size(), 8u);
  EXPECT_EQ(net.link_target(links[2]), net.io_node(0, 5));
  EXPECT_EQ(net.link_kind(links[3]), LinkKind::kScaleUp);
  EXPECT_EQ(net.link_target(links[4]), net.io_node(1, 5));
  EXPECT_EQ(net.link_target(links[6]), net.router_node(1, 0, 0));
}

TEST(NocNetwork, MessagesPipelineAndContendPerLink) {
  EventLoop loop;
  NocNetwork net(two_router_config(), 1, loop);
  Recorder sink(loop);
  net.attach(sink);
  const Access store{0, 0, 0, 0, 128, 16, MessageClass::kData, MessageClass::kControl};
  net.send(0, store);
  net.send(1, store);
  loop.run();
  // A: cu link [0, 932), router link [932, 1864) + 1 ns, hbm link
  // [2864, 3796). B waits 932 on the cu link and reaches the hbm link as A
  // leaves it: [3796, 4728).
  ASSERT_EQ(sink.arrivals.size(), 2u);
  EXPECT_EQ(sink.arrivals[0], (std::pair<uint32_t, TimePs>{0, 3796}));
  EXPECT_EQ(sink.arrivals[1], (std::pair<uint32_t, TimePs>{1, 4728}));
  // 16-byte acks: ceil(116.4) = 117 ps per link, 1 ns on the router link.
  EXPECT_EQ(sink.completions[0].second, 3796u + 117 + 117 + 1000 + 117);
  const NocStats& stats = net.stats();
  EXPECT_EQ(stats.kinds[static_cast<int>(LinkKind::kHbm)].bytes, 2u * 128 + 2u * 16);
  EXPECT_EQ(stats.kinds[static_cast<int>(LinkKind::kCu)].queued_ps, 932u);
}

// D1, D2 (data) and C (control) queue on the CU's 128 GiB/s link; every
// other link is 1e6 GiB/s (1 ps a hop).
std::vector<std::pair<uint32_t, TimePs>> arbitrate(const std::string& arbitration) {
  NocConfig c = two_router_config();
  c.router_link = {1e6, 0};
  c.hbm_link = {1e6, 0};
  c.arbitration = arbitration;
  EventLoop loop;
  NocNetwork net(c, 1, loop);
  Recorder sink(loop);
  net.attach(sink);
  const Access data{0, 0, 0, 0, 128, 16, MessageClass::kData, MessageClass::kControl};
  const Access control{0, 0, 0, 0, 16, 128, MessageClass::kControl, MessageClass::kData};
  net.send(0, data);
  net.send(1, data);
  net.send(2, control);
  loop.run();
  return sink.arrivals;
}

TEST(NocNetwork, FifoArbitrationKeepsArrivalOrder) {
  // D1 [0, 932), D2 [932, 1864), C [1864, 1981); +2 ps to memory.
  EXPECT_EQ(arbitrate("fifo"), (std::vector<std::pair<uint32_t, TimePs>>{{0, 934}, {1, 1866}, {2, 1983}}));
}

TEST(NocNetwork, FairArbitrationAlternatesClasses) {
  // After D1 (data) the waiting control message goes first: C [932, 1049), D2 [1049, 1981).
  EXPECT_EQ(arbitrate("fair"), (std::vector<std::pair<uint32_t, TimePs>>{{0, 934}, {2, 1051}, {1, 1983}}));
}

TEST(NocNetwork, DrivesTheGpuModel) {
  // One 128-byte local copy on the paper's GPU: CU 0 and HBM channel 0
  // both sit on router (0,0).
  loadstore::Program p;
  p.gpus.assign(1, loadstore::GpuBuffers{128, 128, 0, 0});
  p.workgroups.push_back(loadstore::Workgroup{0, 0, 1, 1, 0});
  p.kernels.push_back(loadstore::Kernel{0, 0, 1, 0});
  p.ranges = {loadstore::MemRange{0, loadstore::Space::kInput, 0, 0, 0},
              loadstore::MemRange{0, loadstore::Space::kOutput, 0, 0, 0}};
  loadstore::GpuOp op;
  op.kind = loadstore::OpKind::kMemcpy;
  op.range_count = 2;
  op.bytes = 128;
  p.ops.push_back(op);
  p.origins.push_back({});
  gpu::GpuConfig config;
  config.clock_ghz = 1.0;
  EventLoop loop;
  NocNetwork net(noc_config_preset("generic-448"), 1, loop);
  gpu::GpuModel model(p, config, loop, net);
  model.start();
  loop.run();
  const gpu::RunStats& stats = model.finish();
  // Load: 16 B request up the CU link (15 ps at 1 TiB/s) and down channel
  // 0's 16 GiB/s link (932 ps), 100 ns access, the 128 B line back up the
  // channel link (7451 ps) and down the CU link (117 ps): back at 108515.
  // The store issues at the next 1 ns cycle, 109000; the output space's
  // line 0 interleaves to channel 0 as well: 117 + 7451 + 100000, and the
  // 16 B acknowledgement 932 + 15.
  EXPECT_EQ(stats.end_ps, 109000u + 117 + 7451 + 100000 + 932 + 15);
  EXPECT_EQ(stats.requests, 2u);
}

}  // namespace
}  // namespace snr::dsim::noc
