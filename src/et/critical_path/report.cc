#include "et/critical_path/report.h"

#include <fmt/format.h>

namespace snr::et::critical_path {
namespace {

constexpr std::array<Category, kCategoryCount> kCategories{Category::kCompute, Category::kCommunication,
                                                           Category::kHost, Category::kIdle};

std::string key(Category c) { return fmt::format("{}_ns", category_name(c)); }

nlohmann::ordered_json categories_json(const CategoryTimes& times) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const Category c : kCategories) out[key(c)] = times[c];
  return out;
}

nlohmann::ordered_json ops_json(const TimedJob& job, const CriticalPath& path, size_t top) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const PathOp& op : top_ops(job, path, top)) {
    out.push_back({{"name", op.name}, {"category", category_name(op.category)}, {"ns", op.ns}, {"count", op.count}});
  }
  return out;
}

double share(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void append_breakdown(std::string& out, const CriticalPath& path) {
  for (const Category c : kCategories) {
    out += fmt::format("  {:<14} {:>16} ns  {:5.1f}%\n", category_name(c), path.total[c],
                       share(path.total[c], path.makespan_ns()));
  }
}

}  // namespace

std::string render_text(const Report& report) {
  const TimedJob& job = *report.job;
  const CriticalPath& path = *report.path;
  std::string out = fmt::format("critical path ({}, {} ranks): {:} ns, {} segments, moves between ranks {} times\n",
                                job.source, job.ranks.size(), path.makespan_ns(), path.segments.size(),
                                path.rank_changes);
  append_breakdown(out, path);
  out += "ranks on the path (ns):\n";
  out += fmt::format("  {:>6} {:>14} {:>14} {:>14} {:>14}\n", "rank", "compute", "communication", "host", "idle");
  for (size_t r = 0; r < path.per_rank.size(); ++r) {
    const CategoryTimes& t = path.per_rank[r];
    if (t.total() == 0) continue;
    out += fmt::format("  {:>6} {:>14} {:>14} {:>14} {:>14}\n", r, t[Category::kCompute],
                       t[Category::kCommunication], t[Category::kHost], t[Category::kIdle]);
  }
  const auto ops = top_ops(job, path, report.top);
  if (!ops.empty()) {
    out += "longest ops on the path:\n";
    for (const PathOp& op : ops) {
      out += fmt::format("  {:>14} ns {:5.1f}%  {:<13} x{:<4} {}\n", op.ns, share(op.ns, path.makespan_ns()),
                         category_name(op.category), op.count, op.name);
    }
  }
  if (report.what_if != nullptr) {
    const WhatIf& w = *report.what_if;
    const int64_t before = path.makespan_ns(), after = w.path.makespan_ns();
    out += fmt::format("what-if (compute x{:g}, communication x{:g}): {:} ns -> {:} ns ({:+.1f}%), speed-up {:.3f}x\n",
                       w.compute_scale, w.comm_scale, before, after, share(after - before, before),
                       after > 0 ? static_cast<double>(before) / static_cast<double>(after) : 0.0);
    append_breakdown(out, w.path);
  }
  return out;
}

nlohmann::ordered_json render_json(const Report& report) {
  const TimedJob& job = *report.job;
  const CriticalPath& path = *report.path;
  nlohmann::ordered_json out;
  out["source"] = job.source;
  out["ranks"] = job.ranks.size();
  out["origin_ns"] = path.origin_ns;
  out["end_ns"] = path.end_ns;
  out["makespan_ns"] = path.makespan_ns();
  out["rank_changes"] = path.rank_changes;
  out["categories"] = categories_json(path.total);
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (size_t r = 0; r < path.per_rank.size(); ++r) {
    if (path.per_rank[r].total() == 0) continue;
    nlohmann::ordered_json row{{"rank", r}};
    for (const Category c : kCategories) row[key(c)] = path.per_rank[r][c];
    ranks.push_back(std::move(row));
  }
  out["per_rank"] = std::move(ranks);
  out["top_ops"] = ops_json(job, path, report.top);
  nlohmann::ordered_json segments = nlohmann::ordered_json::array();
  for (const PathSegment& s : path.segments) {
    nlohmann::ordered_json row{{"rank", s.rank}};
    if (s.node >= 0) {
      const TimedNode& n = job.ranks[s.rank].nodes[static_cast<size_t>(s.node)];
      row["node_id"] = n.id;
      row["name"] = n.name;
    } else {
      row["node_id"] = nullptr;
      row["name"] = nullptr;
    }
    row["category"] = category_name(s.category);
    row["start_ns"] = s.start_ns - path.origin_ns;
    row["end_ns"] = s.end_ns - path.origin_ns;
    segments.push_back(std::move(row));
  }
  out["segments"] = std::move(segments);
  if (report.what_if != nullptr) {
    const WhatIf& w = *report.what_if;
    out["what_if"] = {{"compute_scale", w.compute_scale},
                      {"comm_scale", w.comm_scale},
                      {"makespan_ns", w.path.makespan_ns()},
                      {"speedup", w.path.makespan_ns() > 0 ? static_cast<double>(path.makespan_ns()) /
                                                                 static_cast<double>(w.path.makespan_ns())
                                                           : 0.0},
                      {"categories", categories_json(w.path.total)},
                      {"top_ops", ops_json(w.job, w.path, report.top)}};
  }
  return out;
}

}  // namespace snr::et::critical_path
