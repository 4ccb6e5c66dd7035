// Fuzz target for the ns-3 backend's network configuration reader: bad
// input must end in snr::Error, and whatever reads must write back to YAML
// that reads again to the same configuration.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/error.h"
#include "dsim/network/ns3/ns3_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  snr::dsim::Ns3NetworkConfig config;
  try {
    config = snr::dsim::parse_ns3_network(text, "fuzz");
  } catch (const snr::Error&) {
    return 0;
  }
  const auto back = snr::dsim::parse_ns3_network(snr::dsim::ns3_network_yaml(config, "fuzz"), "written");
  if (back.npus != config.npus || back.switches != config.switches || back.links.size() != config.links.size() ||
      back.node_names != config.node_names || back.logical_dims != config.logical_dims ||
      back.packet_payload_bytes != config.packet_payload_bytes || back.port_queue_bytes != config.port_queue_bytes ||
      back.ecmp != config.ecmp || back.ecmp_seed != config.ecmp_seed) {
    std::abort();
  }
  for (size_t i = 0; i < config.links.size(); ++i) {
    if (back.links[i].from != config.links[i].from || back.links[i].to != config.links[i].to ||
        back.links[i].bandwidth_gbit_per_s != config.links[i].bandwidth_gbit_per_s ||
        back.links[i].latency_ns != config.links[i].latency_ns) {
      std::abort();
    }
  }
  return 0;
}
