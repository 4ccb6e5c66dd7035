// The task farm on MPI, built into the module libsnr_taskfarm_mpi.so (see
// mpi_world.h): rank 0's main thread serves chunks of ids and receives
// results, rank 0's worker thread and every other rank compute.
// Messages (bytes): a worker sends kRequest carrying the results of its
// previous chunk (none the first time) and gets kWork with the next ids, an
// empty kWork meaning "stop"; a task that throws is reported with kFailure.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "common/error.h"
#include "taskfarm/mpi_world.h"

namespace snr::taskfarm::mpi {
namespace {

constexpr int kRequest = 1;
constexpr int kWork = 2;
constexpr int kFailure = 3;

// Every wait here polls and sleeps instead of calling a blocking MPI
// function: Open MPI's blocking calls spin at full speed, and with as many
// ranks as cores (rank 0 also runs a worker thread) a spinning rank takes
// the core a computing thread needs. The sleep grows while nothing arrives,
// so a short wait answers fast and a long one costs next to nothing.
class Backoff {
 public:
  void wait() {
    std::this_thread::sleep_for(sleep_);
    sleep_ = std::min(sleep_ * 2, kLongest);
  }
  void reset() { sleep_ = kShortest; }

 private:
  static constexpr std::chrono::microseconds kShortest{10};
  static constexpr std::chrono::microseconds kLongest{1000};
  std::chrono::microseconds sleep_ = kShortest;
};

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw Error(fmt::format("{}: {}", call, std::string(text, static_cast<size_t>(length))));
  }
}

void put_u64(std::string& out, uint64_t value) { out.append(reinterpret_cast<const char*>(&value), sizeof value); }

uint64_t get_u64(std::string_view in, size_t& at) {
  if (at + sizeof(uint64_t) > in.size()) throw Error("task farm: truncated message");
  uint64_t value = 0;
  std::memcpy(&value, in.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

struct Result {
  uint64_t id = 0;
  std::string text;
};

std::string encode_results(const std::vector<Result>& results) {
  std::string out;
  for (const Result& result : results) {
    put_u64(out, result.id);
    put_u64(out, result.text.size());
    out += result.text;
  }
  return out;
}

std::vector<Result> decode_results(std::string_view in) {
  std::vector<Result> results;
  size_t at = 0;
  while (at < in.size()) {
    Result result;
    result.id = get_u64(in, at);
    const uint64_t length = get_u64(in, at);
    if (length > in.size() - at) throw Error("task farm: truncated result");
    result.text.assign(in.substr(at, length));
    at += length;
    results.push_back(std::move(result));
  }
  return results;
}

void complete(MPI_Request& request, const char* call) {
  Backoff backoff;
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
    if (done != 0) return;
    backoff.wait();
  }
}

std::string receive(MPI_Comm comm, int source, int tag, MPI_Status& status) {
  Backoff backoff;
  for (;;) {
    int arrived = 0;
    check(MPI_Iprobe(source, tag, comm, &arrived, &status), "MPI_Iprobe");
    if (arrived != 0) break;
    backoff.wait();
  }
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  std::string bytes(static_cast<size_t>(count), '\0');
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return bytes;
}

void send(MPI_Comm comm, int destination, int tag, std::string_view bytes) {
  check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, destination, tag, comm),
        "MPI_Send");
}

// The ids not yet handed out, shared by rank 0's two threads.
class Dispenser {
 public:
  Dispenser(std::span<const uint64_t> ids, int ranks) : ids_(ids), ranks_(ranks) {}

  std::vector<uint64_t> take() {
    std::lock_guard lock(mutex_);
    if (stopped_) return {};
    const uint64_t chunk = guided_chunk(ids_.size() - next_, ranks_);
    std::vector<uint64_t> out(ids_.begin() + static_cast<std::ptrdiff_t>(next_),
                              ids_.begin() + static_cast<std::ptrdiff_t>(next_ + chunk));
    next_ += chunk;
    return out;
  }
  void stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }

 private:
  std::mutex mutex_;
  std::span<const uint64_t> ids_;
  size_t next_ = 0;
  int ranks_;
  bool stopped_ = false;
};

// Results rank 0's worker thread produced, waiting for the main thread.
struct LocalResults {
  std::mutex mutex;
  std::deque<Result> ready;
  bool done = false;
  std::optional<std::string> failure;
};

void run_coordinator(MPI_Comm comm, const World& world, std::span<const uint64_t> ids, const Task& task, const Sink& sink) {
  Dispenser dispenser(ids, world.size);
  LocalResults local;
  std::thread worker([&] {
    try {
      for (auto chunk = dispenser.take(); !chunk.empty(); chunk = dispenser.take()) {
        for (const uint64_t id : chunk) {
          std::string text;
          try {
            text = task(id);
          } catch (const std::exception& e) {
            throw Error(fmt::format("rank 0, task {}: {}", id, e.what()));
          }
          std::lock_guard lock(local.mutex);
          local.ready.push_back({id, std::move(text)});
        }
      }
    } catch (const std::exception& e) {
      dispenser.stop();
      std::lock_guard lock(local.mutex);
      local.failure = e.what();
    }
    std::lock_guard lock(local.mutex);
    local.done = true;
  });

  std::optional<std::string> failure;
  auto fail = [&](std::string message) {
    dispenser.stop();
    if (!failure) failure = std::move(message);
  };
  auto deliver = [&](std::vector<Result> results) {
    for (Result& result : results) {
      if (failure) return;  // after a failure nothing more is stored
      try {
        sink(result.id, std::move(result.text));
      } catch (const std::exception& e) {
        fail(e.what());
      }
    }
  };

  int workers_running = world.size - 1;
  bool local_done = false;
  Backoff backoff;
  while (workers_running > 0 || !local_done) {
    bool busy = false;
    int arrived = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &arrived, &status), "MPI_Iprobe");
    if (arrived != 0) {
      busy = true;
      const std::string bytes = receive(comm, status.MPI_SOURCE, status.MPI_TAG, status);
      if (status.MPI_TAG == kFailure) {
        fail(bytes);
        --workers_running;
      } else {
        // The worker gets its next chunk before rank 0 stores what it sent:
        // storing (a database write) must not leave a rank idle.
        const std::vector<uint64_t> chunk = dispenser.take();
        std::string work;
        for (const uint64_t id : chunk) put_u64(work, id);
        send(comm, status.MPI_SOURCE, kWork, work);
        if (chunk.empty()) --workers_running;
        try {
          deliver(decode_results(bytes));
        } catch (const std::exception& e) {
          fail(e.what());
        }
      }
    }
    std::deque<Result> ready;
    {
      std::lock_guard lock(local.mutex);
      ready.swap(local.ready);
      if (local.failure) fail(*local.failure);
      local_done = local.done;
    }
    // Rank 0's own results wait for the next wake-up without shortening the
    // sleep: waking every few microseconds for them would take the core from
    // the computing threads (thousands of context switches per second).
    if (!ready.empty()) {
      deliver(std::vector<Result>(std::make_move_iterator(ready.begin()), std::make_move_iterator(ready.end())));
    }
    if (busy) {
      backoff.reset();
    } else if (workers_running > 0 || !local_done) {
      backoff.wait();
    }
  }
  worker.join();
  {
    std::lock_guard lock(local.mutex);
    if (!local.ready.empty()) {
      deliver(std::vector<Result>(std::make_move_iterator(local.ready.begin()),
                                  std::make_move_iterator(local.ready.end())));
    }
  }
  if (failure) throw Error(*failure);
}

void run_worker(MPI_Comm comm, const World& world, const Task& task) {
  std::vector<Result> done;
  for (;;) {
    send(comm, 0, kRequest, encode_results(done));
    done.clear();
    MPI_Status status;
    const std::string work = receive(comm, 0, kWork, status);
    if (work.empty()) return;
    size_t at = 0;
    while (at < work.size()) {
      const uint64_t id = get_u64(work, at);
      try {
        done.push_back({id, task(id)});
      } catch (const std::exception& e) {
        send(comm, 0, kFailure, fmt::format("rank {}, task {}: {}", world.rank, id, e.what()));
        return;
      }
    }
  }
}

World start_world() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  World world;
  world.mpi = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &world.rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &world.size), "MPI_Comm_size");
  if (provided < MPI_THREAD_FUNNELED && world.size > 1) {
    MPI_Finalize();
    throw Error("the MPI library cannot run rank 0's worker thread beside its coordinator (needs "
                "MPI_THREAD_FUNNELED)");
  }
  return world;
}

void stop_world() {
  // A rank that finished early waits here for the others; the barrier keeps
  // it asleep rather than spinning inside MPI_Finalize.
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &request) == MPI_SUCCESS) {
    try {
      complete(request, "MPI_Ibarrier");
    } catch (const std::exception&) {
      // Finalizing anyway: the error that matters was already reported.
    }
  }
  MPI_Finalize();
}

void farm(const World& world, std::span<const uint64_t> ids, const Task& task, const Sink& sink) {
  // A communicator per run: a rank that has finished one run and already
  // asks for work in the next must not be answered by the previous run's
  // coordinator, which may still be draining its own thread's results.
  MPI_Comm comm = MPI_COMM_NULL;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  struct Free {
    MPI_Comm& comm;
    ~Free() { MPI_Comm_free(&comm); }
  } free_comm{comm};
  if (world.rank == 0) {
    run_coordinator(comm, world, ids, task, sink);
  } else {
    run_worker(comm, world, task);
  }
}

std::string broadcast_text(const World& world, std::string text) {
  uint64_t size = world.rank == 0 ? text.size() : 0;
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast");
  complete(request, "MPI_Ibcast");
  text.resize(size);
  check(MPI_Ibcast(text.data(), static_cast<int>(size), MPI_BYTE, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast");
  complete(request, "MPI_Ibcast");
  return text;
}

constexpr Functions kFunctions{&start_world, &stop_world, &farm, &broadcast_text};

}  // namespace
}  // namespace snr::taskfarm::mpi

extern "C" [[gnu::visibility("default")]] const snr::taskfarm::mpi::Functions* snr_taskfarm_mpi_functions() {
  return &snr::taskfarm::mpi::kFunctions;
}
