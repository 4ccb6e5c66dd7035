#include "export/perfetto_export.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

#include "common/error.h"
#include "formats/rundb/load.h"

namespace snr::exporter {
namespace {

using perfetto::Args;
using perfetto::TraceWriter;
using rundb::Statement;

int64_t ticks(uint64_t cycles) { return static_cast<int64_t>(cycles); }

std::string chip_process(int64_t chip) { return fmt::format("chip {}", chip); }

// The writer wants each (process, thread) track declared once.
class Tracks {
 public:
  explicit Tracks(TraceWriter& trace) : trace_(trace) {}
  perfetto::TrackId get(const std::string& process, const std::string& thread) {
    auto [it, inserted] = ids_.try_emplace({process, thread});
    if (inserted) it->second = trace_.add_track(process, thread);
    return it->second;
  }

 private:
  TraceWriter& trace_;
  std::map<std::pair<std::string, std::string>, perfetto::TrackId> ids_;
};

void add_op_slices(rundb::RunDbReader& run, TraceWriter& trace, Tracks& tracks) {
  // Consecutive instructions of one chip with the same op become one slice
  // spanning their stalls and issue cycles.
  Statement rows(run.db(),
                 "SELECT chip, op, mnemonic, issue_cycle, stall_cycles, stall_reason FROM instructions "
                 "ORDER BY chip, step");
  struct Open {
    int64_t chip = -1;
    std::string op;
    uint64_t start = 0, end = 0, count = 0;
  } open;
  auto close = [&] {
    if (open.chip < 0) return;
    const perfetto::TrackId track = tracks.get(chip_process(open.chip), "ops");
    trace.slice(track, ticks(open.start), ticks(open.end - open.start), open.op.empty() ? "(no op)" : open.op,
                Args().add("instructions", open.count));
  };
  while (rows.next()) {
    const int64_t chip = rows.integer(0);
    const std::string op = rows.text(1).empty() ? rows.text(2) : rows.text(1);
    const uint64_t issue = static_cast<uint64_t>(rows.integer(3));
    const uint64_t stall = static_cast<uint64_t>(rows.integer(4));
    if (stall > 0) {
      trace.slice(tracks.get(chip_process(chip), "stalls"), ticks(issue - stall), ticks(stall), rows.text(5),
                  Args().add("instruction", rows.text(2)));
    }
    if (chip != open.chip || op != open.op || issue - stall != open.end) {
      close();
      open = Open{chip, op, issue - stall, issue + 1, 0};
    }
    open.end = issue + 1;
    ++open.count;
  }
  close();
}

void add_unit_slices(rundb::RunDbReader& run, TraceWriter& trace, Tracks& tracks, uint64_t total_cycles, uint64_t bucket) {
  Statement rows(run.db(), "SELECT chip, unit, start_cycle, end_cycle, instructions FROM unit_busy "
                           "ORDER BY chip, unit, start_cycle");
  std::map<std::pair<int64_t, std::string>, std::vector<uint64_t>> busy_per_bucket;
  const size_t buckets = static_cast<size_t>(total_cycles / bucket + 1);
  while (rows.next()) {
    const int64_t chip = rows.integer(0);
    const std::string unit = rows.text(1);
    const uint64_t start = static_cast<uint64_t>(rows.integer(2)), end = static_cast<uint64_t>(rows.integer(3));
    trace.slice(tracks.get(chip_process(chip), "unit " + unit), ticks(start), ticks(end - start), unit,
                Args().add("instructions", static_cast<uint64_t>(rows.integer(4))));
    std::vector<uint64_t>& busy = busy_per_bucket[{chip, unit}];
    busy.resize(buckets, 0);
    for (uint64_t b = start / bucket; b < buckets && b * bucket < end; ++b) {
      const uint64_t lo = std::max(start, b * bucket), hi = std::min(end, (b + 1) * bucket);
      busy[b] += hi - lo;
    }
  }
  for (const auto& [key, busy] : busy_per_bucket) {
    const perfetto::CounterId counter =
        trace.add_counter(chip_process(key.first), fmt::format("{} utilization %", key.second));
    for (size_t b = 0; b < busy.size(); ++b) {
      trace.counter(counter, ticks(b * bucket), 100.0 * static_cast<double>(busy[b]) / static_cast<double>(bucket));
    }
  }
}

void add_dmas(rundb::RunDbReader& run, TraceWriter& trace, Tracks& tracks) {
  Statement rows(run.db(),
                 "SELECT dma_id, chip, link, bytes, issue_cycle, base_done_cycle, transfer_start_cycle, "
                 "transfer_end_cycle, wait_chip, wait_end_cycle, src_space, dst_space, dst_chip FROM dmas ORDER BY dma_id");
  while (rows.next()) {
    const uint64_t id = static_cast<uint64_t>(rows.integer(0));
    const int64_t chip = rows.integer(1);
    const uint64_t issue = static_cast<uint64_t>(rows.integer(4)), base_done = static_cast<uint64_t>(rows.integer(5));
    const uint64_t start = static_cast<uint64_t>(rows.integer(6)), end = static_cast<uint64_t>(rows.integer(7));
    const std::string name = fmt::format("dma {} {}->{}", id, rows.text(10), rows.text(11));
    Args args;
    args.add("bytes", static_cast<uint64_t>(rows.integer(3))).add("link", rows.text(2));
    args.add("base_latency_cycles", base_done - issue).add("transfer_cycles", end - start);
    const perfetto::TrackId issue_track = tracks.get(chip_process(chip), "dma");
    trace.slice(issue_track, ticks(issue), ticks(end - issue), name, args);
    trace.slice(tracks.get("DMA links", rows.text(2)), ticks(start), ticks(end - start), name,
                Args().add("dst_chip", rows.integer(12)));
    if (!rows.is_null(8)) {
      trace.flow(issue_track, ticks(issue), tracks.get(chip_process(rows.integer(8)), "ops"),
                 ticks(static_cast<uint64_t>(rows.integer(9))), fmt::format("dma {} wait", id));
    }
  }
}

void add_vmem_counter(rundb::RunDbReader& run, TraceWriter& trace) {
  // Pages in use: a page counts from its first write on.
  Statement rows(run.db(), "SELECT chip, first_page, last_page, first_cycle FROM vmem_runs WHERE is_write = 1 "
                           "ORDER BY chip, first_cycle, first_page");
  std::map<int64_t, std::map<uint64_t, uint64_t>> first_writes;  // chip -> cycle -> new pages
  std::set<std::pair<int64_t, int64_t>> seen;                     // (chip, page) written before
  while (rows.next()) {
    for (int64_t page = rows.integer(1); page <= rows.integer(2); ++page) {
      if (seen.insert({rows.integer(0), page}).second) ++first_writes[rows.integer(0)][static_cast<uint64_t>(rows.integer(3))];
    }
  }
  for (const auto& [chip, by_cycle] : first_writes) {
    const perfetto::CounterId counter = trace.add_counter(chip_process(chip), "VMEM pages written");
    uint64_t pages = 0;
    for (const auto& [cycle, count] : by_cycle) {
      pages += count;
      trace.counter(counter, ticks(cycle), static_cast<double>(pages));
    }
  }
}

}  // namespace

perfetto::TraceWriter build_timeline(rundb::RunDbReader& run, const TimelineOptions& options) {
  (void)rundb::check_run_db(run.path());  // its queries read the rows as they are
  const uint64_t clock_hz = run.meta_integer("clock_hz");
  const uint64_t total_cycles = run.meta_integer("total_cycles");
  const uint64_t bucket =
      options.utilization_bucket_cycles != 0 ? options.utilization_bucket_cycles : std::max<uint64_t>(1, total_cycles / 200);
  TraceWriter trace(perfetto::TimeBase::cycles(clock_hz), perfetto::OverlapPolicy::kSpreadToLanes);
  Tracks tracks(trace);
  add_op_slices(run, trace, tracks);
  add_unit_slices(run, trace, tracks, total_cycles, bucket);
  add_dmas(run, trace, tracks);
  add_vmem_counter(run, trace);
  return trace;
}

}  // namespace snr::exporter
