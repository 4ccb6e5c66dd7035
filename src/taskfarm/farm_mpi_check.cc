// Run by ctest under `mpirun -np N`: every rank joins the farm; rank 0
// checks that each task ran exactly once, that the ranks other than 0 did
// take work (the load balancing), and that a task that throws on some rank
// reaches rank 0 as an error naming it. Exit 0 when all holds.
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/error.h"
#include "taskfarm/farm.h"

namespace {

int check_all_tasks_once(const snr::taskfarm::Session& session) {
  const int rank = session.world().rank;
  std::vector<uint64_t> ids(400);
  std::iota(ids.begin(), ids.end(), 1000);
  std::map<uint64_t, std::string> results;
  std::set<int> ranks_seen;
  snr::taskfarm::run(
      session, ids,
      [rank](uint64_t id) {
        // Long enough that every rank gets to take work.
        std::this_thread::sleep_for(std::chrono::microseconds(500));
        return fmt::format("{}:{}", id * 3, rank);
      },
      [&](uint64_t id, const std::string& result) {
        const std::string_view text(result);
        const size_t colon = text.find(':');
        int from_rank = -1;
        std::from_chars(text.data() + colon + 1, text.data() + text.size(), from_rank);
        ranks_seen.insert(from_rank);
        if (!results.try_emplace(id, text.substr(0, colon)).second) throw snr::Error(fmt::format("id {} twice", id));
      });
  if (!session.is_writer()) return 0;
  if (results.size() != ids.size()) return fmt::print(stderr, "{} results of {}\n", results.size(), ids.size()), 1;
  for (const uint64_t id : ids) {
    if (results.at(id) != std::to_string(id * 3)) return fmt::print(stderr, "wrong result for {}\n", id), 1;
  }
  if (static_cast<int>(ranks_seen.size()) != session.world().size) {
    return fmt::print(stderr, "only {} of {} ranks computed\n", ranks_seen.size(), session.world().size), 1;
  }
  return 0;
}

int check_failure_reaches_rank0(const snr::taskfarm::Session& session) {
  const int rank = session.world().rank;
  std::vector<uint64_t> ids(64);
  std::iota(ids.begin(), ids.end(), 0);
  try {
    snr::taskfarm::run(
        session, ids,
        [rank](uint64_t id) -> std::string {
          // Rank 0 slow enough that it cannot finish alone before rank 1 asks.
          std::this_thread::sleep_for(std::chrono::microseconds(rank == 0 ? 2000 : 200));
          if (rank == 1) throw std::runtime_error(fmt::format("point {} is bad", id));
          return "ok";
        },
        [](uint64_t, std::string) {});
  } catch (const snr::Error& e) {
    if (!session.is_writer()) return 1;
    if (std::string(e.what()).find("rank 1, task ") == std::string::npos) {
      return fmt::print(stderr, "unexpected error text: {}\n", e.what()), 1;
    }
    return 0;
  }
  if (session.is_writer()) return fmt::print(stderr, "rank 1's failure did not reach rank 0\n"), 1;
  return 0;
}

}  // namespace

int main() {
  try {
    snr::taskfarm::Session session;
    if (!session.world().mpi || session.world().size < 2) {
      fmt::print(stderr, "run me under mpirun -np 2 or more\n");
      return 1;
    }
    std::string sent;
    if (session.is_writer()) sent = "from rank 0";
    const std::string received = snr::taskfarm::broadcast(session, std::move(sent));
    const int broadcast_ok = received == "from rank 0" ? 0 : 1;
    const int all_once = check_all_tasks_once(session);
    const int failure = check_failure_reaches_rank0(session);
    if (session.is_writer()) fmt::print("broadcast {} all-once {} failure {}\n", broadcast_ok, all_once, failure);
    return broadcast_ok + all_once + failure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
