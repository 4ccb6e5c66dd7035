// The fitted model of the communication part of a set of traces (the
// hierarchical generator of the Chakra paper, section 4).
//
// Fitting works on the master trace of each input workload: the ordered
// collectives of one rank, each tagged with the *scope* of its process group
// (world, blocks of consecutive ranks, or a strided partition). Because every
// rank belongs to exactly one group of each scope, this one sequence
// describes every rank losslessly for the purposes of replay, and projecting
// a sampled master trace onto all ranks makes every group's members issue the
// same collectives in the same order.
//
// Fitted: collective-type mix, a first-order Markov chain over types,
// sequence lengths, per type the message-size distribution (atoms or a
// Gaussian mixture in log2 space) with a same-size repeat probability, the
// scope mix per type, and the compute gap between consecutive collectives.
// docs/synthesis.md describes what is assumed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "et/generate/workload_builder.h"
#include "et/synth/value_model.h"

namespace snr::et::synth {

struct GroupScope {
  enum class Kind { kWorld, kBlock, kStrided };
  Kind kind = Kind::kWorld;
  // kBlock: ranks per group (consecutive); kStrided: the stride, which is
  // also the number of groups.
  uint32_t width = 0;
  friend bool operator==(const GroupScope&, const GroupScope&) = default;
};

struct TypeModel {
  int64_t comm_type = 0;  // ChakraProtoMsg::CollectiveCommType value
  uint64_t count = 0;
  // Probability that a collective repeats the previous one's size when the
  // previous collective had the same type (beyond chance agreement).
  double repeat_size_probability = 0;
  ValueModel sizes_bytes;
  std::vector<double> scope_probability;  // per CommModel::scopes entry
};

struct FitInput {
  std::string name;
  uint32_t npus = 0;
  uint64_t collectives = 0;
  uint64_t skipped_point_to_point = 0;
  uint64_t skipped_irregular_groups = 0;
};

struct CommModel {
  std::vector<FitInput> inputs;
  std::vector<GroupScope> scopes;
  std::vector<TypeModel> types;
  std::vector<double> initial_type_probability;
  std::vector<std::vector<double>> transition_probability;  // [from][to]
  std::vector<uint64_t> sequence_lengths;
  ValueModel gaps_micros;
};

// One collective of a master trace.
struct MasterRecord {
  int64_t comm_type = 0;
  uint64_t size_bytes = 0;
  GroupScope scope;
  uint64_t gap_micros = 0;  // compute time since the previous collective
};

struct MasterTrace {
  std::vector<MasterRecord> records;
  uint64_t skipped_point_to_point = 0;
  uint64_t skipped_irregular_groups = 0;
};

// The master trace of a workload, read from rank 0.
MasterTrace extract_master_trace(const Workload& workload);

// Throws snr::Error when no input has a collective.
CommModel fit_comm_model(const std::vector<std::pair<std::string, Workload>>& inputs);

std::string comm_model_to_json(const CommModel& model);
// Strict reader: unknown keys, wrong types, probabilities that do not sum to
// one and inconsistent lengths are errors naming `source` and the key path.
CommModel comm_model_from_json(std::string_view text, const std::string& source);

std::string scope_name(const GroupScope& scope);

}  // namespace snr::et::synth
