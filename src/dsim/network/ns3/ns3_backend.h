// The packet-level backend itself, built only when ns-3 is installed
// (ns3_network.cc); without it, ns3_absent.cc says how to get it.
#pragma once

#include <memory>
#include <string>

#include "dsim/core/event_loop.h"
#include "dsim/network/network.h"
#include "dsim/network/ns3/ns3_config.h"

namespace snr::dsim {

bool ns3_available();
std::string ns3_how_to_enable();

// Builds the ns-3 network of `config` and ties its clock to `loop`. ns-3's
// simulator is one per process: a second backend while one exists throws
// snr::Error, and so does every call in a build without ns-3.
std::unique_ptr<NetworkBackend> make_ns3_network(const Ns3NetworkConfig& config, EventLoop& loop);

}  // namespace snr::dsim
