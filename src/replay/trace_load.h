// The trace-load step: a fresh System built from a ReplayInput with every
// saved register and memory region installed before execution starts. The
// code image gets one extra word past the recorded code, an ebreak that a
// chip is sent to when its recorded window is complete (and that
// unrecorded chips start on), so the timing model retires it and stops.
#pragma once

#include <cstdint>
#include <memory>

#include "hw/config.h"
#include "replay/replay_input.h"
#include "sim/events.h"
#include "sim/system.h"

namespace snr::replay {

struct LoadedReplay {
  std::unique_ptr<sim::System> system;
  uint64_t window_end_pc = 0;  // address of the ebreak sentinel
};

// Throws snr::Error naming the chip and the state or region that does not
// fit (a smaller VMEM than recorded, a wrong register size, ...).
LoadedReplay load_replay(const ReplayInput& input, const hw::HwConfig& config, sim::EventBus* bus);

}  // namespace snr::replay
