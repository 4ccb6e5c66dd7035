#include "dsim/loadstore/program.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace snr::dsim::loadstore {

uint32_t Program::add_name(std::string name) {
  names.push_back(std::move(name));
  return static_cast<uint32_t>(names.size() - 1);
}

uint32_t Program::add_multicast_group(const std::vector<uint32_t>& members) {
  for (uint32_t g = 0; g + 1 < multicast_offsets.size(); ++g) {
    if (multicast_group(g) == members) return g;
  }
  multicast_members.insert(multicast_members.end(), members.begin(), members.end());
  multicast_offsets.push_back(static_cast<uint32_t>(multicast_members.size()));
  return static_cast<uint32_t>(multicast_offsets.size() - 2);
}

uint32_t Program::add_op(GpuOp op, const std::vector<MemRange>& op_ranges, const OpOrigin& origin) {
  op.range_count = static_cast<uint16_t>(op_ranges.size());
  op.first_range = static_cast<uint32_t>(ranges.size());
  ranges.insert(ranges.end(), op_ranges.begin(), op_ranges.end());
  ops.push_back(op);
  origins.push_back(origin);
  return static_cast<uint32_t>(ops.size() - 1);
}

std::string Program::where(uint32_t op_index) const {
  const OpOrigin& origin = origins[op_index];
  uint32_t gpu = 0;
  for (const Workgroup& wg : workgroups) {
    if (op_index >= wg.first_op && op_index < wg.first_op + wg.op_count) gpu = wg.gpu;
  }
  std::string text = fmt::format("gpu {} threadblock {} {} {}", gpu, origin.threadblock, origin_unit, origin.op_index);
  if (origin.inner_index != kNone) text += fmt::format(".{} (iteration {})", origin.inner_index, origin.iteration);
  return text + fmt::format(" ('{}')", names[origin.name]);
}

std::string_view to_string(OpKind kind) {
  switch (kind) {
    case OpKind::kLoad: return "LoadOp";
    case OpKind::kStore: return "StoreOp";
    case OpKind::kMemcpy: return "MemcpyOp";
    case OpKind::kReduce: return "ReduceOp";
    case OpKind::kSemaphoreAcquire: return "SemaphoreAcquireOp";
    case OpKind::kSemaphoreRelease: return "SemaphoreReleaseOp";
    case OpKind::kNop: return "NopOp";
    case OpKind::kBarrier: return "BarrierOp";
  }
  return "?";
}

std::string_view to_string(Space space) {
  switch (space) {
    case Space::kInput: return "input";
    case Space::kOutput: return "output";
    case Space::kScratch: return "scratch";
  }
  return "?";
}

namespace {

void account(const MemRange& range, uint64_t bytes, uint32_t gpu, bool store, std::vector<GpuTraffic>& out) {
  GpuTraffic& t = out[gpu];
  const uint64_t wire = range.wire_bytes(bytes);
  if (range.multicast()) {
    (store ? t.multicast_store_bytes : t.multicast_load_bytes) += bytes;
    t.wire_bytes_remote += wire;
  } else if (range.gpu != gpu) {
    (store ? t.remote_store_bytes : t.remote_load_bytes) += bytes;
    t.wire_bytes_remote += wire;
    if (!store && range.gpu < out.size()) out[range.gpu].served_load_bytes += bytes;
  } else {
    (store ? t.local_store_bytes : t.local_load_bytes) += bytes;
  }
}

}  // namespace

std::vector<GpuTraffic> traffic(const Program& program) {
  std::vector<GpuTraffic> out(program.gpu_count());
  for (const Workgroup& wg : program.workgroups) {
    GpuTraffic& t = out[wg.gpu];
    for (uint32_t i = wg.first_op; i < wg.first_op + wg.op_count; ++i) {
      const GpuOp& op = program.ops[i];
      ++t.op_counts[static_cast<size_t>(op.kind)];
      const MemRange* ranges = program.ranges_of(op);
      switch (op.kind) {
        case OpKind::kLoad:
          for (uint16_t r = 0; r < op.range_count; ++r) account(ranges[r], op.bytes, wg.gpu, false, out);
          break;
        case OpKind::kStore:
          for (uint16_t r = 0; r < op.range_count; ++r) account(ranges[r], op.bytes, wg.gpu, true, out);
          break;
        case OpKind::kMemcpy:
          if (op.flags & GpuOp::kViaProxy) {
            t.proxy_bytes += op.bytes;
            t.wire_bytes_remote += ranges[1].wire_bytes(op.bytes);
          } else {
            account(ranges[0], op.bytes, wg.gpu, false, out);
            account(ranges[1], op.bytes, wg.gpu, true, out);
          }
          break;
        case OpKind::kSemaphoreAcquire:
        case OpKind::kSemaphoreRelease:
          ++t.semaphore_requests;
          break;
        default:
          break;
      }
    }
  }
  return out;
}

uint16_t wavefronts_per_workgroup(uint32_t threads, uint32_t wavefront_threads) {
  if (threads == 0 || wavefront_threads == 0) {
    throw Error(fmt::format("{} threads per workgroup in wavefronts of {}: both must be positive", threads,
                            wavefront_threads));
  }
  const uint64_t wavefronts = (uint64_t{threads} + wavefront_threads - 1) / wavefront_threads;
  if (wavefronts > UINT16_MAX) {
    throw Error(fmt::format("{} threads per workgroup in wavefronts of {} threads make {} wavefronts, more than the "
                            "{} a workgroup holds",
                            threads, wavefront_threads, wavefronts, UINT16_MAX));
  }
  return static_cast<uint16_t>(wavefronts);
}

uint64_t line_requests(const Program& program, uint32_t cache_line_bytes) {
  const uint64_t line = cache_line_bytes == 0 ? 1 : cache_line_bytes;
  const auto moves_lines = [](const GpuOp& op) {
    return op.kind == OpKind::kLoad || op.kind == OpKind::kStore || op.kind == OpKind::kMemcpy;
  };
  uint64_t requests = 0;
  for (size_t first = 0; first < program.ops.size();) {
    // A chain (an op and the chained ones after it) runs one per-line loop
    // whose payload per line is the smallest any of its ranges carries: a
    // packet range halves every range's line.
    size_t end = first + 1;
    while (end < program.ops.size() && program.ops[end].chained()) ++end;
    uint64_t payload = line;
    for (size_t i = first; i < end; ++i) {
      const GpuOp& op = program.ops[i];
      if (!moves_lines(op)) continue;
      const MemRange* ranges = program.ranges_of(op);
      for (uint16_t r = 0; r < op.range_count; ++r) {
        if (ranges[r].flags & MemRange::kPacket) payload = std::min(payload, line / 2);
        if (ranges[r].flags & MemRange::kPacket128) payload = std::min(payload, line - line / 16);
      }
    }
    payload = std::max<uint64_t>(payload, 1);
    for (size_t i = first; i < end; ++i) {
      const GpuOp& op = program.ops[i];
      if (moves_lines(op)) {
        requests += op.range_count * ((op.bytes + payload - 1) / payload);
      } else if (op.kind == OpKind::kSemaphoreAcquire || op.kind == OpKind::kSemaphoreRelease) {
        ++requests;
      }
    }
    first = end;
  }
  return requests;
}

std::string summarize(const Program& program) {
  std::string out = fmt::format("{} GPUs, {} kernels, {} workgroups, {} ops, {} semaphores, {} barriers, {} multicast "
                                "groups\n",
                                program.gpu_count(), program.kernels.size(), program.workgroups.size(),
                                program.ops.size(), program.semaphores.size(), program.barriers.size(),
                                program.multicast_offsets.size() - 1);
  const auto per_gpu = traffic(program);
  for (uint32_t g = 0; g < program.gpu_count(); ++g) {
    const GpuTraffic& t = per_gpu[g];
    const GpuBuffers& b = program.gpus[g];
    std::string ops;
    for (size_t k = 0; k < 8; ++k) {
      if (t.op_counts[k]) ops += fmt::format(" {}={}", to_string(static_cast<OpKind>(k)), t.op_counts[k]);
    }
    out += fmt::format("gpu {}: buffers i/o/s {}/{}/{} B (chunk {} B); ops:{}\n", g, b.input_bytes, b.output_bytes,
                       b.scratch_bytes, b.chunk_bytes, ops);
    out += fmt::format("  load B local {} remote {} multicast {}; store B local {} remote {} multicast {}; proxy {} B; "
                       "off-GPU wire {} B; semaphore requests {}\n",
                       t.local_load_bytes, t.remote_load_bytes, t.multicast_load_bytes, t.local_store_bytes,
                       t.remote_store_bytes, t.multicast_store_bytes, t.proxy_bytes, t.wire_bytes_remote,
                       t.semaphore_requests);
  }
  return out;
}

}  // namespace snr::dsim::loadstore
