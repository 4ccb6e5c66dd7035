// The per-chip physical address map and the DMA global-address encoding
// (docs/npu.md). Bounds inside a window (VMEM and HBM sizes) come from the
// hardware config; this header only fixes where each window starts.
#pragma once

#include <cstdint>
#include <string_view>

namespace snr::isa {

// Scalar space: instruction memory (ELF text) and SMEM (ELF data, stack).
constexpr uint64_t kScalarBase = 0x0000'0000;
constexpr uint64_t kScalarLimit = 0x1000'0000;  // exclusive
// VMEM: the paged vector scratchpad, [kVmemBase, kVmemBase + vmem_bytes).
constexpr uint64_t kVmemBase = 0x1000'0000;
constexpr uint64_t kVmemWindowLimit = 0xF000'0000;  // exclusive; vmem_bytes must fit
// Reserved for memory-mapped debugger windows onto accelerator state.
constexpr uint64_t kDebugWindowBase = 0xF000'0000;
constexpr uint64_t kDebugWindowLimit = 0x1'0000'0000;
// HBM: [kHbmBase, kHbmBase + hbm_bytes).
constexpr uint64_t kHbmBase = 0x1'0000'0000;

// Default program layout used by the assembler and ELF writer.
constexpr uint64_t kDefaultTextBase = 0x1'0000;

enum class MemorySpace : uint8_t { kScalar, kVmem, kDebugWindow, kHbm, kUnmapped };

// Global addresses (DMA operands): bits 63:56 chip id, bit 55 remote flag,
// bits 54:0 the address within that chip's map. With the flag clear the
// address refers to the issuing chip and the chip bits are ignored.
constexpr int kGlobalChipShift = 56;
constexpr uint64_t kGlobalRemoteBit = uint64_t{1} << 55;
constexpr uint64_t kLocalAddressMask = kGlobalRemoteBit - 1;

struct GlobalAddress {
  bool remote = false;
  uint32_t chip = 0;        // meaningful only when remote
  uint64_t local_address = 0;
};

constexpr GlobalAddress split_global_address(uint64_t address) {
  GlobalAddress g;
  g.remote = (address & kGlobalRemoteBit) != 0;
  g.chip = g.remote ? static_cast<uint32_t>(address >> kGlobalChipShift) : 0;
  g.local_address = address & kLocalAddressMask;
  return g;
}

constexpr uint64_t make_remote_address(uint32_t chip, uint64_t local_address) {
  return (uint64_t{chip & 0xFF} << kGlobalChipShift) | kGlobalRemoteBit |
         (local_address & kLocalAddressMask);
}

// Window of a local (not global) address; sizes are checked by the simulator.
constexpr MemorySpace memory_space_of(uint64_t local_address) {
  if (local_address < kScalarLimit) return MemorySpace::kScalar;
  if (local_address < kVmemWindowLimit) return MemorySpace::kVmem;
  if (local_address < kDebugWindowLimit) return MemorySpace::kDebugWindow;
  if (local_address <= kLocalAddressMask) return MemorySpace::kHbm;
  return MemorySpace::kUnmapped;
}

constexpr std::string_view memory_space_name(MemorySpace space) {
  switch (space) {
    case MemorySpace::kScalar: return "smem";
    case MemorySpace::kVmem: return "vmem";
    case MemorySpace::kDebugWindow: return "debug";
    case MemorySpace::kHbm: return "hbm";
    case MemorySpace::kUnmapped: return "unmapped";
  }
  return "?";
}

}  // namespace snr::isa
