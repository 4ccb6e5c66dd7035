// The system-configuration keys of the load-store collective model (the
// `load-store` entry of an *-implementation list): which GPU and network
// the collectives run on and how their plans are made. parse_key checks
// every value when the file is read, so a typo fails before the run with
// the key's name; settings_of reads them back for the run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dsim/config/system_config.h"

namespace snr::dsim::load_store {

// The keys, for the algorithm spec and the docs.
std::vector<std::string> config_keys();

// A system is a GPU and the network around it: the names both a GPU preset
// and a network preset exist for.
std::vector<std::string> system_presets();

// Checks `value` for `key` and stores it in config.algorithm_settings.
// Throws snr::Error naming the key and what it accepts.
void parse_key(const nlohmann::json& value, std::string_view key, const std::filesystem::path& base_dir,
               SystemConfig& config);

struct Settings {
  std::string system = "generic-448";  // load-store-system: a GPU and network preset pair
  std::string gpu;                     // load-store-gpu: preset or YAML file; empty: the system's
  std::string network;                 // load-store-network: preset or YAML file; empty: the system's
  std::string algorithm = "auto";      // load-store-algorithm: a generated plan algorithm, or auto
  std::string protocol = "auto";       // load-store-protocol: auto, Simple, LL, LL128
  std::string transfer = "put";        // load-store-transfer: put or get
  uint32_t workgroups = 0;             // load-store-workgroups; 0: NCCL's channels on NCCL systems, else 32
  // load-store-plan-<collective>: an MSCCL++ .json / MSCCLang .xml file
  // used instead of a generated plan, by the system layer's collective
  // name (all_reduce, all_gather, reduce_scatter, all_to_all).
  std::map<std::string, std::string> plan_files;
  // load-store-compute: where GPU compute nodes run. "duration": they take
  // their trace durations on the NPU's compute lane (ASTRA-sim 2.x);
  // "gpu": as kernels of ReduceOp workgroups on the GPU model, contending
  // with the collectives' kernels for CU slots and ALUs (seed 003 §4.3).
  std::string compute = "duration";
  uint32_t compute_workgroups = 0;  // load-store-compute-workgroups; 0: one per CU of the GPU
  uint32_t compute_slice_cycles = 4096;  // load-store-compute-slice-cycles: ALU grain (gpu_compute.h)
};

// Whole-configuration checks (the algorithm spec's check_config).
void check_config(const SystemConfig& config);

// The settings the configuration gave (defaults for the others).
Settings settings_of(const SystemConfig& config);

}  // namespace snr::dsim::load_store
