#include "et/critical_path/timeline.h"

#include <fmt/format.h>

#include <array>

#include "formats/perfetto/trace_writer.h"

namespace snr::et::critical_path {

void write_critical_path_timeline(const TimedJob& job, const CriticalPath& path, const std::filesystem::path& file) {
  namespace pf = snr::perfetto;
  pf::TraceWriter writer(pf::TimeBase::nanoseconds(), pf::OverlapPolicy::kSpreadToLanes);
  std::vector<pf::TrackId> path_tracks;
  path_tracks.reserve(job.ranks.size());
  for (size_t r = 0; r < job.ranks.size(); ++r) {
    const std::string process = fmt::format("rank {}", r);
    // The path's track first, so it sits on top of its rank.
    path_tracks.push_back(writer.add_track(process, "critical path"));
    const std::array<pf::TrackId, 3> tracks{writer.add_track(process, "compute"),
                                            writer.add_track(process, "communication"),
                                            writer.add_track(process, "host")};
    for (const TimedNode& n : job.ranks[r].nodes) {
      if (n.instant || n.category == Category::kIdle) continue;
      pf::Args args;
      args.add("node_id", n.id);
      writer.slice(tracks[static_cast<size_t>(n.category)], n.start_ns - path.origin_ns, n.end_ns - n.start_ns,
                   n.name.empty() ? fmt::format("node {}", n.id) : n.name, std::move(args), category_name(n.category));
    }
  }
  for (size_t k = 0; k < path.segments.size(); ++k) {
    const PathSegment& s = path.segments[k];
    std::string name = category_name(s.category);
    pf::Args args;
    args.add("category", category_name(s.category));
    if (s.node >= 0) {
      const TimedNode& n = job.ranks[s.rank].nodes[static_cast<size_t>(s.node)];
      name = fmt::format("{}: {}", name, n.name.empty() ? fmt::format("node {}", n.id) : n.name);
      args.add("node_id", n.id);
    }
    writer.slice(path_tracks[s.rank], s.start_ns - path.origin_ns, s.end_ns - s.start_ns, name, std::move(args),
                 "critical_path");
    if (k > 0 && path.segments[k - 1].rank != s.rank) {
      const PathSegment& before = path.segments[k - 1];
      // From inside the earlier segment (the flow binds to its enclosing slice).
      const int64_t from = before.end_ns - path.origin_ns - (before.end_ns > before.start_ns ? 1 : 0);
      (void)writer.flow(path_tracks[before.rank], from, path_tracks[s.rank], s.start_ns - path.origin_ns,
                        "critical path");
    }
  }
  writer.write_file(file);
}

}  // namespace snr::et::critical_path
