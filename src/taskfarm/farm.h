// Independent tasks spread over the ranks of an MPI job with dynamic load
// balancing, or run in this process when there is no job. `snr sweep` and
// `snr pathfind search` hand it task ids; rank 0 receives every result, in
// completion order, and is the only rank that writes anything.
//
//   snr::taskfarm::Session session;            // MPI_Init when under mpirun
//   std::vector<uint64_t> ids = ...;           // significant on rank 0 only
//   snr::taskfarm::run(session, ids,
//       [&](uint64_t id) { return run_point(id); },         // any rank
//       [&](uint64_t id, std::string result) { store(id, result); });  // rank 0
//
// How the work moves (guided self-scheduling): rank 0 hands out chunks of
// remaining / (2 * ranks) ids, at least one, so that the first chunks are
// big (few messages) and the last ones single (a rank that finishes early
// takes more, nobody waits on one long tail chunk). Rank 0 computes too, on
// a second thread, while its main thread answers the other ranks; only the
// main thread calls MPI (MPI_THREAD_FUNNELED).
//
// A task that throws stops the farm: every rank stops taking work and rank
// 0 throws snr::Error naming the rank, the task id and the message. Tasks
// that can fail per point (a sweep records the error in its row) catch
// their own errors and return them as their result.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace snr::taskfarm {

struct World {
  int rank = 0;
  int size = 1;
  bool mpi = false;  // MPI was initialized by this session
};

// Initializes MPI when this snr was built with MPI and was started by an MPI
// launcher (mpirun / mpiexec); otherwise a world of one rank. Started by a
// launcher with several ranks in a build without MPI, it throws snr::Error
// saying how to enable MPI (every rank would otherwise run all the work).
// One per process; finalizes MPI when destroyed.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  [[nodiscard]] const World& world() const { return world_; }
  [[nodiscard]] bool is_writer() const { return world_.rank == 0; }

 private:
  World world_;
};

using Task = std::function<std::string(uint64_t id)>;
using Sink = std::function<void(uint64_t id, std::string result)>;

// Runs `task` once for every id of rank 0's `ids` on some rank and calls
// `sink` on rank 0's calling thread with each result. Other ranks pass any
// `ids` (ignored) and a `sink` that is never called. Returns when every
// task has finished on every rank.
void run(const Session& session, std::span<const uint64_t> ids, const Task& task, const Sink& sink);

// Rank 0's `text` on every rank (inputs rank 0 alone read, e.g. which
// points a resumed sweep still needs).
std::string broadcast(const Session& session, std::string text);

// Whether this binary was built with MPI, and what to do when it was not.
bool built_with_mpi();
std::string how_to_enable_mpi();

// The chunk rank 0 hands out when `remaining` ids are left among `ranks`.
uint64_t guided_chunk(uint64_t remaining, int ranks);

}  // namespace snr::taskfarm
