// Architectural state of one chip: scalar registers and CSR counters,
// vector registers, matrix-unit weights and accumulators, semaphores and the
// three memories. Timing state lives in the timing layer, never here.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/config.h"
#include "isa/isa.h"
#include "sim/flat_memory.h"
#include "sim/paged_memory.h"

namespace snr::sim {

constexpr int kVectorElements = isa::kSublanes * isa::kLanes;  // 1024 x 32 bit

struct VectorRegister {
  alignas(64) std::array<uint32_t, kVectorElements> element{};
};

struct MatrixUnitState {
  std::vector<uint16_t> weights_bf16 = std::vector<uint16_t>(isa::kMxuTileDim * isa::kMxuTileDim);  // [k][n]
  // The same tile widened to f32 at load time, so a push does no conversions.
  std::vector<float> weights_f32 = std::vector<float>(isa::kMxuTileDim * isa::kMxuTileDim);
  std::vector<float> accumulator = std::vector<float>(kVectorElements);  // [row][n]
};

enum class ChipStatus : uint8_t {
  kRunning,
  kBlocked,  // sem.wait (functional) waiting for another chip
  kExited,   // ecall exit
  kBreak,    // ebreak
};

struct ChipState {
  ChipState(uint32_t id, const hw::HwConfig& config);

  uint32_t chip_id;
  std::array<uint64_t, 32> x{};
  uint64_t pc = 0;
  uint64_t instret = 0;
  uint64_t cycle = 0;  // the timing model's clock; instret in functional mode
  std::vector<VectorRegister> v;
  std::vector<MatrixUnitState> mxu;
  std::array<uint32_t, isa::kSemaphoreCount> semaphore{};
  PagedMemory scalar_memory;  // [0, smem.bytes) of the scalar space
  PagedMemory vmem;
  PagedMemory hbm;
  // Set for a foreign RV64 process (System::use_flat_address_space): scalar
  // loads, stores and the text use this instead of the NPU's map.
  std::unique_ptr<FlatMemory> flat_memory;
  std::string console;  // bytes written with ecall write
  ChipStatus status = ChipStatus::kRunning;
  int64_t exit_code = 0;
};

}  // namespace snr::sim
