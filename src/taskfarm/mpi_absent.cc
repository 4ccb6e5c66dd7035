// A build without MPI: the session never initializes it, so these are
// unreachable; they say so instead of linking against a missing library.
#include "common/error.h"
#include "taskfarm/mpi_world.h"

namespace snr::taskfarm {

bool built_with_mpi() { return false; }

namespace mpi {

World initialize() { throw Error(how_to_enable_mpi()); }
void finalize() {}
void run_farm(const World&, std::span<const uint64_t>, const Task&, const Sink&) { throw Error(how_to_enable_mpi()); }
std::string broadcast(const World&, std::string) { throw Error(how_to_enable_mpi()); }

}  // namespace mpi
}  // namespace snr::taskfarm
