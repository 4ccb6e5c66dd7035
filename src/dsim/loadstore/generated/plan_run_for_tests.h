// Runs a generated plan on the GPU model over a network without topology,
// for the tests of the generated plans: whether it completes (the model
// throws, naming every waiting workgroup, on a deadlock) and when. The
// data-movement checker runs a workgroup as one thread; the model runs its
// wavefronts and places workgroups on CUs, so this also covers the
// wavefront-0-only semaphore ops and workgroup residency.
#pragma once

#include "dsim/core/event_loop.h"
#include "dsim/gpu/fixed_latency_network.h"
#include "dsim/gpu/gpu_config.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/loadstore/program.h"

namespace snr::dsim::loadstore {

// Enough CUs that every workgroup of the tests' plans is resident at once
// (a waiting workgroup must never keep the one it waits for off the GPU).
inline gpu::RunStats run_generated_plan(const Program& program) {
  constexpr gpu::TimePs kNs = 1000;
  gpu::GpuConfig config;
  config.compute_units = 64;
  config.workgroups_per_cu = 4;
  config.clock_ghz = 1.0;
  EventLoop loop;
  gpu::FixedLatencyNetwork network(loop, 5 * kNs, 500 * kNs);
  gpu::GpuModel model(program, config, loop, network);
  model.start();
  loop.run();
  return model.finish();
}

}  // namespace snr::dsim::loadstore
