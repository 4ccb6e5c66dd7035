// The MPI side of the task farm (mpi_farm.cc, compiled only when CMake found
// MPI; mpi_absent.cc otherwise). Only farm.cc calls these.
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

}  // namespace snr::taskfarm::mpi
