// A generated device as the NPU's hardware configuration (src/hw schema),
// so `snr compile` and `snr run` execute a model on the chip the generator
// designed. What the generator decides is carried over: clock, matrix
// units, VMEM capacity and bandwidth, HBM capacity and bandwidth, ICI link
// bandwidth and latency, chip count. What it does not model (pipeline
// latencies of the units, the DMA engine, the scalar core, SMEM) stays at
// the tpu-v4-like preset's values.
#pragma once

#include <cstdint>

#include "hw/config.h"
#include "pathfind/inputs/device.h"

namespace snr::pathfind {

// Throws snr::Error when the device is not an NPU (matrix units other than
// 128x128) or a value is outside the hardware schema's range, naming the key.
hw::HwConfig npu_config(const DeviceSpec& device, uint64_t chips);

}  // namespace snr::pathfind
