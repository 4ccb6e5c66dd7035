// Hierarchical roofline of one GEMM (§6.1-6.3): C[M,N] += A[M,K] * B[K,N].
//
// Every memory level except main memory holds one tile of the problem. The
// tile at level i and the loop order that walks those tiles decide how many
// bytes level i+1 must supply; the innermost tile (one MCU's) decides the
// register accesses through the dataflow model of equation 5. Tiles at
// bundle scope are spread over the bundles and MCU tiles over the MCUs of a
// bundle, so partial waves cost time. The kernel time is the fixed kernel
// overhead plus the largest of the compute time and every level's
// bytes / bandwidth; `bound` names which.
//
// Tilings are enumerated, not sampled: per level, power-of-two multiples of
// the MCU shape up to the problem size that fit the level's capacity, at
// most 8 values per dimension (N <= 512 tiles per level), each with all six
// loop orders. The nested search over levels (at most N^L combinations) is a
// branch and bound over candidates sorted by their own cost; it is exact for
// the model and visits few combinations in practice (`combinations_visited`).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "pathfind/inputs/device.h"
#include "pathfind/inputs/shapes.h"

namespace snr::pathfind {

struct Tile {
  uint64_t m = 0;
  uint64_t n = 0;
  uint64_t k = 0;
};

// Loop orders over tiles, outermost first: "mnk" ... "knm".
inline constexpr std::array<std::string_view, 6> kLoopOrderNames = {"mnk", "mkn", "nmk", "nkm", "kmn", "knm"};

inline constexpr size_t kMaxLevels = 8;

struct LevelUse {
  std::string_view name;
  Scope scope = Scope::kGlobal;
  Tile tile;                 // tile resident at this level (the whole problem at main memory)
  uint8_t loop_order = 0;    // index into kLoopOrderNames: how this level's tiles are walked
  double accessed_bytes = 0; // bytes read from and written to this level
  double time_s = 0;         // accessed_bytes / achievable bandwidth (incl. partial-wave slowdown)
};

struct GemmPrediction {
  double time_s = 0;       // kernel_overhead_s + max(compute_s, level times)
  double compute_s = 0;    // with partial waves and max utilization
  double flops = 0;
  std::string_view bound;  // "compute" or a level name
  Dataflow dataflow = Dataflow::kOutputStationary;
  size_t bundle_level = 0; // index of the level whose tile is spread over bundles
  double parallel_efficiency = 1;  // useful / issued MCU work (partial waves, padding)
  std::array<LevelUse, kMaxLevels> levels{};
  size_t level_count = 0;
  // Diagnostics of the search, not of the model: they change with how the
  // enumeration and the bounds are implemented, the prediction does not.
  uint64_t tilings_enumerated = 0;     // candidate tiles x loop orders, all levels
  uint64_t combinations_visited = 0;   // nested combinations whose compute time the search looked at
};

// Throws snr::Error for a zero dimension, an unsupported dtype or a device
// with more than kMaxLevels levels. No heap allocation: the prediction's
// `bound` and level names are views of the device's level names, valid
// while the device lives, so a temporary device is refused at compile time.
GemmPrediction predict_gemm(const DeviceSpec& device, GemmShape shape, DType dtype);
GemmPrediction predict_gemm(DeviceSpec&& device, GemmShape shape, DType dtype) = delete;

// Bytes moved between a level holding `tile`-sized blocks and the level above
// for the whole problem when tiles are walked in `loop_order` with one tile
// of each operand resident: operands whose indices do not include the
// innermost loop are reused across it; the output is written once when k is
// innermost, else read back for every further k step.
double tile_traffic_bytes(GemmShape shape, Tile tile, uint8_t loop_order, double in_bytes, double out_bytes);

// Elementwise or reduction kernel streaming `bytes` through main memory with
// `flops` of vector work: overhead + max(bytes / achievable bandwidth, flops / vector rate).
double predict_streaming_s(const DeviceSpec& device, double bytes, double flops);

}  // namespace snr::pathfind
