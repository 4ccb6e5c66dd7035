// The packet-level backend itself, built only when ns-3 is installed
// (ns3_network.cc); without it, ns3_absent.cc says how to get it.
//
// Why a module: linking ns-3's libraries into `snr` makes every run of every
// command pay for relocating them and running their static constructors
// (28 M instructions, more than a whole 256-NPU analytical simulation's
// start-up). ns3_network.cc is built into the module libsnr_dsim_ns3.so,
// next to `snr`, which make_ns3_network (ns3_module.cc) loads the first
// time an ns-3 network is built; the module takes everything else from the
// executable that loads it (`snr` exports its symbols).
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

// The module's file name.
inline constexpr const char* kNs3ModuleFileName = "libsnr_dsim_ns3.so";

}  // namespace snr::dsim

// The backend's constructor in ns3_network.cc, by a C name so that the
// module's loader finds it; make_ns3_network owns what it returns. A binary
// that links ns3_network.cc itself (its unit test) gets it without a module.
extern "C" snr::dsim::NetworkBackend* snr_dsim_new_ns3_network(const snr::dsim::Ns3NetworkConfig& config,
                                                               snr::dsim::EventLoop& loop);
