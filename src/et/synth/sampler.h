// Sampling new traces from a CommModel: draw one master trace (types from
// the Markov chain, sizes per type, scopes, compute gaps), then project it
// onto every rank of the requested NPU count. Each rank receives every
// master record, on the group of that record's scope that contains it, as a
// linear chain compute-gap -> collective -> compute-gap -> ..., so every
// group's members issue identical collectives in identical order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "et/generate/workload_builder.h"
#include "et/synth/comm_model.h"

namespace snr::et::synth {

struct SampleOptions {
  Rank npus = 0;
  uint64_t seed = 1;
  // Collectives in the master trace; drawn from the fitted lengths if unset.
  std::optional<uint64_t> length;
};

MasterTrace sample_master_trace(const CommModel& model, const SampleOptions& options);

// The process groups a master trace needs on `npus` ranks. Throws
// snr::Error when a scope does not divide npus.
ProcessGroups groups_for(const MasterTrace& master, Rank npus);

// In memory (tests, small workloads).
Workload project_master_trace(const MasterTrace& master, Rank npus);

// Streams rank by rank to `<prefix>.<rank>.et` (+ comm groups JSON); memory
// does not grow with the NPU count.
void write_master_trace(const MasterTrace& master, Rank npus, const std::filesystem::path& prefix);

}  // namespace snr::et::synth
