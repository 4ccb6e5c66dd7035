// Functional re-execution of a snapshot: the snapshot's state is installed
// into a fresh simulator before anything runs, the recorded schedule is
// replayed instruction by instruction, and the pc sequence and final state
// are compared with what the device reached.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/snapshot/snapshot.h"
#include "hw/config.h"
#include "sim/events.h"
#include "sim/system.h"

namespace snr::record {

// The hardware a snapshot replays on: its header's config, valid, for as
// many chips as the header says. Throws snr::Error naming what is wrong.
hw::HwConfig snapshot_hardware(const snapshot::pb::Header& header);

// A System built from the snapshot's hardware config and executed code,
// with every saved register and memory region installed and each recorded
// chip's pc at its first recorded instruction. Throws snr::Error naming the
// chip and region that does not fit.
std::unique_ptr<sim::System> load_snapshot(const snapshot::Snapshot& snapshot, sim::EventBus* bus = nullptr);

struct CheckResult {
  bool matched = true;
  uint64_t instructions = 0;          // re-executed before the end or the first divergence
  std::vector<std::string> problems;  // first divergence first; empty when matched
};

CheckResult check_snapshot(const snapshot::Snapshot& snapshot);

}  // namespace snr::record
