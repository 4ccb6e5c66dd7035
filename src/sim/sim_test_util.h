// Helpers shared by the simulator's unit tests (not part of the library).
#pragma once

#include "hw/config.h"

namespace snr::sim::testing {

// A config with round numbers so expected cycles can be computed by hand:
// 1 GHz (1 ns = 1 cycle), DMA base latency 100 cycles, HBM 64 B/cycle,
// SMEM 64 B/cycle, VMEM 128 B/cycle, ICI link 32 B/cycle, 10 cycles per hop.
inline hw::HwConfig round_number_config(uint64_t chips = 1) {
  hw::HwConfig c = hw::preset("tpu-v4-like");
  c.set("clock", "1GHz");
  c.set("chips", std::to_string(chips));
  c.set("dma.base_latency", "100ns");
  c.set("hbm.bandwidth", "64GB/s");
  c.set("smem.bandwidth", "64GB/s");
  c.set("vmem.bandwidth", "128GB/s");
  c.set("ici.link_bandwidth", "32GB/s");
  c.set("ici.hop_latency", "10ns");
  c.set("hbm.bytes", "64MiB");
  c.set("scalar.branch_taken_penalty_cycles", "0");
  return c;
}

}  // namespace snr::sim::testing
