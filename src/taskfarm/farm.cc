#include "taskfarm/farm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <exception>

#include "common/error.h"
#include "taskfarm/mpi_world.h"

namespace snr::taskfarm {
namespace {

// The size an MPI launcher announces to the processes it starts (Open MPI,
// MPICH/Hydra and srun with PMI); 1 when it announces none.
int launcher_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name); value != nullptr) {
      const int size = std::atoi(value);
      if (size > 0) return size;
    }
  }
  return 1;
}

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

void run_here(std::span<const uint64_t> ids, const Task& task, const Sink& sink) {
  for (const uint64_t id : ids) {
    std::string result;
    try {
      result = task(id);
    } catch (const std::exception& e) {
      throw Error(fmt::format("task {}: {}", id, e.what()));
    }
    sink(id, std::move(result));
  }
}

}  // namespace

Session::Session() {
  if (!launched_by_mpi()) return;
  if (!built_with_mpi()) {
    if (launcher_world_size() > 1) {
      throw Error(fmt::format("started by an MPI launcher with {} ranks, but this snr was built without MPI: every "
                              "rank would run all the work. {}",
                              launcher_world_size(), how_to_enable_mpi()));
    }
    return;
  }
  world_ = mpi::initialize();
}

Session::~Session() {
  if (world_.mpi) mpi::finalize();
}

void run(const Session& session, std::span<const uint64_t> ids, const Task& task, const Sink& sink) {
  if (!session.world().mpi || session.world().size == 1) {
    run_here(ids, task, sink);
    return;
  }
  mpi::run_farm(session.world(), ids, task, sink);
}

std::string broadcast(const Session& session, std::string text) {
  if (!session.world().mpi || session.world().size == 1) return text;
  return mpi::broadcast(session.world(), std::move(text));
}

uint64_t guided_chunk(uint64_t remaining, int ranks) {
  if (remaining == 0) return 0;
  const uint64_t share = remaining / (2 * static_cast<uint64_t>(std::max(ranks, 1)));
  return std::clamp<uint64_t>(share, 1, remaining);
}

std::string how_to_enable_mpi() {
  return "To run on MPI, install Open MPI (`sudo apt-get install libopenmpi-dev openmpi-bin`, which "
         "scripts/setup.sh does) and rebuild (scripts/build.sh); CMake then finds it and `snr version` lists "
         "\"mpi\".";
}

}  // namespace snr::taskfarm
