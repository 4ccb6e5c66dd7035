// §6.3 register-access model: how often an MCU touches its register file
// for a tile, given which operand stays inside the array (equation 5).
#pragma once

#include <cstdint>

#include "pathfind/inputs/device.h"

namespace snr::pathfind {

// Reuse factor K of equation 5 for an MCU tile (tile_m x tile_n x tile_k)
// on a rows x cols array. Weight-stationary keeps a B block in the array and
// streams tile_m rows of A through it: K = tile_m / rows. Activation-
// stationary keeps an A block and streams tile_n columns of B: K = tile_n / cols.
// Output-stationary keeps the C block and streams the reduction: K = tile_k / rows.
// K is at least 1 (no reuse).
double reuse_factor(Dataflow dataflow, uint64_t tile_m, uint64_t tile_n, uint64_t tile_k, uint32_t rows,
                    uint32_t cols);

// Equation 5: #RegAccess = #Flops * (Nx*Ny + K*Nx + K*Ny) / (2*K*Nx*Ny), in elements.
double register_accesses(double flops, double reuse, uint32_t rows, uint32_t cols);

struct DataflowChoice {
  Dataflow dataflow = Dataflow::kOutputStationary;
  double accesses = 0;  // elements
};

// The fixed dataflow, or for kBest the one with the fewest accesses
// (ties resolved ws, as, os).
DataflowChoice choose_dataflow(Dataflow wanted, double flops, uint64_t tile_m, uint64_t tile_n, uint64_t tile_k,
                               uint32_t rows, uint32_t cols);

}  // namespace snr::pathfind
