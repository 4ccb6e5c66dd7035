// The MPI side of the task farm. Only farm.cc calls these; they are
// implemented by mpi_module.cc, which forwards to the MPI module (below),
// or by mpi_absent.cc in a build without MPI.
//
// Why a module: linking Open MPI into `snr` makes every run of every command
// map and relocate libmpi, Open PAL/RTE, hwloc and libevent (3.7 M of the
// 21 M instructions `snr --version` took) for the few runs that are
// started by mpirun. mpi_farm.cc is built into libsnr_taskfarm_mpi.so,
// next to `snr`, and loaded when a Session finds an MPI launcher; it takes
// snr's own functions from the executable that loads it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "taskfarm/farm.h"

namespace snr::taskfarm::mpi {

World initialize();
void finalize();
void run_farm(const World& world, std::span<const uint64_t> ids, const Task& task, const Sink& sink);
std::string broadcast(const World& world, std::string text);

// What the module provides, through one C entry point.
struct Functions {
  World (*initialize)();
  void (*finalize)();
  void (*run_farm)(const World& world, std::span<const uint64_t> ids, const Task& task, const Sink& sink);
  std::string (*broadcast)(const World& world, std::string text);
};

// The module's file name.
inline constexpr const char* kModuleFileName = "libsnr_taskfarm_mpi.so";

}  // namespace snr::taskfarm::mpi

// The module's entry point (mpi_farm.cc), by a C name so that the loader
// finds it.
extern "C" const snr::taskfarm::mpi::Functions* snr_taskfarm_mpi_functions();
