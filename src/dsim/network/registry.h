// Network backends by name (`--network-backend`). Each backend lives in its
// own folder and describes itself with a NetworkBackendSpec: its name, the
// keys of the network configuration it reads, how to read that file into
// the logical topology the system layer sees, and how to build it.
// Built-in backends are listed once in registry.cc; others (tests,
// out-of-tree models) may be added at run time with
// register_network_backend. See src/dsim/README.md for adding one.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "dsim/config/network_config.h"
#include "dsim/core/event_loop.h"
#include "dsim/network/network.h"

namespace snr::dsim {

struct NetworkBackendSpec {
  std::string name;     // as given to --network-backend
  std::string summary;  // one line for help and errors
  // Top-level keys of the network configuration this backend reads; any
  // other key is an error naming the backend and these keys.
  std::vector<std::string> config_keys;
  // Reads the configuration text (keys already checked) into the logical
  // topology the system layer plans collectives on. Throws snr::Error.
  std::function<NetworkConfig(std::string_view text, std::string_view source)> parse_config;
  // Builds the backend; it registers its own handlers on `loop`.
  std::function<std::unique_ptr<NetworkBackend>(const NetworkConfig& config, EventLoop& loop)> create;
};

// The backend called `name`; throws snr::Error listing the registered names.
const NetworkBackendSpec& find_network_backend(std::string_view name);
// Registered names, in registration order (built-ins first).
std::vector<std::string> network_backend_names();
// Adds a backend; throws snr::Error when the name is taken or the spec is incomplete.
void register_network_backend(NetworkBackendSpec spec);

// The details a backend's own configuration carries (its physical graph,
// NetworkConfig::backend_details); throws snr::Error naming the backend when
// the configuration was read for another one (an analytical file).
template <class Details>
const Details& backend_details_of(const NetworkConfig& config, std::string_view backend) {
  const auto* details = dynamic_cast<const Details*>(config.backend_details.get());
  if (details == nullptr) {
    throw Error(std::string("network backend '").append(backend).append(
        "' needs its own network configuration (its keys: --network-backend help), not another backend's"));
  }
  return *details;
}

// Checks the top-level keys of `text` (YAML) against `spec`, then parses it.
NetworkConfig parse_backend_config(const NetworkBackendSpec& spec, std::string_view text, std::string_view source);
NetworkConfig load_backend_config(const NetworkBackendSpec& spec, const std::filesystem::path& path);

}  // namespace snr::dsim
