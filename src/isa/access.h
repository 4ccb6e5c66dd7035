// Exact access descriptors: for a decoded instruction and the current x
// register values, every piece of architectural state and every memory
// region the instruction reads and writes. The recorder (read-before-write
// capture) and the dependency tracker are built on this; the simulator
// uses it for scoreboarding.
//
// Conventions:
//  - x0 never appears (reads are the constant 0, writes are discarded).
//  - pc appears as a read for auipc/jal/jalr/branches and as a write for
//    instructions that may redirect control; sequential pc+4 is implicit.
//  - Read-modify-write state (semaphores, MXU accumulators) appears in both
//    lists.
//  - Memory regions are exact strided row sets: `rows` rows of `row_bytes`
//    starting at `address`, row i at address + i * row_stride_bytes
//    (rows == 1 for contiguous accesses). DMA addresses are global
//    (address_map.h); `remote`/`chip` and `local_address` are split out.
//  - A DMA's data is copied at issue in functional mode, so its regions are
//    reported on dma.issue; its completion semaphore writes are reported on
//    dma.issue too (they land later in timing mode).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "isa/address_map.h"
#include "isa/isa.h"

namespace snr::isa {

enum class StateKind : uint8_t { kX, kV, kCsr, kSemaphore, kMxuWeights, kMxuAccumulator, kPc };

struct StateRef {
  StateKind kind = StateKind::kX;
  uint16_t index = 0;     // register / CSR / semaphore / MXU number
  bool remote = false;    // semaphores only: on chip `chip`, not the issuing one
  uint32_t chip = 0;

  friend bool operator==(const StateRef&, const StateRef&) = default;
};

struct MemoryRegion {
  bool is_write = false;
  uint64_t address = 0;        // as computed by the instruction (global for DMA)
  bool remote = false;
  uint32_t chip = 0;           // meaningful when remote
  uint64_t local_address = 0;  // address within the target chip's map
  MemorySpace space = MemorySpace::kUnmapped;  // window of local_address
  uint64_t row_bytes = 0;
  uint64_t rows = 1;
  uint64_t row_stride_bytes = 0;

  [[nodiscard]] uint64_t total_bytes() const { return rows * row_bytes; }
  // Local start address of row i.
  [[nodiscard]] uint64_t row_address(uint64_t i) const { return local_address + i * row_stride_bytes; }

  friend bool operator==(const MemoryRegion&, const MemoryRegion&) = default;
};

// Non-owning view of the x registers: either an array of 32 values or any
// callable uint64_t(unsigned). Reading x0 always yields 0.
class XRegisterReader {
 public:
  XRegisterReader(std::span<const uint64_t, 32> values)  // NOLINT(google-explicit-constructor)
      : object_(values.data()), call_([](const void* o, unsigned i) {
          return static_cast<const uint64_t*>(o)[i];
        }) {}
  template <typename F>
    requires std::is_invocable_r_v<uint64_t, const F&, unsigned>
  XRegisterReader(const F& fn)  // NOLINT(google-explicit-constructor)
      : object_(&fn), call_([](const void* o, unsigned i) -> uint64_t {
          return (*static_cast<const F*>(o))(i);
        }) {}

  [[nodiscard]] uint64_t operator()(unsigned index) const {
    return index == 0 ? 0 : call_(object_, index & 31);
  }

 private:
  const void* object_;
  uint64_t (*call_)(const void*, unsigned);
};

// Fixed capacity: no instruction touches more (checked when filling).
struct Accesses {
  static constexpr int kMaxState = 8;
  static constexpr int kMaxRegions = 2;

  std::array<StateRef, kMaxState> reads_storage{};
  std::array<StateRef, kMaxState> writes_storage{};
  std::array<MemoryRegion, kMaxRegions> memory_storage{};
  int read_count = 0;
  int write_count = 0;
  int memory_count = 0;

  [[nodiscard]] std::span<const StateRef> reads() const { return {reads_storage.data(), static_cast<size_t>(read_count)}; }
  [[nodiscard]] std::span<const StateRef> writes() const { return {writes_storage.data(), static_cast<size_t>(write_count)}; }
  [[nodiscard]] std::span<const MemoryRegion> memory() const { return {memory_storage.data(), static_cast<size_t>(memory_count)}; }
  void clear() { read_count = write_count = memory_count = 0; }
};

// Fills `out` (cleared first). An illegal instruction yields no accesses.
void compute_accesses(const DecodedInstruction& inst, XRegisterReader x, Accesses& out);

// One-line text form for logs and tests, e.g.
// "reads x11 x12 | writes x10 | mem r smem 0x1000 8".
std::string format_accesses(const Accesses& accesses);

std::string_view state_kind_name(StateKind kind);

}  // namespace snr::isa
