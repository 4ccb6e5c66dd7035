// Fuzz target for ASTRA-sim's ns-3 inputs: the configuration's keys, the
// topology file and the logical-dims JSON (the first byte picks which).
// Bad input must end in snr::Error; a topology that reads must write as
// snr's ns-3 YAML that its own reader takes or refuses with snr::Error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/error.h"
#include "dsim/network/ns3/astra_sim_ns3_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        const auto settings = snr::dsim::parse_astra_sim_ns3_settings(text, "fuzz");
        if (settings.topology_file.empty()) std::abort();
        break;
      }
      case 1: {
        snr::dsim::Ns3NetworkConfig config;
        snr::dsim::parse_astra_sim_ns3_topology(text, "fuzz", config);
        if (config.npus == 0 || config.npus + config.switches > snr::dsim::kMaxNs3Nodes) std::abort();
        for (const auto& link : config.links) {
          if (link.from >= config.node_count() || link.to >= config.node_count()) std::abort();
        }
        (void)snr::dsim::parse_ns3_network(snr::dsim::ns3_network_yaml(config, "fuzz"), "written");
        break;
      }
      default:
        for (const uint32_t dim : snr::dsim::parse_astra_sim_logical_dims(text, "fuzz")) {
          if (dim == 0) std::abort();
        }
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
