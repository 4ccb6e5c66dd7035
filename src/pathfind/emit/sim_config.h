// The ASTRA-sim configuration files of a prediction's system (for `snr
// sim`): one network dimension per system dimension of size > 1 (switch →
// Switch, torus ring → Ring, mesh line → Ring: the analytical network has no
// open line), link bandwidth × the tier's efficiency in GB/s of 2^30 B,
// latency per link in ns (a switch path crosses two links, so each gets half
// the tier's per-message latency); ring collectives on every dimension,
// FIFO, one chunk, COMP nodes timed by their durations.
#pragma once

#include "hw/network_export.h"
#include "pathfind/predict/predict.h"

namespace snr::pathfind {

hw::NetworkConfigFiles emit_sim_config(const DeviceSpec& device, const Prediction& prediction);

}  // namespace snr::pathfind
