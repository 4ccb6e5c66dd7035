// The trace-load step: a fresh System built from a ReplayInput with every
// saved register and memory region installed before execution starts. The
// window's end needs no code of its own: the replayer gives the timing model
// each chip's instruction count (0 for chips that were only read).
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
};

// Throws snr::Error naming the chip and the state or region that does not
// fit (a smaller VMEM than recorded, a wrong register size, ...).
LoadedReplay load_replay(const ReplayInput& input, const hw::HwConfig& config, sim::EventBus* bus);

}  // namespace snr::replay
