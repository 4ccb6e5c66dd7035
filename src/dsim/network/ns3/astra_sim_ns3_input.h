// ASTRA-sim's ns-3 inputs, read into snr's ns-3 configuration, so that a run
// script of ASTRA-sim's ns-3 frontend works with `snr sim --network-backend
// ns3` unchanged:
//
// - the network configuration of its ns-3 fork (`config.txt`: "KEY value"
//   lines), which names the topology file (TOPOLOGY_FILE);
// - the topology file: "N S L" (nodes, switches, links), the S switch ids,
//   then L lines "src dst rate delay error_rate" with ns-3's strings
//   ("400Gbps", "0.0005ms"); NPU i is node i, so the switches must be the
//   last S ids;
// - the logical topology (`--logical-topology-configuration`):
//   {"logical-dims": ["8", "2"]}, the dimensions collectives are planned on.
//
// PACKET_PAYLOAD_SIZE and BUFFER_SIZE (MiB per switch in the fork, taken as
// each output port's queue) are used; the fork's RDMA transport settings
// (congestion control, PFC, ECN maps, windows) and its output files are
// accepted and named in a note, since snr's backend runs stock ns-3's
// transport (docs/simulator-distributed.md, "ASTRA-sim's ns-3 inputs");
// links taken down or lossy are errors. Every other key is an error.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/network/ns3/ns3_config.h"

namespace snr::dsim {

// Whether `text` is ASTRA-sim's ns-3 configuration rather than snr's YAML:
// its first line that is not blank or a comment is an upper-case KEY, a
// space and a value.
bool is_astra_sim_ns3_config(std::string_view text);

// ns-3's DataRate and Time strings: "400Gbps", "100Mb/s", "1.5GB/s" (bytes),
// "0.0005ms", "500ns", "1us". Throws snr::Error naming `where`.
double parse_ns3_data_rate_gbit_per_s(std::string_view text, std::string_view where);
double parse_ns3_time_ns(std::string_view text, std::string_view where);

// The logical topology JSON's dimension sizes. Throws snr::Error naming `source`.
std::vector<uint32_t> parse_astra_sim_logical_dims(std::string_view json_text, std::string_view source);

// The topology file into npus, switches and links of `config`. Throws
// snr::Error naming `source` and the line.
void parse_astra_sim_ns3_topology(std::string_view text, std::string_view source, Ns3NetworkConfig& config);

// The configuration file's keys: what snr uses of them, and the transport
// settings it accepts without modelling them. Throws snr::Error naming
// `source`, the line and the key.
struct AstraSimNs3Settings {
  std::string topology_file;  // TOPOLOGY_FILE as written
  uint32_t packet_payload_bytes = 1000;
  uint64_t port_queue_bytes = uint64_t{16} << 20;  // the fork's default BUFFER_SIZE, 16 MiB
  std::vector<std::string> transport_keys;  // present, not modelled
};
AstraSimNs3Settings parse_astra_sim_ns3_settings(std::string_view text, std::string_view source);

struct AstraSimNs3Input {
  Ns3NetworkConfig config;
  std::filesystem::path topology_file;  // as found
  std::vector<std::string> notes;       // settings accepted but not modelled
};

// The configuration text (from `config_path`, whose folder anchors the
// search for TOPOLOGY_FILE) with the topology file it names, and the
// logical dimensions when `logical_dims` is not empty (their product must be
// the topology's NPUs). The result has not been checked as a whole: write it
// with ns3_network_yaml and read it back with parse_ns3_network.
AstraSimNs3Input read_astra_sim_ns3_input(std::string_view config_text, const std::filesystem::path& config_path,
                                          const std::vector<uint32_t>& logical_dims);

}  // namespace snr::dsim
