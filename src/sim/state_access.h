// The one way into a chip's architectural state from outside the executor:
// snapshot re-execution, the replay loader and the debugger device install
// and read registers, memories, the code image and the matrix units' weight
// cache through these functions, so the invariants below hold everywhere.
//
// Weight cache: MatrixUnitState keeps its bf16 tile widened to f32. Every
// write of weights here (whole or partial) refreshes the f32 copy.
//
// instret and cycle: a chip holds one retired-instruction counter (instret)
// and the clock of whichever model runs it (cycle). Installing either CSR
// sets both to the value: functional execution retires one instruction per
// cycle (the executor sets cycle = instret before every step), and a timing
// run replaces cycle with its own clock at every issue, so an installed
// cycle is never observed there. Reading either CSR gives instret, the
// functional value recordings are made and checked with. The other CSRs
// (mhartid, nchips) are the system's, not the chip's: installing them is
// ignored and reading them is an error.
//
// x0 is hardwired to zero: writes to it are ignored.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isa/access.h"
#include "sim/chip.h"
#include "sim/program.h"
#include "sim/system.h"

namespace snr::sim {

// The bytes of state object `kind` `index` (a vector register, a weight
// tile, ...), in the little-endian layout snapshots and the debugger's
// memory windows use. Throws snr::Error naming the chip when the hardware
// has no such object.
std::span<const uint8_t> state_bytes(const ChipState& chip, isa::StateKind kind, uint32_t index);

// Replaces the whole object; throws snr::Error when `bytes` is not its size
// or the object does not exist.
void install_state(ChipState& chip, isa::StateKind kind, uint32_t index, std::span<const uint8_t> bytes);

// Writes `bytes` at `offset_bytes` within the object (a debugger's partial
// write); false when they do not fit inside it.
bool write_state_bytes(ChipState& chip, isa::StateKind kind, uint32_t index, uint64_t offset_bytes,
                       std::span<const uint8_t> bytes);

// Sets instret and cycle (see above).
void set_retired_instructions(ChipState& chip, uint64_t count);

// Recomputes the f32 copy of `unit`'s bf16 weight tile.
void refresh_weight_cache(MatrixUnitState& unit);

// The chip a recording names; throws snr::Error when the system has fewer.
ChipState& recorded_chip(System& system, uint32_t chip_id);

// The code image of a recording: one text segment from the lowest to the
// highest byte of `ranges`, gaps zero. A flat (foreign RV64) system runs 2-
// and 4-byte instructions, the NPU whole aligned words. Throws snr::Error
// when chips disagree on a byte or a range is not whole instructions.
ProgramImage program_from_recorded_code(const std::vector<CodeBytes>& ranges, bool flat_address_space,
                                        std::string name);

// Maps the pages covering [address, address + length) of a flat system's
// chip; throws snr::Error when the chip's mapped pages would exceed
// `max_mapped_bytes`.
void map_recorded_pages(ChipState& chip, uint64_t address, uint64_t length, uint64_t max_mapped_bytes);

// A saved piece of one chip's memory. When `storage` is set it keeps
// `bytes` alive, and the bytes may be read in place for as long as the
// system lives instead of being copied into pages.
struct SavedRegion {
  uint32_t chip = 0;
  uint64_t address = 0;  // local to the chip
  std::string_view bytes;
  std::shared_ptr<const void> storage;
};

// Installs `regions` as if written in order (a later overlapping region
// wins). Throws snr::Error naming the region that lies outside the chip's
// memories (or, flat, outside its mapped pages).
void install_memory(System& system, const std::vector<SavedRegion>& regions);

// Reads [address, address + length) of `chip`'s local memory (its flat
// memory when the system is flat). Throws snr::Error naming `what` when the
// range is outside it.
std::string read_memory(System& system, ChipState& chip, uint64_t address, uint64_t length, std::string_view what);

}  // namespace snr::sim
