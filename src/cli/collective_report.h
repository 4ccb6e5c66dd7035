// Per-kernel timings and per-GPU CU occupancy of one `snr collective` run,
// computed from the GPU model's per-workgroup record (RunStats), for the
// text report, the JSON keys `kernels` and `occupancy`, and `--csv`.
// Units and meanings: docs/gpu-model.md, "Results".
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "dsim/gpu/gpu_model.h"
#include "dsim/loadstore/program.h"

namespace snr::cli {

struct KernelTiming {
  uint32_t kernel = 0;  // index in Program::kernels
  uint32_t gpu = 0;
  std::string name;  // from the Program's name table ("kernel N" when it has none)
  uint32_t workgroups = 0;
  dsim::gpu::TimePs start_ps = 0, end_ps = 0;  // first workgroup placed, last retired
  uint64_t stored_bytes = 0;                   // payload its stores write (StoreOp, MemcpyOp), per destination
  // The collective's bandwidths measured over this kernel alone: only when
  // it is its GPU's only kernel (then the GPU's buffer is its work).
  std::optional<double> algbw_gbps, busbw_gbps;
  [[nodiscard]] dsim::gpu::TimePs time_ps() const { return end_ps - start_ps; }
};

// `bus_factor`: the collective's nccl-tests bus bandwidth factor.
std::vector<KernelTiming> kernel_timings(const dsim::loadstore::Program& program, const dsim::gpu::RunStats& stats,
                                         double bus_factor);

struct CuOccupancy {
  uint32_t gpu = 0;
  uint32_t compute_units = 0;
  uint32_t cus_used = 0;  // CUs that ran at least one workgroup
  uint32_t workgroups = 0;
  // Busy: at least one workgroup resident. Fractions of the whole run
  // (RunStats::end_ps); the mean is over every CU of the GPU, used or not.
  double mean_busy_fraction = 0, max_busy_fraction = 0;
  // Sum over the GPU's workgroups of their residence (end − start): the
  // integral of resident workgroups over time.
  dsim::gpu::TimePs resident_workgroup_ps = 0;
  // resident_workgroup_ps / run time: workgroups resident on average.
  double mean_resident_workgroups = 0;
};

std::vector<CuOccupancy> cu_occupancy(const dsim::loadstore::Program& program, const dsim::gpu::RunStats& stats,
                                      uint32_t compute_units);

nlohmann::json kernels_json(const std::vector<KernelTiming>& kernels);
nlohmann::json occupancy_json(const std::vector<CuOccupancy>& occupancy);

// One line per run of consecutive GPUs with the same figures:
// "GPUs 0-7: 32/108 CUs used, busy 29.6% mean, 31.0% max, 0.6 workgroups resident on average".
std::vector<std::string> occupancy_lines(const std::vector<CuOccupancy>& occupancy);

// The `--csv` file: a header, then one row per kernel (per GPU, in Program
// order): gpu,kernel,kernel_name,workgroups,start_ns,end_ns,time_ns,stored_bytes,busbw_gbps
// (busbw_gbps empty where the kernel is not its GPU's only one).
std::string kernels_csv(const std::vector<KernelTiming>& kernels);
// Throws snr::Error naming the file.
void write_kernels_csv(const std::filesystem::path& path, const std::vector<KernelTiming>& kernels);

}  // namespace snr::cli
