// GPU compute nodes of a `snr sim` run as kernels on the load-store GPU
// model (load-store-compute: gpu; seed 003 §4.3): a node that takes D ns
// alone becomes a kernel of W workgroups (one wavefront each) whose
// ReduceOps keep the CUs' ALUs busy for D in total. On an idle GPU it ends
// D ns later (rounded up to whole GPU cycles, then to the next ns); beside
// the collectives' kernels it competes for what they compete for: CU slots
// (workgroups per CU) and the ALU their reductions use.
//
// Why D × min(W, CUs) / W cycles per workgroup: the workgroups of one CU
// share its ALU, so W workgroups run min(W, CUs) at a time; W a multiple
// of the CU count then takes exactly D on an idle GPU.
//
// Why slices: a CU's ALU serves ReduceOps in the order they ask for it, so
// one ReduceOp of D cycles would keep a collective's reduction on that CU
// waiting for the whole node. A workgroup's share is a chain of ReduceOps
// of at most `slice_cycles` each, and the two interleave at that grain.
#pragma once

#include <cstdint>
#include <functional>

#include "dsim/gpu/gpu_config.h"
#include "dsim/loadstore/program.h"
#include "dsim/system/compute_device.h"
#include "dsim/system/load_store/gpu_domain.h"

namespace snr::dsim::load_store {

class GpuCompute final : public ComputeDevice {
 public:
  static constexpr uint32_t kDefaultSliceCycles = 4096;
  // `workgroups` 0: one per CU; `slice_cycles` >= 1. `domain` must outlive this.
  GpuCompute(GpuDomain& domain, const gpu::GpuConfig& config, uint32_t workgroups,
             uint32_t slice_cycles = kDefaultSliceCycles);

  void start_compute(NpuId npu, uint64_t duration_ns, std::function<void(TimeNs done_ns)> done) override;

  // The kernel a node of `duration_ns` becomes (one GPU), for tests and docs.
  [[nodiscard]] loadstore::Program kernel_for(uint64_t duration_ns) const;
  [[nodiscard]] uint32_t workgroups() const { return workgroups_; }

 private:
  GpuDomain& domain_;
  uint64_t cycle_ps_;
  uint32_t compute_units_;
  uint32_t workgroups_;
  uint32_t slice_cycles_;
};

}  // namespace snr::dsim::load_store
