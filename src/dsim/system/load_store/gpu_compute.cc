#include "dsim/system/load_store/gpu_compute.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace snr::dsim::load_store {

namespace ls = loadstore;

GpuCompute::GpuCompute(GpuDomain& domain, const gpu::GpuConfig& config, uint32_t workgroups, uint32_t slice_cycles)
    : domain_(domain),
      cycle_ps_(config.cycle_ps()),
      compute_units_(config.compute_units),
      workgroups_(workgroups == 0 ? config.compute_units : workgroups),
      slice_cycles_(slice_cycles) {
  if (cycle_ps_ == 0 || compute_units_ == 0) throw Error("load-store compute: the GPU has no clock or no CUs");
  if (slice_cycles_ == 0) throw Error("load-store compute: a slice of 0 cycles");
}

ls::Program GpuCompute::kernel_for(uint64_t duration_ns) const {
  // Whole cycles, rounded up: a node never ends before its duration.
  const uint64_t duration_ps = duration_ns * 1000;
  const uint64_t total_cycles = (duration_ps + cycle_ps_ - 1) / cycle_ps_;
  const uint64_t parallel = std::min<uint64_t>(workgroups_, compute_units_);
  const uint64_t cycles_per_workgroup = (total_cycles * parallel + workgroups_ - 1) / workgroups_;
  ls::Program program;
  program.gpus.resize(1);
  const uint32_t name = program.add_name(fmt::format("compute {} ns", duration_ns));
  for (uint32_t w = 0; w < workgroups_; ++w) {
    ls::Workgroup workgroup;
    workgroup.first_op = static_cast<uint32_t>(program.ops.size());
    for (uint64_t left = cycles_per_workgroup; left > 0;) {
      ls::GpuOp op;
      op.kind = ls::OpKind::kReduce;
      op.reduce_cycles = static_cast<uint32_t>(std::min<uint64_t>(left, slice_cycles_));
      left -= op.reduce_cycles;
      ls::OpOrigin origin;
      origin.threadblock = w;
      origin.op_index = program.ops.size() - workgroup.first_op;
      origin.name = name;
      program.add_op(op, {}, origin);
    }
    workgroup.op_count = static_cast<uint32_t>(program.ops.size()) - workgroup.first_op;
    program.workgroups.push_back(workgroup);
  }
  program.kernels.push_back(ls::Kernel{0, 0, workgroups_, name});
  return program;
}

void GpuCompute::start_compute(NpuId npu, uint64_t duration_ns, std::function<void(TimeNs done_ns)> done) {
  // Beyond this the ps clock (2^64 ps, 213 days) could not hold the node.
  constexpr uint64_t kMaxDurationNs = uint64_t{1} << 50;
  if (duration_ns > kMaxDurationNs) {
    throw Error(fmt::format("load-store compute: a node of {} ns is beyond the GPU model's clock (at most 2^50 ns)",
                            duration_ns));
  }
  // Built per node, not cached: real traces have as many durations as nodes.
  const uint32_t kernel = domain_.add_program(kernel_for(duration_ns), {npu});
  domain_.launch(kernel, std::move(done));
}

}  // namespace snr::dsim::load_store
