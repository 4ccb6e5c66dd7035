// Puts a ModelImage into a simulated system and runs it: every chip gets
// its own ELF (the text must be identical, since the simulator shares one
// predecoded text; the .data tables differ) and its initial HBM.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/model_image.h"
#include "sim/system.h"
#include "sim/timing.h"

namespace snr::metrics {

// Loads programs and HBM into `system` (which must have image.chips()
// chips). Throws snr::Error when the chips' texts differ or a region does
// not fit HBM.
void install(const compiler::ModelImage& image, sim::System& system);

// Reads `bytes` of f32 from chip's HBM at a local HBM address.
std::vector<float> read_hbm_f32(const sim::System& system, uint32_t chip, uint64_t address, uint64_t bytes);

// The hardware config the image was compiled for (chips = image.chips()).
hw::HwConfig system_config(const compiler::ModelImage& image);

}  // namespace snr::metrics
