// The built-in demo: a small two-chip NPU program built with the encoder.
// Each chip DMAs activations and a weight tile from HBM into VMEM (two DMAs
// in flight at once), runs them through the matrix unit and the vector unit
// (relu and a lane reduction), sends its result to the next chip's HBM with
// a remote DMA, waits for its neighbour's result, adds the two and prints a
// line to its console. The host side seeds HBM and checks the result.
#pragma once

#include <string>
#include <vector>

#include "sim/program.h"
#include "sim/system.h"

namespace snr::sim::demo {

// HBM / VMEM / SMEM layout used by the demo program (local addresses).
constexpr uint64_t kActivationsHbmOffset = 0x0;
constexpr uint64_t kWeightsHbmOffset = 0x10000;
constexpr uint64_t kReceivedHbmOffset = 0x100000;
constexpr uint64_t kResultVmemOffset = 0x40000;

ProgramImage build_program();

// Writes deterministic activations and weights into every chip's HBM.
void seed_inputs(System& system);

// Recomputes each chip's expected result on the host (same bf16 rounding,
// double accumulation) and returns the largest relative error of the
// simulated result over all chips.
double max_relative_error(const System& system);

// What the program does, for the demo's printout.
std::vector<std::string> describe_steps();

}  // namespace snr::sim::demo
