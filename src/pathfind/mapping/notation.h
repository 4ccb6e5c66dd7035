// The parallelism notation of seed 004 §3.3: one string names a whole
// strategy, e.g. RC-4-2-d3-p2 (row-column kernel split 4x2, 3 data replicas,
// 2 pipeline stages) or CR-8-d4-p1 (column-row kernel split 8 ways). The
// mapping engine works on the four parallel dimensions this names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace snr::pathfind {

// How one GEMM is distributed. RC (inner product) shards the first matrix by
// rows KP1 ways and the second by columns KP2 ways; CR (outer product) cuts
// the shared dimension KP1 ways, so it has a single factor.
enum class KernelSplit { kNone, kRowColumn, kColumnRow };

// Largest value of any one count; far above real machines, small enough that
// products of counts stay exact.
inline constexpr uint64_t kMaxParallelCount = uint64_t{1} << 20;
// Largest kp1*kp2*dp*lp: keeps every product of counts exact in uint64 and double.
inline constexpr uint64_t kMaxParallelDevices = uint64_t{1} << 40;

struct ParallelismNotation {
  KernelSplit kind = KernelSplit::kNone;
  uint64_t kp1 = 1;
  uint64_t kp2 = 1;  // 1 unless kind is kRowColumn
  uint64_t dp = 1;
  uint64_t lp = 1;

  // Devices one model instance occupies: kp1 * kp2 * dp * lp.
  [[nodiscard]] uint64_t devices() const;
  // Canonical spelling: "RC-4-2-d3-p2", "CR-8-d4-p1", "d3-p2".
  [[nodiscard]] std::string to_string() const;
  // Throws snr::Error naming the field (kp1, kp2, dp, lp) that is out of range.
  void validate() const;

  friend bool operator==(const ParallelismNotation&, const ParallelismNotation&) = default;
};

// Accepts RC-{KP1}-{KP2}-d{DP}-p{LP}, CR-{KP1}-d{DP}-p{LP} and d{DP}-p{LP};
// kernel factors may carry the K prefix of the paper's Figure 5
// (RC-K4-K2-d3-p2); letters in any case. Errors quote the text and name the part.
ParallelismNotation parse_parallelism(std::string_view text);

// Throws "parallelism RC-4-2-d3-p2 uses 48 devices but the system has 32"
// unless the strategy occupies exactly `device_count` devices.
void check_devices(const ParallelismNotation& notation, uint64_t device_count);

// The four parallel dimensions a shard has a coordinate in. The values index
// arrays (ParallelDims::size, per-dimension reports) and their order is the
// order orderings are enumerated from.
enum class ParallelDim : uint8_t { kKernelRow = 0, kKernelCol = 1, kPipeline = 2, kData = 3 };
inline constexpr size_t kParallelDimCount = 4;
inline constexpr std::array<ParallelDim, kParallelDimCount> kAllParallelDims{
    ParallelDim::kKernelRow, ParallelDim::kKernelCol, ParallelDim::kPipeline, ParallelDim::kData};
std::string_view parallel_dim_name(ParallelDim dim);  // "kernel_row", "kernel_col", "pipeline", "data"
inline size_t index_of(ParallelDim dim) { return static_cast<size_t>(dim); }

// Shards along each parallel dimension, indexed by ParallelDim.
struct ParallelDims {
  std::array<uint64_t, kParallelDimCount> size{1, 1, 1, 1};

  [[nodiscard]] uint64_t operator[](ParallelDim dim) const { return size[index_of(dim)]; }
  [[nodiscard]] uint64_t shards() const;  // product of the sizes
  // "kernel_row 4 x kernel_col 2 x pipeline 2 x data 3"
  [[nodiscard]] std::string to_string() const;
  // Each size in 1..kMaxParallelCount and the product at most kMaxParallelDevices.
  void validate() const;
};

// kernel_row = kp1, kernel_col = kp2 (1 for CR: its single ring is kernel_row),
// pipeline = lp, data = dp.
ParallelDims parallel_dims(const ParallelismNotation& notation);

}  // namespace snr::pathfind
