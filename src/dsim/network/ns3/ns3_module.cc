// A build with ns-3: the backend lives in the module libsnr_dsim_ns3.so
// (see ns3_backend.h), loaded here the first time an ns-3 network is built.
#include <mutex>
#include <string>
#include <string_view>

#include "common/module_loader.h"
#include "dsim/network/ns3/ns3_backend.h"

// Weak: resolved only in a binary that links ns3_network.cc itself.
extern "C" [[gnu::weak]] snr::dsim::NetworkBackend* snr_dsim_new_ns3_network(
    const snr::dsim::Ns3NetworkConfig& config, snr::dsim::EventLoop& loop);

namespace snr::dsim {
namespace {

using NewNs3Network = NetworkBackend* (*)(const Ns3NetworkConfig&, EventLoop&);

NewNs3Network load_module() {
#ifdef SNR_NS3_MODULE_DIR
  constexpr std::string_view kBuildDir = SNR_NS3_MODULE_DIR;
#else
  constexpr std::string_view kBuildDir;
#endif
  return reinterpret_cast<NewNs3Network>(load_module_entry(kNs3ModuleFileName, kBuildDir, "snr_dsim_new_ns3_network",
                                                           "network backend 'ns3'", "rebuild snr"));
}

}  // namespace

bool ns3_available() { return true; }
std::string ns3_how_to_enable() { return "built with ns-3"; }

std::unique_ptr<NetworkBackend> make_ns3_network(const Ns3NetworkConfig& config, EventLoop& loop) {
  static std::mutex mutex;
  static NewNs3Network new_network = nullptr;
  {
    std::lock_guard lock(mutex);
    if (new_network == nullptr) new_network = snr_dsim_new_ns3_network != nullptr ? &snr_dsim_new_ns3_network
                                                                                   : load_module();
  }
  return std::unique_ptr<NetworkBackend>(new_network(config, loop));
}

}  // namespace snr::dsim
