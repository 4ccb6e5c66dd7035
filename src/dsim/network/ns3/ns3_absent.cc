// A build without ns-3: the configuration still reads and translates, the
// backend itself says how to enable it.
#include <fmt/format.h>

#include "common/error.h"
#include "dsim/network/ns3/ns3_backend.h"

namespace snr::dsim {

bool ns3_available() { return false; }

std::string ns3_how_to_enable() {
  return "install Debian's libns3-dev (scripts/setup.sh does) and rebuild; CMake finds it on its own";
}

std::unique_ptr<NetworkBackend> make_ns3_network(const Ns3NetworkConfig& /*config*/, EventLoop& /*loop*/) {
  throw Error(fmt::format("network backend 'ns3': this snr was built without ns-3 ({})", ns3_how_to_enable()));
}

}  // namespace snr::dsim
