// The critical path as people read it (text) and as tools read it (JSON),
// with an optional what-if: the same job re-simulated with compute or
// communication scaled.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "et/critical_path/critical_path.h"

namespace snr::et::critical_path {

struct WhatIf {
  double compute_scale = 1;
  double comm_scale = 1;
  TimedJob job;
  CriticalPath path;
};

struct Report {
  const TimedJob* job = nullptr;
  const CriticalPath* path = nullptr;
  const WhatIf* what_if = nullptr;  // optional
  size_t top = 10;                  // ops listed
};

std::string render_text(const Report& report);
// Keys: source, ranks, origin_ns, end_ns, makespan_ns, rank_changes,
// categories {compute_ns, communication_ns, host_ns, idle_ns},
// per_rank [{rank, compute_ns, ...}] (ranks the path visits), top_ops
// [{name, category, ns, count}], segments [{rank, node_id, name, category,
// start_ns, end_ns}] (times from origin_ns), and with a what-if: what_if
// {compute_scale, comm_scale, makespan_ns, speedup, categories, top_ops}.
nlohmann::ordered_json render_json(const Report& report);

}  // namespace snr::et::critical_path
