// A device that runs the workload's GPU compute nodes itself, so that they
// contend with communication for its compute units and ALUs (seed 003
// §4.3: compute kernels decomposed into workgroups of ReduceOps on the same
// GPU model as the collectives). Offered by a collective algorithm's run
// state (AlgorithmRun::compute_device); without one, a compute node takes
// its duration on its NPU's compute lane, as in ASTRA-sim 2.x.
#pragma once

#include <cstdint>
#include <functional>

#include "dsim/core/event.h"

namespace snr::dsim {

class ComputeDevice {
 public:
  virtual ~ComputeDevice() = default;
  // Runs, on `npu`'s device from the loop's now, a compute node that takes
  // `duration_ns` on an idle device. `done` gets the ns time it finishes
  // (later than now + duration_ns when other kernels hold the resources it
  // needs) and may schedule events, nothing else.
  virtual void start_compute(NpuId npu, uint64_t duration_ns, std::function<void(TimeNs done_ns)> done) = 0;
};

}  // namespace snr::dsim
