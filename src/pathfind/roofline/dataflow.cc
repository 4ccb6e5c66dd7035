#include "pathfind/roofline/dataflow.h"

#include <algorithm>

namespace snr::pathfind {

double reuse_factor(Dataflow dataflow, uint64_t tile_m, uint64_t tile_n, uint64_t tile_k, uint32_t rows,
                    uint32_t cols) {
  double k = 1;
  switch (dataflow) {
    case Dataflow::kWeightStationary: k = static_cast<double>(tile_m) / rows; break;
    case Dataflow::kActivationStationary: k = static_cast<double>(tile_n) / cols; break;
    case Dataflow::kOutputStationary: k = static_cast<double>(tile_k) / rows; break;
    case Dataflow::kBest: k = 1; break;
  }
  return std::max(1.0, k);
}

double register_accesses(double flops, double reuse, uint32_t rows, uint32_t cols) {
  const double nx = rows;
  const double ny = cols;
  return flops * (nx * ny + reuse * nx + reuse * ny) / (2.0 * reuse * nx * ny);
}

DataflowChoice choose_dataflow(Dataflow wanted, double flops, uint64_t tile_m, uint64_t tile_n, uint64_t tile_k,
                               uint32_t rows, uint32_t cols) {
  auto evaluate = [&](Dataflow d) {
    return DataflowChoice{d, register_accesses(flops, reuse_factor(d, tile_m, tile_n, tile_k, rows, cols), rows, cols)};
  };
  if (wanted != Dataflow::kBest) return evaluate(wanted);
  DataflowChoice best = evaluate(Dataflow::kWeightStationary);
  for (Dataflow d : {Dataflow::kActivationStationary, Dataflow::kOutputStationary}) {
    DataflowChoice c = evaluate(d);
    if (c.accesses < best.accesses) best = c;
  }
  return best;
}

}  // namespace snr::pathfind
