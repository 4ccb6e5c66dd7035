// The NPU system as ASTRA-sim configuration files (the three `snr sim`
// reads, docs/formats/astra-sim-config.md), derived from one HwConfig so an
// exported Chakra trace of a run simulates on the machine it ran on:
//
//   network.yml         the ICI topology as dimensions (ring → Ring,
//                       torus2d → Ring × Ring with X fastest as chip ids
//                       number them, fully_connected → FullyConnected),
//                       ici.link_bandwidth per directed link, ici.hop_latency
//   system.json         the DMA engine: endpoint-delay = dma.base_latency
//                       (paid once per transfer before it moves), one chunk
//                       per collective and one DMA per peer (the compiler's
//                       direct collectives), reductions at VMEM bandwidth,
//                       peak compute from clock x matrix units
//   remote_memory.json  no memory expansion
//
// The rules and what they leave out: docs/crosscheck.md.
#pragma once

#include <filesystem>
#include <string>

#include "hw/config.h"

namespace snr::hw {

struct NetworkConfigFiles {
  std::string network_yml;
  std::string system_json;
  std::string remote_memory_json;
};

// `config.chip_count` chips; throws snr::Error for a system with fewer than
// two chips (ASTRA-sim dimensions need two) or a shape Topology refuses.
NetworkConfigFiles export_network(const HwConfig& config);

// The system.json both exporters write: FIFO, one chunk per collective and
// one active chunk per dimension, `algorithm` on every dimension
// (`dimensions` entries), COMP nodes timed by their durations (no roofline).
std::string astra_system_json(const std::string& algorithm, size_t dimensions, int64_t endpoint_delay_ns,
                              double local_mem_bytes_per_s, double peak_flops_per_s);

// Writes DIR/network.yml, DIR/system.json and DIR/remote_memory.json, all
// or nothing (other files in DIR are kept).
void write_network_config(const NetworkConfigFiles& files, const std::filesystem::path& directory);

}  // namespace snr::hw
