// Measures what docs/benchmarks.md (## Workload compiler) reports:
//   bench_compiler window  SPEC          one layer's instructions per chip
//   bench_compiler compile SPEC [k=v..]  compile wall time (median of 5)
//   bench_compiler profile SPEC [k=v..]  the per-op profile of `snr run`
//   bench_compiler knobs   SPEC [k=v..]  timing run: step cycles, matrix
//                                        utilization, all-gather cycles and
//                                        setup-phase DMA stalls
//   bench_compiler vmem    SPEC [k=v..]  timing run: VMEM page liveness of
//                                        one layer's window on chip 0
//                                        (median unused, median largest
//                                        contiguous unused), step cycles
// Extra k=v arguments are spec overrides (like `snr compile --set`).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "common/error.h"
#include "compiler/compiler.h"
#include "metrics/model_profile.h"

namespace {

using namespace snr::compiler;
using namespace snr::metrics;

Spec load(int argc, char** argv) {
  Spec spec = load_spec_file(argv[2]);
  std::vector<std::string> overrides(argv + 3, argv + argc);
  apply_spec_overrides(spec, overrides);
  return spec;
}

void report_knobs(const Spec& spec) {
  const CompiledModel model = compile(spec);
  const RunProfile p = profile_model(model.image, 50'000'000'000ull);
  double ag_cycles = 0;
  uint64_t setup_dmas = 0, base_stall = 0, transfer_stall = 0, matmul_cycles = 0;
  double matmul_busy = 0;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (p.ops[i].kind == "all_gather") ag_cycles += p.ops[i].cycles;
    if (p.ops[i].kind == "matmul") {
      matmul_cycles += static_cast<uint64_t>(p.ops[i].cycles);
      matmul_busy += p.ops[i].matrix_busy_cycles;
    }
  }
  // The setup DMAs' share of their WAITs' stall, split as every command
  // splits it (metrics/wait_stall.h).
  uint64_t setup_first = UINT64_MAX, setup_last = 0;
  for (const DmaRecord& d : p.dmas) {
    if (d.op < 0 || p.ops[static_cast<size_t>(d.op)].kind != "all_gather") continue;
    if (d.src_memory != snr::sim::MemoryKind::kHbm || d.dst_memory != snr::sim::MemoryKind::kSmem) continue;
    ++setup_dmas;
    setup_first = std::min(setup_first, d.issue);
    setup_last = std::max(setup_last, d.wait_end);
    base_stall += d.base_stall_cycles;
    transfer_stall += d.transfer_stall_cycles;
  }
  fmt::print("step_cycles {}\nmatrix_utilization {:.4f}\nmatmul_matrix_utilization {:.4f}\n", p.cycles,
             p.matrix_utilization(), matmul_cycles ? matmul_busy / (double(matmul_cycles) * p.mxu_count) : 0.0);
  fmt::print("all_gather_cycles_total {:.0f}\nchip0_setup_dmas {}\nchip0_setup_phase_cycles {}\n"
             "chip0_setup_wait_stall_base_latency_cycles {}\nchip0_setup_wait_stall_transfer_cycles {}\n",
             ag_cycles, setup_dmas, setup_dmas ? setup_last - setup_first : 0, base_stall, transfer_stall);
  fmt::print("vmem_median_free {:.3f}\nvmem_median_largest_free_over_free {:.3f}\n", model.vmem.median_free_fraction(),
             model.vmem.median_contiguous_fraction());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: bench_compiler window|compile|knobs SPEC [key=value ...]\n");
    return 2;
  }
  try {
    const std::string mode = argv[1];
    const Spec spec = load(argc, argv);
    if (mode == "window") {
      fmt::print("layer_instructions_per_chip {}\n", compile(spec).image.layer_instructions);
    } else if (mode == "compile") {
      std::vector<double> ms;
      for (int i = 0; i < 5; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const CompiledModel model = compile(spec);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      fmt::print("compile_ms_median {:.1f} (min {:.1f}, max {:.1f})\n", ms[2], ms[0], ms[4]);
    } else if (mode == "profile") {
      fmt::print("{}", format_profile(profile_model(compile(spec).image, 50'000'000'000ull)));
    } else if (mode == "vmem") {
      const CompiledModel model = compile(spec);
      const RunProfile p = profile_model(model.image, 50'000'000'000ull, layer_window(model.image));
      const VmemLiveness& v = *p.vmem_liveness;
      const double unused = v.median_unused_fraction(), largest = v.median_largest_unused_fraction();
      fmt::print("window_cycles {}\nmedian_unused {:.3f}\nmedian_largest_unused {:.3f}\nratio {:.3f}\n"
                 "step_cycles {}\nmatrix_utilization {:.4f}\ninstructions_per_chip {}\n",
                 v.last_cycle - v.first_cycle, unused, largest, unused > 0 ? largest / unused : 0.0, p.cycles,
                 p.matrix_utilization(), p.instructions_per_chip.at(0));
    } else if (mode == "knobs") {
      report_knobs(spec);
    } else {
      fmt::print(stderr, "unknown mode '{}'\n", mode);
      return 2;
    }
  } catch (const snr::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
