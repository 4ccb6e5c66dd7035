// The replay driver: installs a ReplayInput into a fresh simulator (the
// trace-load step: all state in place before the first cycle), runs every
// chip together in timing mode with the performance tracker subscribed,
// checks each issued pc against the recording, and compares the final state
// with what the device reached.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "formats/rundb/run_data.h"
#include "hw/config.h"
#include "replay/replay_input.h"
#include "sim/system.h"
#include "window/recorded_window.h"

namespace snr::replay {

struct ReplayOptions {
  // Replaces the recorded hardware config (preset name or YAML file); the
  // chip count stays the recording's.
  std::string hw_preset_or_file;
  // A whole config as YAML, taken as it is instead of the recorded config
  // or hw_preset_or_file, chip count included: a run's `hw_config`, to
  // replay the window again on the hardware that run used.
  std::string hw_config_yaml;
  std::vector<std::string> overrides;  // "key=value"
  uint64_t max_cycles = uint64_t{1} << 40;
  // false: no performance tracker; ReplayResult::data then holds only
  // total_cycles, the per-chip summaries and meta (what a caller replaying
  // many variants needs to compare cycles and check the end state).
  bool collect_run_data = true;
};

struct ReplayResult {
  rundb::RunData data;
  std::unique_ptr<sim::System> system;  // final architectural state
  uint64_t instructions = 0;
  std::vector<std::string> final_state_problems;  // empty when the device's end state was reached
};

// The hardware the replay runs on: hw_config_yaml, or the recording's
// config, or the requested preset/file with the recording's chip count;
// then overrides.
hw::HwConfig replay_hw_config(const ReplayInput& input, const ReplayOptions& options);

// Throws snr::Error on a pc divergence ("step S (chip C instruction I):
// expected pc ..., actual pc ... <disassembly>"), a fault or a deadlock.
ReplayResult run_replay(const ReplayInput& input, const ReplayOptions& options);

// The recorded window of every chip of `input`, for window::RecordedWindow
// (the pc cross-check, the window's end and the end-state rules).
std::vector<window::ChipWindow> recorded_windows(const ReplayInput& input);

}  // namespace snr::replay
