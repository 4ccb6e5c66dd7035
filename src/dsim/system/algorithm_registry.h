// Collective algorithms by name (the system configuration's
// `*-implementation` lists: "ring", "direct8", "oneHalvingDoubling", ...).
// Each algorithm lives in its own file and describes itself with a
// CollectiveAlgorithmSpec: its names, the collectives it implements, the
// system-configuration keys it owns, and how to build one phase. Built-ins
// are listed once in algorithm_registry.cc; others (tests, new models) may
// be added at run time with register_collective_algorithm. See
// src/dsim/README.md for adding one.
//
// Why phases are a variant: the built-in algorithms are the per-packet hot
// path, so a stream holds its phase by value and the engine calls it
// without a virtual call. A new algorithm needs no change here: it returns
// a PluginPhase (an object behind the CollectivePhase interface), which the
// engine drives through virtual calls.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dsim/config/system_config.h"
#include "dsim/system/collective.h"
#include "dsim/system/compute_device.h"
#include "dsim/system/custom_collective.h"
#include "dsim/system/direct.h"
#include "dsim/system/double_binary_tree.h"
#include "dsim/system/halving_doubling.h"
#include "dsim/system/ring.h"

namespace snr::dsim {

class EventLoop;
struct NetworkConfig;

// A phase of an algorithm outside the built-in set. The engine calls
// start once, on_packet_ready after each process_packet, on_packet_received
// for each matched receive, and on_step_done for each completed
// custom_send / custom_recv / custom_compute.
class CollectivePhase {
 public:
  virtual ~CollectivePhase() = default;
  virtual void start(uint32_t stream, PhaseActions& actions) = 0;
  virtual void on_packet_ready(uint32_t stream, PhaseActions& actions) = 0;
  virtual void on_packet_received(uint32_t stream, PhaseActions& actions) = 0;
  virtual void on_step_done(uint32_t stream, uint32_t step, PhaseActions& actions) = 0;
};
using PluginPhase = std::unique_ptr<CollectivePhase>;

// State an algorithm keeps for a whole run beside the engine (the
// load-store model's GPU domain, system/load_store/): its phases of every
// NPU share it. Built once per run for each algorithm the configuration's
// *-implementation lists name; destroyed with the engine.
class AlgorithmRun {
 public:
  virtual ~AlgorithmRun() = default;
  // The device this run offers the workload's GPU compute nodes
  // (compute_device.h), or nullptr: they keep their durations.
  virtual ComputeDevice* compute_device() { return nullptr; }
  // What the run still waits for, for a simulation that stalled; empty
  // when it waits for nothing.
  [[nodiscard]] virtual std::string stall_report() const { return {}; }
};

// What an algorithm gets to build its run state.
struct AlgorithmRunContext {
  const SystemConfig& system;
  const NetworkConfig& network;
  EventLoop& loop;
  // The engine's handler: a run finishes a phase by scheduling
  // CollectiveEngine::CustomStepDone{stream, step} for it, which reaches the
  // phase's on_step_done in the engine's own event order.
  HandlerId engine_handler = 0;
  // Payload bytes each NPU sends, the run's traffic counters: a run whose
  // transfers never pass the engine (the load-store model) adds its own.
  std::vector<uint64_t>* bytes_sent_per_npu = nullptr;
};

// Index order is the engine's dispatch order (collective_engine.cc).
using Phase = std::variant<RingPhase, DirectPhase, HalvingDoublingPhase, DoubleBinaryTreePhase, CustomPhase,
                           PluginPhase>;

// What an algorithm gets to build one phase of one stream.
struct PhaseContext {
  const PhasePlan& plan;
  NpuId npu = 0;
  // The algorithm's run state (its spec's create_run), or nullptr.
  AlgorithmRun* run = nullptr;
};

// The endpoint delay of a packet in a communicator group's own ring for
// the algorithms that say so (CollectiveAlgorithmSpec::fixed_endpoint_in_group_ring).
inline constexpr TimeNs kGroupRingEndpointDelayNs = 10;

struct CollectiveAlgorithmSpec {
  std::string name;                  // as written in the configuration
  std::vector<std::string> aliases;  // other accepted spellings
  std::string summary;               // one line for errors and docs
  // Named in *-implementation lists; false for algorithms chosen by a key
  // of their own (the custom collective).
  bool listed = true;
  bool flattenable = false;          // "one" + name: one phase over all NPUs
  bool numeric_suffix = false;       // name + digits: PhasePlan::parameter (direct8)
  std::vector<CollectiveKind> implements;
  // In the reduce-scatter and all-gather phases of a localBWAware
  // all-reduce over several dimensions, which it does not implement, runs
  // an all-reduce of the phase's data instead, passing all of it on
  // (ASTRA-sim's double binary tree does: its phase is an all-reduce
  // whatever the phase asks, and its output is its input).
  bool all_reduce_in_split_phases = false;
  // In a communicator group's own ring (a group smaller than the system,
  // ASTRA-sim's "local" dimension), packets pass the endpoint in
  // kGroupRingEndpointDelayNs whatever endpoint-delay says: ASTRA-sim's ring,
  // direct and halving-doubling send them there by its "fast" transmission,
  // a fixed 10 ns.
  bool fixed_endpoint_in_group_ring = false;
  // System-configuration keys this algorithm owns, and their reader
  // (`base_dir`: the configuration's folder, for relative paths).
  std::vector<std::string> config_keys;
  std::function<void(const nlohmann::json& value, std::string_view key, const std::filesystem::path& base_dir,
                     SystemConfig& config)>
      parse_key;
  // Checks the configuration as a whole once it is read (keys that need
  // other keys or the *-implementation lists); throws snr::Error. Unset:
  // nothing to check.
  std::function<void(const SystemConfig& config)> check_config;
  // Builds one phase; throws snr::Error when the phase cannot run it.
  std::function<Phase(const PhaseContext& context)> create;
  // Builds the run state the phases share (see AlgorithmRun); unset: none.
  std::function<std::unique_ptr<AlgorithmRun>(const AlgorithmRunContext& context)> create_run;
  uint32_t index = 0;  // set by the registry

  [[nodiscard]] bool implements_kind(CollectiveKind kind) const;
};

// The algorithm called `name` (no "one" prefix or suffix); throws
// snr::Error listing the registered names.
const CollectiveAlgorithmSpec& find_collective_algorithm(std::string_view name);
// The algorithm owning system-configuration key `key`, or nullptr.
const CollectiveAlgorithmSpec* find_algorithm_owning_key(std::string_view key);
// The system-configuration keys the registered algorithms own.
std::vector<std::string> collective_algorithm_config_keys();
// Registered names (listed ones as written in configurations), in order.
std::vector<std::string> collective_algorithm_names();
// Adds an algorithm; throws snr::Error when a name or key is taken.
void register_collective_algorithm(CollectiveAlgorithmSpec spec);

// Resolves one entry of an *-implementation list: an optional "one"
// prefix, a registered name or alias, and digits for algorithms that take
// them. Throws snr::Error naming the entry and the registered names.
CollectiveImplementation resolve_collective_implementation(std::string_view text);

// Built-in specs (each defined beside its algorithm).
CollectiveAlgorithmSpec ring_algorithm_spec();
CollectiveAlgorithmSpec direct_algorithm_spec();
CollectiveAlgorithmSpec halving_doubling_algorithm_spec();
CollectiveAlgorithmSpec double_binary_tree_algorithm_spec();
CollectiveAlgorithmSpec custom_algorithm_spec();
CollectiveAlgorithmSpec binomial_tree_algorithm_spec();

}  // namespace snr::dsim
