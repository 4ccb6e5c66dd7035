#include "cli/collective_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/collective_report.h"
#include "common/error.h"
#include "common/file_io.h"
#include "formats/perfetto/trace_writer.h"

namespace snr::cli {

namespace gpu = dsim::gpu;
namespace ls = dsim::loadstore;
namespace noc = dsim::noc;
namespace pf = snr::perfetto;

uint32_t cus_per_trace_track(uint32_t compute_units, uint32_t max_tracks) {
  if (max_tracks == 0 || compute_units <= max_tracks) return 1;
  return (compute_units + max_tracks - 1) / max_tracks;
}

namespace {

std::string group_name(uint32_t group, uint32_t per_track, uint32_t compute_units) {
  const uint32_t first = group * per_track;
  const uint32_t last = std::min(compute_units, first + per_track) - 1;
  return first == last ? fmt::format("CU {}", first) : fmt::format("CUs {}-{}", first, last);
}

// Counter tracks of the NoC links: per link kind with links, per bin its
// links' mean busy fraction, the GB/s that started crossing them and the
// mean number of messages waiting before them; a last sample of 0 at the
// run's end closes each track.
void add_link_counters(pf::TraceWriter& writer, const noc::NocStats& links, noc::LinkTimeline timeline,
                       gpu::TimePs end_ps, CollectiveTraceSummary& summary) {
  timeline.cover(end_ps);
  const gpu::TimePs width = timeline.bin_width_ps();
  summary.link_bin_ps = width;
  const uint32_t bins = timeline.bins_used();
  for (int k = 0; k < noc::LinkTimeline::kKinds; ++k) {
    const uint64_t link_count = links.kinds[k].links;
    if (link_count == 0) continue;
    const std::string kind = noc::to_string(static_cast<noc::LinkKind>(k));
    const pf::CounterId busy = writer.add_counter("NoC links", kind + " links busy (fraction)");
    const pf::CounterId rate = writer.add_counter("NoC links", kind + " links GB/s");
    const pf::CounterId waiting = writer.add_counter("NoC links", kind + " messages waiting");
    summary.counter_tracks += 3;
    const std::vector<gpu::TimePs> queued = timeline.queued_ps(k);
    for (uint32_t b = 0; b < bins && b * width < end_ps; ++b) {
      const gpu::TimePs start = b * width;
      const gpu::TimePs span = std::min(width, end_ps - start);  // the last bin ends with the run
      const noc::LinkTimeline::Bin& bin = timeline.bin(b, k);
      const double span_d = static_cast<double>(span);
      writer.counter(busy, static_cast<int64_t>(start),
                     static_cast<double>(bin.busy_ps) / (static_cast<double>(link_count) * span_d));
      writer.counter(rate, static_cast<int64_t>(start), static_cast<double>(bin.bytes) * 1000.0 / span_d);
      writer.counter(waiting, static_cast<int64_t>(start), static_cast<double>(queued[b]) / span_d);
    }
    for (const pf::CounterId id : {busy, rate, waiting}) writer.counter(id, static_cast<int64_t>(end_ps), 0.0);
  }
}

}  // namespace

CollectiveTraceSummary write_collective_trace(const std::filesystem::path& path, const ls::Program& program,
                                              const gpu::RunStats& stats, uint32_t compute_units,
                                              const noc::NocStats* links, const noc::LinkTimeline* timeline,
                                              const CollectiveTraceOptions& options) {
  CollectiveTraceSummary summary;
  // Workgroups of one CU group overlap (several CUs, several resident
  // workgroups per CU): the writer spreads them onto sibling lanes.
  pf::TraceWriter writer(pf::TimeBase::picoseconds(), pf::OverlapPolicy::kSpreadToLanes);
  const uint32_t gpus = program.gpu_count();
  const uint32_t per_track = cus_per_trace_track(compute_units, options.max_cu_tracks);
  const uint32_t groups = compute_units == 0 ? 0 : (compute_units + per_track - 1) / per_track;
  summary.cus_per_track = per_track;

  // Which kernel each workgroup belongs to, and its index there (its name).
  std::vector<uint32_t> kernel_of(program.workgroups.size(), ls::kNone);
  std::vector<uint32_t> index_in_kernel(program.workgroups.size(), 0);
  for (uint32_t k = 0; k < program.kernels.size(); ++k) {
    const ls::Kernel& kernel = program.kernels[k];
    for (uint32_t i = 0; i < kernel.workgroup_count && kernel.first_workgroup + i < kernel_of.size(); ++i) {
      kernel_of[kernel.first_workgroup + i] = k;
      index_in_kernel[kernel.first_workgroup + i] = i;
    }
  }
  const auto placed = [&](uint32_t w) { return w < stats.workgroup_cu.size() && stats.workgroup_cu[w] < compute_units; };

  // Tracks in display order: per GPU its kernels, then its CU groups that
  // ran something.
  std::vector<pf::TrackId> kernel_tracks(gpus);
  std::vector<std::vector<uint8_t>> group_used(gpus, std::vector<uint8_t>(groups, 0));
  for (uint32_t w = 0; w < program.workgroups.size(); ++w) {
    const uint32_t g = program.workgroups[w].gpu;
    if (g < gpus && placed(w)) group_used[g][stats.workgroup_cu[w] / per_track] = 1;
  }
  std::vector<std::vector<pf::TrackId>> group_tracks(gpus, std::vector<pf::TrackId>(groups));
  for (uint32_t g = 0; g < gpus; ++g) {
    const std::string process = fmt::format("GPU {}", g);
    kernel_tracks[g] = writer.add_track(process, "kernels");
    for (uint32_t group = 0; group < groups; ++group) {
      if (group_used[g][group]) group_tracks[g][group] = writer.add_track(process, group_name(group, per_track, compute_units));
    }
  }

  const std::vector<KernelTiming> kernels = kernel_timings(program, stats, 1.0);
  for (const KernelTiming& k : kernels) {
    if (k.workgroups == 0 || k.gpu >= gpus) continue;
    writer.slice(kernel_tracks[k.gpu], static_cast<int64_t>(k.start_ps), static_cast<int64_t>(k.time_ps()), k.name,
                 pf::Args().add("kernel", uint64_t{k.kernel}).add("workgroups", uint64_t{k.workgroups})
                     .add("stored_bytes", k.stored_bytes),
                 "kernel");
  }

  // Each GPU keeps its first workgroups in Program order up to an even
  // share of the cap, so every GPU stays visible in a capped trace.
  const size_t per_gpu_cap = gpus == 0 ? 0 : std::max<size_t>(1, options.max_workgroup_slices / gpus);
  std::vector<size_t> written(gpus, 0);
  size_t placed_workgroups = 0;
  for (uint32_t w = 0; w < program.workgroups.size(); ++w) {
    const ls::Workgroup& wg = program.workgroups[w];
    if (wg.gpu >= gpus || !placed(w)) continue;
    ++placed_workgroups;
    if (written[wg.gpu] >= per_gpu_cap) {
      ++summary.workgroups_left_out;
      continue;
    }
    ++written[wg.gpu];
    const uint32_t cu = stats.workgroup_cu[w];
    const uint32_t k = kernel_of[w];
    const std::string name = k == ls::kNone ? fmt::format("wg {}", w)
                                            : fmt::format("{} wg {}", kernels[k].name, index_in_kernel[w]);
    writer.slice(group_tracks[wg.gpu][cu / per_track], static_cast<int64_t>(stats.workgroup_start_ps[w]),
                 static_cast<int64_t>(stats.workgroup_end_ps[w] - stats.workgroup_start_ps[w]), name,
                 pf::Args()
                     .add("cu", uint64_t{cu})
                     .add("workgroup", uint64_t{w})
                     .add("kernel", k == ls::kNone ? int64_t{-1} : int64_t{k})
                     .add("ops", uint64_t{wg.op_count})
                     .add("wavefronts", uint64_t{wg.wavefronts}),
                 "workgroup");
    ++summary.workgroup_slices;
  }
  if (summary.workgroups_left_out > 0) {
    // Said in the timeline itself as well as in otherData: a reader of the
    // UI sees that slices are missing.
    const pf::TrackId notes = writer.add_track("Trace notes", "capped");
    writer.instant(notes, 0,
                   fmt::format("{} of {} workgroups left out (cap {} slices)", summary.workgroups_left_out,
                               placed_workgroups, options.max_workgroup_slices),
                   pf::Args()
                       .add("workgroups", uint64_t{placed_workgroups})
                       .add("workgroup_slices", uint64_t{summary.workgroup_slices})
                       .add("workgroups_left_out", uint64_t{summary.workgroups_left_out}));
  }
  if (links != nullptr && timeline != nullptr && stats.end_ps > 0) {
    add_link_counters(writer, *links, *timeline, stats.end_ps, summary);
  }

  std::string text = with_error_context(fmt::format("writing timeline {}", path.string()), [&] { return writer.render(); });
  // The writer ends the object with `}\n`; the run's description goes
  // beside traceEvents as the format's `otherData`.
  nlohmann::json other = {{"generator", "snr collective"},
                          {"gpus", gpus},
                          {"compute_units", compute_units},
                          {"cus_per_track", per_track},
                          {"time_ns", static_cast<double>(stats.end_ps) / 1000.0},
                          {"workgroups", placed_workgroups},
                          {"workgroup_slices", summary.workgroup_slices},
                          {"workgroups_left_out", summary.workgroups_left_out},
                          {"max_workgroup_slices", options.max_workgroup_slices},
                          {"counter_tracks", summary.counter_tracks}};
  if (summary.link_bin_ps > 0) other["link_bin_ns"] = static_cast<double>(summary.link_bin_ps) / 1000.0;
  if (text.size() < 2 || text.compare(text.size() - 2, 2, "}\n") != 0) {
    throw Error(fmt::format("writing timeline {}: the trace writer's output does not end its object", path.string()));
  }
  text.resize(text.size() - 2);
  text += ",\"otherData\":" + other.dump() + "}\n";
  with_error_context(fmt::format("writing timeline {}", path.string()), [&] { write_file_atomic(path, text); });
  return summary;
}

}  // namespace snr::cli
