// Custom collectives (ASTRA-sim's *-implementation-custom and
// per-node-custom-implementation): the algorithm is itself a Chakra graph
// per rank position — COMM_SEND and COMM_RECV nodes with their own sizes and
// tags (the workload's collective size is ignored, as in ASTRA-sim), and
// COMP nodes that stand for reductions (duration_micros, 1 ns when zero).
// Peers are algorithm ranks, mapped to NPUs through the phase's members. A
// workload collective that runs one is a single stream (whatever
// preferred-dataset-splits says) running the whole program once; it is
// finished when every node is.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dsim/system/collective.h"

namespace snr::dsim {

enum class CustomStepKind : uint8_t { kSend, kRecv, kCompute };

struct CustomStep {
  uint64_t chakra_id = 0;
  CustomStepKind kind = CustomStepKind::kCompute;
  uint32_t peer = 0;          // algorithm rank (send: destination, recv: source)
  uint32_t tag = 0;
  uint64_t bytes = 0;
  uint64_t duration_ns = 0;   // compute steps
  uint32_t parents = 0;
  std::vector<uint32_t> children;
};

// The program of one rank position.
struct CustomProgram {
  std::string source;  // the .et file, for error messages
  std::vector<CustomStep> steps;
};

// One custom algorithm: its programs by rank position (position in the
// communicator group, or NPU id).
using CustomPrograms = std::vector<CustomProgram>;

// The collectives with a custom key of their own, in CollectiveKind order:
// the key and the SystemConfig field its trace prefix is kept in.
struct CustomKey {
  std::string_view key;
  std::filesystem::path SystemConfig::*prefix;
};
inline constexpr std::array<CustomKey, 4> kCustomKeys = {{
    {"all-reduce-implementation-custom", &SystemConfig::all_reduce_custom},
    {"all-gather-implementation-custom", &SystemConfig::all_gather_custom},
    {"reduce-scatter-implementation-custom", &SystemConfig::reduce_scatter_custom},
    {"all-to-all-implementation-custom", &SystemConfig::all_to_all_custom},
}};
static_assert(static_cast<size_t>(CollectiveKind::kAllToAll) == kCustomKeys.size() - 1,
              "the custom keys follow CollectiveKind's first kinds");

// The custom algorithms a system configuration names, shared where two
// keys name the same prefix. ASTRA-sim's priority: a per-node program,
// then the collective's own custom key, then the native lists.
struct CustomCollectives {
  // By CollectiveKind (only the four with a *-implementation-custom key).
  std::array<std::shared_ptr<const CustomPrograms>, kCustomKeys.size()> by_kind;
  // By the workload node's Chakra id (per-node-custom-implementation).
  std::unordered_map<uint64_t, std::shared_ptr<const CustomPrograms>> by_node;

  [[nodiscard]] bool empty() const;
  // The programs a collective of `kind` at workload node `chakra_id` runs,
  // or nullptr for a native algorithm.
  [[nodiscard]] const CustomPrograms* find(CollectiveKind kind, uint64_t chakra_id) const;
};

// Runs one program inside a stream: issues steps whose parents are done and
// finishes the phase when all are.
class CustomPhase {
 public:
  CustomPhase() = default;
  // Throws snr::Error when the program names a peer outside the phase.
  CustomPhase(const PhasePlan& plan, const CustomProgram& program);

  void start(uint32_t stream, PhaseActions& actions);
  void on_step_done(uint32_t stream, uint32_t step, PhaseActions& actions);

 private:
  void issue(uint32_t stream, uint32_t step, PhaseActions& actions);

  const CustomProgram* program_ = nullptr;
  PhaseRing ring_;
  std::vector<uint32_t> parents_left_;
  uint64_t steps_left_ = 0;
};

}  // namespace snr::dsim
