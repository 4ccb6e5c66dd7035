// The job's timeline with its critical path highlighted, as Chrome-trace
// JSON for Perfetto: per rank the host, compute and communication tracks
// of every node, plus a "critical path" track holding the path's segments
// there (named by category and node), and arrows where the path moves to
// another rank.
#pragma once

#include <filesystem>

#include "et/critical_path/critical_path.h"

namespace snr::et::critical_path {

void write_critical_path_timeline(const TimedJob& job, const CriticalPath& path, const std::filesystem::path& file);

}  // namespace snr::et::critical_path
