// What `snr compile` produces and `snr run outdir/` consumes: per-chip ELF
// programs (same text, per-chip .data tables), per-chip initial HBM, the op
// list with PC ranges (the PC->op map) and the hardware config. Written to
// and read from a directory by artifacts.h; built in memory by compiler.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/hbm_image.h"
#include "elf/elf.h"
#include "hw/config.h"

namespace snr::compiler {

struct OpInfo {
  std::string name;
  std::string kind;
  uint64_t pc_begin = 0;  // [pc_begin, pc_end)
  uint64_t pc_end = 0;
  uint64_t flops = 0;          // per chip
  uint64_t hbm_bytes = 0;      // per chip
  uint64_t network_bytes = 0;  // per chip
  std::string detail;
};

struct ModelImage {
  std::string name;
  hw::HwConfig hw;
  uint64_t seed = 0;
  std::vector<elf::Image> programs;  // one per chip
  std::vector<ChipHbmImage> hbm;     // one per chip
  std::vector<OpInfo> ops;           // in text order, non-overlapping
  // Instructions of layer 0's ops (the window one layer makes), 0 when
  // the workload has no layers.
  uint64_t layer_instructions = 0;

  [[nodiscard]] uint32_t chips() const { return static_cast<uint32_t>(programs.size()); }
  // Index of the op containing pc, or -1 (glue code between ops).
  [[nodiscard]] int op_at(uint64_t pc) const;
};

}  // namespace snr::compiler
