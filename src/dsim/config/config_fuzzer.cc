// Fuzz target for the ASTRA-sim config readers. The first byte picks the
// reader (system JSON, network YAML — read as it is and as the
// congestion-unaware backend reads it, with its own key — remote memory
// JSON, comm groups JSON); bad input must end in snr::Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "dsim/config/aux_config.h"
#include "dsim/config/network_config.h"
#include "dsim/config/system_config.h"
#include "dsim/network/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 4) {
      case 0: (void)snr::dsim::parse_system_config(text, "fuzz"); break;
      case 1:
        try {
          (void)snr::dsim::parse_network_config(text, "fuzz");
        } catch (const snr::Error&) {
        }
        (void)snr::dsim::parse_backend_config(snr::dsim::find_network_backend("analytical-congestion-unaware"),
                                              text, "fuzz");
        break;
      case 2: (void)snr::dsim::parse_remote_memory_config(text, "fuzz"); break;
      default: (void)snr::dsim::parse_comm_groups(text, "fuzz", 64); break;
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
