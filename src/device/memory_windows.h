// Memory-mapped debugger windows onto accelerator state that is too large
// for registers, in the reserved [0xF000_0000, 0x1_0000_0000) range of every
// chip's address map (isa/address_map.h). A debugger reads and writes them
// with ordinary m/M packets; docs/debugger.md lists them. Constants only, so
// clients (the recorder) can use them without the simulator.
#pragma once

#include <cstdint>

#include "isa/address_map.h"
#include "isa/isa.h"

namespace snr::device {

// v0..v31, 4 KiB each (8 sublanes x 128 lanes x 32 bit, row-major).
constexpr uint64_t kVectorWindowBase = isa::kDebugWindowBase;             // 0xF000_0000
constexpr uint64_t kVectorWindowStride = isa::kVectorRegisterBytes;       // 0x1000
// Matrix-unit weight tiles, bf16 [k][n], 32 KiB per unit.
constexpr uint64_t kMxuWeightsWindowBase = isa::kDebugWindowBase + 0x0100'0000;  // 0xF100_0000
constexpr uint64_t kMxuWeightsWindowStride = isa::kMxuWeightTileBytes;           // 0x8000
// Matrix-unit accumulators, f32 [row][n], 4 KiB per unit.
constexpr uint64_t kMxuAccumulatorWindowBase = isa::kDebugWindowBase + 0x0200'0000;  // 0xF200_0000
constexpr uint64_t kMxuAccumulatorWindowStride = 0x1000;
// The 32 semaphores as little-endian u32s (the same values as registers sem0..sem31).
constexpr uint64_t kSemaphoreWindowBase = isa::kDebugWindowBase + 0x0300'0000;  // 0xF300_0000
constexpr uint64_t kSemaphoreWindowBytes = isa::kSemaphoreCount * 4;
// Most matrix units a window can address.
constexpr uint64_t kMaxMxuWindows = 32;

constexpr uint64_t vector_window_address(unsigned v) { return kVectorWindowBase + v * kVectorWindowStride; }
constexpr uint64_t mxu_weights_window_address(unsigned mxu) {
  return kMxuWeightsWindowBase + mxu * kMxuWeightsWindowStride;
}
constexpr uint64_t mxu_accumulator_window_address(unsigned mxu) {
  return kMxuAccumulatorWindowBase + mxu * kMxuAccumulatorWindowStride;
}

// Register numbers of the device's target description (after x0..x31 = 0..31, pc = 32).
constexpr uint32_t kRegPc = 32;
constexpr uint32_t kRegCycle = 33, kRegInstret = 34, kRegMhartid = 35, kRegNchips = 36;
constexpr uint32_t kRegSemaphore0 = 37;  // sem0..sem31 = 37..68
constexpr uint32_t kRegChipStatus = 69, kRegExitCode = 70, kRegMxuCount = 71;
constexpr uint32_t kRegisterCount = 72;

}  // namespace snr::device
