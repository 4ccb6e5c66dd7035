// Flow-level mode (docs/gpu-model.md): hand-computed times of flows of k
// cache lines through the NoC next to the same lines sent one by one, and
// a collective whose flow-level time stays within 2% of the request-level
// reference. A 128-byte line on a 128 GiB/s link takes ceil(931.32 ps) =
// 932 ps, 256 bytes ceil(1862.65) = 1863 ps, a 16-byte header 117 ps.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/loadstore/generated/plan_generator.h"
#include "dsim/noc/noc_network.h"
#include "dsim/noc/noc_test_fixtures.h"

namespace snr::dsim::noc {
namespace {

using gpu::Access;
using gpu::MessageClass;
using Times = std::vector<std::pair<uint32_t, TimePs>>;

Access store_of(uint32_t lines, uint64_t line = 0, uint32_t dst_gpu = 0) {
  return Access{0, 0, dst_gpu, line, 128 * lines, 16 * lines, MessageClass::kData, MessageClass::kControl, lines};
}

TEST(FlowLevel, AFlowOnIdleLinksEndsWithItsLastLine) {
  // Four single lines: the CU link sends them back to back, each crosses
  // the router link (932 + 1 ns) and the channel's link in turn: at memory
  // at 3796, 4728, 5660, 6592.
  EventLoop loop;
  NocNetwork requests(two_router_config(), 1, loop);
  Recorder lines(loop);
  requests.attach(lines);
  for (uint32_t tag = 0; tag < 4; ++tag) requests.send(tag, store_of(1));
  loop.run();
  EXPECT_EQ(lines.arrivals, (Times{{0, 3796}, {1, 4728}, {2, 5660}, {3, 6592}}));
  EXPECT_EQ(lines.completions.back(), (std::pair<uint32_t, TimePs>{3, 6592 + 117 + 117 + 1000 + 117}));

  // One flow of the four: its head leaves the CU link after one line (932)
  // and the router link after another (+ 1 ns): 2864; the lines cross the
  // channel's link one after another: at memory at 2864 + 4 * 932 = 6592,
  // as the last line. The four acknowledgements (64 bytes) leave the
  // channel one after another (4 * 117), cross the router link head first
  // (117 + 1 ns) and enter the CU whole (ceil(465.66) = 466).
  EventLoop flow_loop;
  NocNetwork flows(two_router_config(), 1, flow_loop);
  flows.carry_flows(0);
  Recorder flow(flow_loop);
  flows.attach(flow);
  flows.send(0, store_of(4));
  flow_loop.run();
  EXPECT_EQ(flow.arrivals, (Times{{0, 6592}}));
  EXPECT_EQ(flow.completions, (Times{{0, 6592 + 4 * 117 + 117 + 1000 + 466}}));
  // The links carried the same bytes either way.
  const NocStats& a = requests.stats();
  const NocStats& b = flows.stats();
  for (int k = 0; k < static_cast<int>(LinkKind::kCount); ++k) EXPECT_EQ(a.kinds[k].bytes, b.kinds[k].bytes);

  // Lines issued 1 ns apart: the flow leaves when its last one would have,
  // 3 ns later.
  EventLoop paced_loop;
  NocNetwork paced(two_router_config(), 1, paced_loop);
  paced.carry_flows(1000);
  Recorder paced_flow(paced_loop);
  paced.attach(paced_flow);
  paced.send(0, store_of(4));
  paced_loop.run();
  EXPECT_EQ(paced_flow.arrivals, (Times{{0, 3000 + 6592}}));
}

TEST(FlowLevel, TwoFlowsContendForTheirLinks) {
  // A and B, two lines each, leave the same CU at once. A holds the CU link
  // [0, 1863), its head reaches the right router at 932 + 932 + 1000 = 2864
  // and its lines take the channel [2864, 3796) and [3796, 4728). B waits
  // for the CU link [1863, 3726), takes the router link as A leaves it
  // (1863 + 932 = 2795) and its head reaches the right router at
  // 2795 + 932 + 1000 = 4727: its lines wait for A's last, [4728, 5660) and
  // [5660, 6592). The same last-line times as the four single lines above.
  EventLoop loop;
  NocNetwork net(two_router_config(), 1, loop);
  net.carry_flows(0);
  Recorder sink(loop);
  net.attach(sink);
  net.send(0, store_of(2));
  net.send(1, store_of(2));
  loop.run();
  EXPECT_EQ(sink.arrivals, (Times{{0, 4728}, {1, 6592}}));
  EXPECT_EQ(net.stats().kinds[static_cast<int>(LinkKind::kCu)].queued_ps, 1863u);
}

TEST(FlowLevel, AFlowStripesOverPortsAndChannels) {
  // The paper's GPU, two of them: lines 0..3 of GPU 1 interleave to HBM
  // channels 0..3 and I/O ports 0..3, all on router (0,0), as is CU 0. One
  // by one: the CU link (1 TiB/s, 117 ps a line) sends them 117 ps apart;
  // each then crosses its own port's 32 GiB/s I/O link, scale-up links and
  // I/O link (3726 ps each, 1 us to the switch plane) and its own
  // channel's 16 GiB/s link (7451 ps), then the 100 ns access: the last
  // at memory at 4 * 117 + 4 * 3726 + 1000000 + 7451 + 100000 = 1122823.
  const NocConfig paper = noc_config_preset("generic-448");
  EventLoop loop;
  NocNetwork requests(paper, 2, loop);
  Recorder lines(loop);
  requests.attach(lines);
  for (uint32_t tag = 0; tag < 4; ++tag) requests.send(tag, store_of(1, tag, 1));
  loop.run();
  ASSERT_EQ(lines.arrivals.size(), 4u);
  EXPECT_EQ(lines.arrivals.back().second, 1122823u);
  // As one flow every line starts after the head's 117 ps: 351 ps
  // earlier; the ports carry one line each.
  EventLoop flow_loop;
  NocNetwork flows(paper, 2, flow_loop);
  flows.carry_flows(0);
  Recorder flow(flow_loop);
  flows.attach(flow);
  flows.send(0, store_of(4, 0, 1));
  flow_loop.run();
  EXPECT_EQ(flow.arrivals, (Times{{0, 1122823 - 351}}));
  EXPECT_EQ(flows.stats().kinds[static_cast<int>(LinkKind::kScaleUp)].max_link_busy_ps, 3726u);
}

TEST(FlowLevel, RequestNetworkRefusesFlows) {
  EventLoop loop;
  NocNetwork net(two_router_config(), 1, loop);
  Recorder sink(loop);
  net.attach(sink);
  EXPECT_THROW(net.send(0, store_of(2)), Error);
}

gpu::RunStats run(const loadstore::Program& program, gpu::Granularity granularity) {
  // The case studies' GPU (examples/collectives/case-studies/case-study-gpu.yaml).
  gpu::GpuConfig config;
  config.unroll = 16;
  config.max_outstanding_per_cu = 1024;
  config.granularity = granularity;
  EventLoop loop;
  NocNetwork network(noc_config_preset("generic-448"), program.gpu_count(), loop);
  gpu::GpuModel model(program, config, loop, network);
  model.start();
  loop.run();
  return model.finish();
}

TEST(FlowLevel, AllGatherWithinTwoPercentOfRequestLevel) {
  for (const loadstore::Transfer transfer : {loadstore::Transfer::kPut, loadstore::Transfer::kGet}) {
    loadstore::GeneratedPlanOptions options;
    options.collective = "allgather";
    options.gpus = 4;
    options.workgroups = 60;
    options.buffer_bytes = 1 << 20;
    options.transfer = transfer;
    const loadstore::Program program =
        loadstore::generate_collective_plan(loadstore::find_plan_algorithm("ring"), options);
    const gpu::RunStats request = run(program, gpu::Granularity::kRequest);
    const gpu::RunStats flow = run(program, gpu::Granularity::kFlow);
    SCOPED_TRACE(loadstore::transfer_name(transfer));
    EXPECT_EQ(request.requests, flow.requests);  // lines, either way
    const double error = std::abs(static_cast<double>(flow.end_ps) / static_cast<double>(request.end_ps) - 1.0);
    EXPECT_LT(error, 0.02) << "request " << request.end_ps << " ps, flow " << flow.end_ps << " ps";
  }
}

}  // namespace
}  // namespace snr::dsim::noc
