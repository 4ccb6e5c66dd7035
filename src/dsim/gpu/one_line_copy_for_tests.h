// For tests of the GPU model and what drives it: small Programs of one
// kernel whose one workgroup moves one 128-byte line.
#pragma once

#include <cstdint>
#include <vector>

#include "dsim/loadstore/program.h"

namespace snr::dsim::gpu {

inline loadstore::Program one_line_copy() {
  namespace ls = loadstore;
  ls::Program p;
  p.gpus.assign(1, ls::GpuBuffers{1 << 20, 1 << 20, 0, 0});
  p.kernels.push_back(ls::Kernel{0, 0, 1, 0});
  p.workgroups.push_back(ls::Workgroup{0, 0, 1, 1, 0});
  ls::GpuOp op;
  op.kind = ls::OpKind::kMemcpy;
  op.bytes = 128;
  p.add_op(op, {ls::MemRange{0, ls::Space::kInput, 0, 0, 0}, ls::MemRange{0, ls::Space::kOutput, 0, 0, 0}},
           ls::OpOrigin{});
  return p;
}

// Two GPUs; GPU 0's workgroup loads a line through multicast group `use` of
// `groups`, reduced by the switch, and stores it to its own output.
inline loadstore::Program one_switch_reduced_load(const std::vector<std::vector<uint32_t>>& groups = {{0, 1}},
                                                  uint32_t use = 0) {
  namespace ls = loadstore;
  ls::Program p;
  p.gpus.assign(2, ls::GpuBuffers{128, 128, 0, 0});
  for (const auto& members : groups) p.add_multicast_group(members);
  p.kernels.push_back(ls::Kernel{0, 0, 1, 0});
  p.workgroups.push_back(ls::Workgroup{0, 0, 2, 1, 0});
  ls::GpuOp load;
  load.kind = ls::OpKind::kLoad;
  load.flags = ls::GpuOp::kSwitchReduce;
  load.bytes = 128;
  p.add_op(load, {ls::MemRange{use, ls::Space::kInput, ls::MemRange::kMulticast, 0, 0}}, {});
  ls::GpuOp store;
  store.kind = ls::OpKind::kStore;
  store.flags = ls::GpuOp::kChained;
  store.bytes = 128;
  p.add_op(store, {ls::MemRange{0, ls::Space::kOutput, 0, 0, 0}}, {});
  return p;
}

}  // namespace snr::dsim::gpu
