// A build with ns-3: the backend lives in the module libsnr_dsim_ns3.so
// (see ns3_backend.h), loaded here the first time an ns-3 network is built.
#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.h"
#include "dsim/network/ns3/ns3_backend.h"

// Weak: resolved only in a binary that links ns3_network.cc itself.
extern "C" [[gnu::weak]] snr::dsim::NetworkBackend* snr_dsim_new_ns3_network(
    const snr::dsim::Ns3NetworkConfig& config, snr::dsim::EventLoop& loop);

namespace snr::dsim {
namespace {

using NewNs3Network = NetworkBackend* (*)(const Ns3NetworkConfig&, EventLoop&);

// Where the module may be: beside the running executable (`snr` and the
// module are built into one folder), then the folder the build put it in
// (a copy of `snr` elsewhere still finds it there).
std::vector<std::filesystem::path> module_candidates() {
  std::vector<std::filesystem::path> candidates;
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) candidates.push_back(executable.parent_path() / kNs3ModuleFileName);
#ifdef SNR_NS3_MODULE_DIR
  candidates.push_back(std::filesystem::path(SNR_NS3_MODULE_DIR) / kNs3ModuleFileName);
#endif
  return candidates;
}

NewNs3Network load_module() {
  std::string failures;
  for (const std::filesystem::path& path : module_candidates()) {
    if (!std::filesystem::exists(path)) continue;
    // Never closed: the backend's code must outlive every network built.
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
      const char* why = dlerror();
      failures += fmt::format("; {}: {}", path.string(), why != nullptr ? why : "not loadable");
      continue;
    }
    if (void* entry = dlsym(module, "snr_dsim_new_ns3_network")) return reinterpret_cast<NewNs3Network>(entry);
    failures += fmt::format("; {}: no snr_dsim_new_ns3_network", path.string());
  }
  throw Error(fmt::format("network backend 'ns3': its module {} was not found or did not load (looked beside the "
                          "executable and in the build folder{}); rebuild snr",
                          kNs3ModuleFileName, failures));
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
