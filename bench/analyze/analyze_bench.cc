// Times the analyzer on one run.db: loading it into RunData, analyze(),
// and write_tables(), each as CPU time (user + sys) of this process, so the
// figure does not depend on machine load. Usage: analyze_bench RUN_DB [OUT_DIR]
#include <cstdio>
#include <fmt/format.h>
#include <sys/resource.h>

#include "analyze/analyze.h"
#include "common/error.h"
#include "formats/rundb/load.h"

namespace {

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: analyze_bench RUN_DB [OUT_DIR]\n");
    return 2;
  }
  try {
    const double t0 = cpu_seconds();
    const snr::rundb::RunData data = snr::rundb::load_run_data(argv[1]);
    const double t1 = cpu_seconds();
    const snr::analyze::Analysis analysis = snr::analyze::analyze(data, {});
    const double t2 = cpu_seconds();
    double t3 = t2;
    if (argc > 2) {
      snr::analyze::write_tables(analysis, argv[2]);
      t3 = cpu_seconds();
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    fmt::print("run data: {} instructions, {} DMAs, {} dependency edges, {} VMEM runs, {} chips\n",
               data.instructions.size(), data.dmas.size(), data.dependencies.size(), data.vmem_runs.size(),
               data.chips.size());
    fmt::print("analysis: {} DMA rows, {} chains, {} relaxed DMA edges, {} suggestions\n", analysis.dmas.size(),
               analysis.chains.size(), analysis.dma_dependencies.size(), analysis.suggestions.size());
    fmt::print("cpu seconds: load {:.2f}, analyze {:.2f}, write tables {:.2f}; peak RSS {} MiB\n", t1 - t0, t2 - t1,
               t3 - t2, usage.ru_maxrss / 1024);
  } catch (const snr::Error& e) {
    std::fprintf(stderr, "analyze_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
