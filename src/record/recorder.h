// The execution recorder (seed 000, Algorithm 1) over a GDB stub: stop at
// a breakpoint, then step every recorded chip round-robin, saving a
// register or memory byte only when a traced instruction reads it before
// any traced instruction wrote it. Instruction inputs and outputs come from
// the ISA's access descriptors (isa/access.h), DMA regions and remote-chip
// effects included.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "formats/snapshot/snapshot.h"
#include "record/remote_target.h"

namespace snr::record {

struct RecordOptions {
  std::optional<uint64_t> breakpoint_address;  // none: record from where the target stands
  std::string breakpoint_text;                 // as the user wrote it, for the snapshot
  uint64_t count_per_chip = 0;
  std::optional<std::vector<uint32_t>> chips;  // chip indices (thread order); nullopt = all
  std::vector<snapshot::pb::Symbol> symbols;   // for the pc -> op map
  // Used when the stub does not report its hardware config (QEMU): YAML and
  // the naive full-state size to compare against.
  std::string fallback_hw_config_yaml;
  uint64_t fallback_naive_state_bytes = 0;
  // Keep the steps of one round in flight together when the stub allows
  // it (same result, fewer round trips); off = strictly one at a time.
  bool pipeline_steps = true;
  std::function<void(const std::string&)> progress;  // rate-limited lines; may be empty
  std::chrono::milliseconds progress_interval{1000};
};

// Records one window and detaches. Throws snr::Error with the chip, step
// and pc on any failure of the stub or of the program.
snapshot::Snapshot record_window(RemoteTarget& target, const RecordOptions& options);

// Bytes a naive recorder would dump for `chips` chips of a device with this
// config: every memory plus every architectural register.
uint64_t naive_state_bytes(const std::string& hw_config_yaml, uint64_t chips);

}  // namespace snr::record
