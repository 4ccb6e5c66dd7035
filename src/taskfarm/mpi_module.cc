// A build with MPI: the farm's MPI side lives in the module
// libsnr_taskfarm_mpi.so (see mpi_world.h), loaded here the first time a
// Session finds an MPI launcher.
#include <mutex>
#include <string_view>

#include "common/module_loader.h"
#include "taskfarm/mpi_world.h"

namespace snr::taskfarm {

bool built_with_mpi() { return true; }

namespace mpi {
namespace {

const Functions& functions() {
  static std::once_flag loaded;
  static const Functions* table = nullptr;
  std::call_once(loaded, [] {
    using Entry = const Functions* (*)();
    const auto entry = reinterpret_cast<Entry>(load_module_entry(
        kModuleFileName, SNR_TASKFARM_MPI_MODULE_DIR, "snr_taskfarm_mpi_functions", "the MPI task farm",
        "rebuild snr, or run it without an MPI launcher"));
    table = entry();
  });
  return *table;
}

}  // namespace

World initialize() { return functions().initialize(); }
void finalize() { functions().finalize(); }
void run_farm(const World& world, std::span<const uint64_t> ids, const Task& task, const Sink& sink) {
  functions().run_farm(world, ids, task, sink);
}
std::string broadcast(const World& world, std::string text) { return functions().broadcast(world, std::move(text)); }

}  // namespace mpi
}  // namespace snr::taskfarm
