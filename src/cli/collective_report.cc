#include "cli/collective_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"

namespace snr::cli {

namespace gpu = dsim::gpu;
namespace ls = dsim::loadstore;

namespace {

// Destinations a range writes: every member of a multicast group (the GPU
// model sends each its own store).
uint64_t destinations(const ls::Program& program, const ls::MemRange& range) {
  if (!range.multicast()) return 1;
  return program.multicast_offsets[range.gpu + 1] - program.multicast_offsets[range.gpu];
}

// Payload the stores of a workgroup write, counted the way the GPU model
// runs them: a chain (an op and the chained ops after it) is one loop over
// the largest op's bytes, storing each line to every destination.
uint64_t stored_bytes(const ls::Program& program, const ls::Workgroup& wg) {
  uint64_t total = 0;
  const uint32_t end = wg.first_op + wg.op_count;
  for (uint32_t o = wg.first_op; o < end;) {
    uint64_t bytes = 0, stores = 0;
    do {
      const ls::GpuOp& op = program.ops[o];
      const ls::MemRange* ranges = program.ranges_of(op);
      if (op.kind == ls::OpKind::kStore) {
        for (uint32_t r = 0; r < op.range_count; ++r) stores += destinations(program, ranges[r]);
      } else if (op.kind == ls::OpKind::kMemcpy && op.range_count == 2) {
        stores += destinations(program, ranges[1]);
      }
      if (op.kind == ls::OpKind::kLoad || op.kind == ls::OpKind::kStore || op.kind == ls::OpKind::kMemcpy) {
        bytes = std::max(bytes, op.bytes);
      }
      ++o;
    } while (o < end && program.ops[o].chained());
    total += bytes * stores;
  }
  return total;
}

double ns(gpu::TimePs ps) { return static_cast<double>(ps) / 1000.0; }

std::string csv_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace

std::vector<KernelTiming> kernel_timings(const ls::Program& program, const gpu::RunStats& stats, double bus_factor) {
  std::vector<uint32_t> kernels_of_gpu(program.gpu_count(), 0);
  for (const ls::Kernel& k : program.kernels) {
    if (k.gpu < kernels_of_gpu.size()) ++kernels_of_gpu[k.gpu];
  }
  std::vector<KernelTiming> out;
  out.reserve(program.kernels.size());
  for (uint32_t i = 0; i < program.kernels.size(); ++i) {
    const ls::Kernel& k = program.kernels[i];
    KernelTiming t;
    t.kernel = i;
    t.gpu = k.gpu;
    t.name = k.name < program.names.size() && !program.names[k.name].empty() ? program.names[k.name]
                                                                             : fmt::format("kernel {}", i);
    t.workgroups = k.workgroup_count;
    bool first = true;
    for (uint32_t w = k.first_workgroup; w < k.first_workgroup + k.workgroup_count; ++w) {
      if (w >= stats.workgroup_start_ps.size()) {
        throw Error(fmt::format("collective report: kernel {} names workgroup {}, but the run recorded {}", i, w,
                                stats.workgroup_start_ps.size()));
      }
      t.start_ps = first ? stats.workgroup_start_ps[w] : std::min(t.start_ps, stats.workgroup_start_ps[w]);
      t.end_ps = first ? stats.workgroup_end_ps[w] : std::max(t.end_ps, stats.workgroup_end_ps[w]);
      first = false;
      t.stored_bytes += stored_bytes(program, program.workgroups[w]);
    }
    if (k.gpu < kernels_of_gpu.size() && kernels_of_gpu[k.gpu] == 1 && t.time_ps() > 0) {
      const ls::GpuBuffers& b = program.gpus[k.gpu];
      t.algbw_gbps = static_cast<double>(std::max(b.input_bytes, b.output_bytes)) / ns(t.time_ps());
      t.busbw_gbps = *t.algbw_gbps * bus_factor;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<CuOccupancy> cu_occupancy(const ls::Program& program, const gpu::RunStats& stats, uint32_t compute_units) {
  std::vector<CuOccupancy> out(program.gpu_count());
  // Residence intervals per CU of each GPU, to merge into busy time.
  std::vector<std::vector<std::vector<std::pair<gpu::TimePs, gpu::TimePs>>>> intervals(
      program.gpu_count(), std::vector<std::vector<std::pair<gpu::TimePs, gpu::TimePs>>>(compute_units));
  for (uint32_t w = 0; w < program.workgroups.size() && w < stats.workgroup_cu.size(); ++w) {
    const uint32_t g = program.workgroups[w].gpu;
    const uint32_t cu = stats.workgroup_cu[w];
    if (g >= out.size() || cu >= compute_units) continue;  // never placed (a run that did not finish)
    const gpu::TimePs start = stats.workgroup_start_ps[w], end = stats.workgroup_end_ps[w];
    ++out[g].workgroups;
    out[g].resident_workgroup_ps += end - start;
    intervals[g][cu].emplace_back(start, end);
  }
  const gpu::TimePs run_ps = stats.end_ps;
  for (uint32_t g = 0; g < out.size(); ++g) {
    CuOccupancy& o = out[g];
    o.gpu = g;
    o.compute_units = compute_units;
    double busy_sum = 0;
    for (auto& spans : intervals[g]) {
      if (spans.empty()) continue;
      ++o.cus_used;
      std::sort(spans.begin(), spans.end());
      gpu::TimePs busy = 0, open_start = spans[0].first, open_end = spans[0].second;
      for (const auto& [start, end] : spans) {
        if (start > open_end) {
          busy += open_end - open_start;
          open_start = start;
        }
        open_end = std::max(open_end, end);
      }
      busy += open_end - open_start;
      const double fraction = run_ps > 0 ? static_cast<double>(busy) / static_cast<double>(run_ps) : 0.0;
      busy_sum += fraction;
      o.max_busy_fraction = std::max(o.max_busy_fraction, fraction);
    }
    o.mean_busy_fraction = compute_units > 0 ? busy_sum / compute_units : 0.0;
    o.mean_resident_workgroups =
        run_ps > 0 ? static_cast<double>(o.resident_workgroup_ps) / static_cast<double>(run_ps) : 0.0;
  }
  return out;
}

nlohmann::json kernels_json(const std::vector<KernelTiming>& kernels) {
  nlohmann::json out = nlohmann::json::array();
  for (const KernelTiming& k : kernels) {
    out.push_back({{"gpu", k.gpu},
                   {"kernel", k.kernel},
                   {"name", k.name},
                   {"workgroups", k.workgroups},
                   {"start_ns", ns(k.start_ps)},
                   {"end_ns", ns(k.end_ps)},
                   {"time_ns", ns(k.time_ps())},
                   {"stored_bytes", k.stored_bytes},
                   {"algbw_gbps", k.algbw_gbps ? nlohmann::json(*k.algbw_gbps) : nlohmann::json(nullptr)},
                   {"busbw_gbps", k.busbw_gbps ? nlohmann::json(*k.busbw_gbps) : nlohmann::json(nullptr)}});
  }
  return out;
}

nlohmann::json occupancy_json(const std::vector<CuOccupancy>& occupancy) {
  nlohmann::json out = nlohmann::json::array();
  for (const CuOccupancy& o : occupancy) {
    out.push_back({{"gpu", o.gpu},
                   {"compute_units", o.compute_units},
                   {"cus_used", o.cus_used},
                   {"workgroups", o.workgroups},
                   {"mean_busy_fraction", o.mean_busy_fraction},
                   {"max_busy_fraction", o.max_busy_fraction},
                   {"resident_workgroup_ns", ns(o.resident_workgroup_ps)},
                   {"mean_resident_workgroups", o.mean_resident_workgroups}});
  }
  return out;
}

std::vector<std::string> occupancy_lines(const std::vector<CuOccupancy>& occupancy) {
  // What a line says about one GPU; consecutive GPUs that read the same
  // share a line (a symmetric collective gives one line).
  const auto figures = [](const CuOccupancy& o) {
    return fmt::format("{}/{} CUs used, busy {:.1f}% mean, {:.1f}% max, {:.2f} workgroups resident on average",
                       o.cus_used, o.compute_units, 100.0 * o.mean_busy_fraction, 100.0 * o.max_busy_fraction,
                       o.mean_resident_workgroups);
  };
  std::vector<std::string> lines;
  for (size_t first = 0; first < occupancy.size();) {
    const std::string text = figures(occupancy[first]);
    size_t last = first;
    while (last + 1 < occupancy.size() && figures(occupancy[last + 1]) == text) ++last;
    lines.push_back(last == first ? fmt::format("GPU {}: {}", occupancy[first].gpu, text)
                                  : fmt::format("GPUs {}-{}: {}", occupancy[first].gpu, occupancy[last].gpu, text));
    first = last + 1;
  }
  return lines;
}

std::string kernels_csv(const std::vector<KernelTiming>& kernels) {
  std::string out = "gpu,kernel,kernel_name,workgroups,start_ns,end_ns,time_ns,stored_bytes,busbw_gbps\n";
  for (const KernelTiming& k : kernels) {
    out += fmt::format("{},{},{},{},{:.3f},{:.3f},{:.3f},{},{}\n", k.gpu, k.kernel, csv_quoted(k.name), k.workgroups,
                       ns(k.start_ps), ns(k.end_ps), ns(k.time_ps()), k.stored_bytes,
                       k.busbw_gbps ? fmt::format("{:.4f}", *k.busbw_gbps) : std::string());
  }
  return out;
}

void write_kernels_csv(const std::filesystem::path& path, const std::vector<KernelTiming>& kernels) {
  with_error_context(fmt::format("writing kernel CSV {}", path.string()),
                     [&] { write_file_atomic(path, kernels_csv(kernels)); });
}

}  // namespace snr::cli
