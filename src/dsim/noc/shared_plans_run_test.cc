// Every shared collective plan the lowering accepts (MSCCL++ JSON and
// ASTRA-sim's MSCCLang XML) runs to completion on the GPU model over the
// paper's NoC, at the plan's smallest exact size and at about 1 MiB.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/loadstore/collective_plan.h"
#include "dsim/loadstore/shared_plan_files.h"
#include "dsim/noc/noc_network.h"

namespace snr::dsim::noc {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> shared_plans() { return loadstore::testing::shared_plan_files(true); }

gpu::RunStats run(const loadstore::Program& program) {
  EventLoop loop;
  NocNetwork network(noc_config_preset("generic-448"), program.gpu_count(), loop);
  gpu::GpuModel model(program, gpu::gpu_config_preset("generic-448"), loop, network);
  model.start();
  loop.run();
  return model.finish();
}

TEST(SharedPlansRun, EveryLowerablePlanCompletesOnThePapersGpu) {
  const auto plans = shared_plans();
  if (plans.empty()) GTEST_SKIP() << "no shared plans";
  size_t ran = 0;
  for (const fs::path& path : plans) {
    SCOPED_TRACE(path.string());
    loadstore::CollectivePlan plan;
    loadstore::Program small;
    try {
      plan = loadstore::load_collective_plan(path.string());
      small = plan.lower(plan.default_input_bytes, 32);
    } catch (const Error&) {
      // The lowering's own refusals (a legacy schema, a concrete plan) are
      // its tests' business; a plan it accepts must run.
      continue;
    }
    const uint64_t large = plan.default_input_bytes * std::max<uint64_t>(1, (1u << 20) / plan.default_input_bytes);
    const gpu::RunStats stats = run(small);
    EXPECT_GT(stats.end_ps, 1000000u) << "a multi-GPU collective crosses 1 us links";
    EXPECT_GT(stats.requests, 0u);
    const gpu::RunStats big = run(plan.lower(large, 32));
    EXPECT_GT(big.requests, 0u);
    ++ran;
  }
  EXPECT_GE(ran, 8u);
}

struct SwitchRun {
  gpu::RunStats stats;
  NocStats net;
};

SwitchRun run_on(const loadstore::Program& program, bool multicast) {
  NocConfig config = noc_config_preset("generic-448");
  config.scale_up_multicast = multicast;
  EventLoop loop;
  NocNetwork network(config, program.gpu_count(), loop);
  gpu::GpuModel model(program, gpu::gpu_config_preset("generic-448"), loop, network);
  model.start();
  loop.run();
  return {model.finish(), network.stats()};
}

// Plans with switch channels (NVLS) complete with the switch multicasting:
// one request and one line on the requester's CU link per multicast line
// instead of one per member GPU.
TEST(SharedPlansRun, SwitchPlansRunAsMulticastWhereTheNetworkHasIt) {
  size_t ran = 0;
  for (const fs::path& path : shared_plans()) {
    loadstore::CollectivePlan plan;
    loadstore::Program program;
    try {
      plan = loadstore::load_collective_plan(path.string());
      program = plan.lower(plan.default_input_bytes * std::max<uint64_t>(1, (1u << 20) / plan.default_input_bytes), 32);
    } catch (const Error&) {
      continue;
    }
    if (program.multicast_members.empty()) continue;
    SCOPED_TRACE(path.string());
    const SwitchRun expanded = run_on(program, false);
    const SwitchRun multicast = run_on(program, true);
    const PlaneStats planes = multicast_totals(multicast.net);
    EXPECT_GT(planes.reduce_loads + planes.broadcast_stores, 0u);
    EXPECT_EQ(multicast_totals(expanded.net).fanout_messages, 0u);
    EXPECT_LT(multicast.stats.requests, expanded.stats.requests);
    const auto cu = static_cast<int>(LinkKind::kCu);
    EXPECT_LT(multicast.net.kinds[cu].bytes, expanded.net.kinds[cu].bytes);
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << "no shared plan with switch channels";
}

}  // namespace
}  // namespace snr::dsim::noc
