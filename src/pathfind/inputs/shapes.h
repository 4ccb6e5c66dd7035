// Problem shapes shared by the input readers and the engines.
#pragma once

#include <cstdint>

namespace snr::pathfind {

// C[M,N] += A[M,K] * B[K,N]
struct GemmShape {
  uint64_t m = 0;
  uint64_t n = 0;
  uint64_t k = 0;
};

}  // namespace snr::pathfind
