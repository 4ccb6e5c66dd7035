#include "infra/draw.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "common/error.h"
#include "common/file_io.h"

extern char** environ;

namespace snr::infra {

using infragraph::ComponentChoice;

DrawLevel parse_draw_level(std::string_view text) {
  if (text == "auto") return DrawLevel::kAuto;
  if (text == "component") return DrawLevel::kComponent;
  if (text == "device") return DrawLevel::kDevice;
  if (text == "tier") return DrawLevel::kTier;
  throw Error(fmt::format("draw level '{}' is not one of auto, component, device, tier", text));
}

std::string_view draw_level_name(DrawLevel level) {
  switch (level) {
    case DrawLevel::kAuto: return "auto";
    case DrawLevel::kComponent: return "component";
    case DrawLevel::kDevice: return "device";
    case DrawLevel::kTier: return "tier";
  }
  return "?";
}

DrawLevel resolve_draw_level(const Graph& g, const DrawOptions& o) {
  if (o.level != DrawLevel::kAuto) return o.level;
  if (g.node_count() <= o.max_component_nodes) return DrawLevel::kComponent;
  if (g.device_instance_count() <= o.max_devices) return DrawLevel::kDevice;
  return DrawLevel::kTier;
}

namespace {

constexpr std::array<const char*, 10> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// Labels keep DOT's own escapes (\n, \l); names cannot contain a backslash.
std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string bandwidth_text(const LinkClass& l) {
  if (!l.bandwidth) return "bandwidth not given";
  const double gbps = l.bandwidth_bits_per_s() / 1e9;
  return fmt::format("{:g} Gb/s", gbps);
}

const char* shape_for(ComponentChoice c) {
  switch (c) {
    case ComponentChoice::kXpu: return "box";
    case ComponentChoice::kCpu: return "box3d";
    case ComponentChoice::kNic: return "hexagon";
    case ComponentChoice::kSwitch: return "diamond";
    case ComponentChoice::kPort: return "circle";
    case ComponentChoice::kMemory: return "cylinder";
    case ComponentChoice::kCustom:
    case ComponentChoice::kDevice: return "ellipse";
  }
  return "ellipse";
}

struct LinkStyle {
  std::vector<std::string> attrs;  // per link class
  std::string legend;
};

LinkStyle link_styles(const Graph& g) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& l : g.links()) {
    if (!l.bandwidth) continue;
    lo = std::min(lo, l.bandwidth_bits_per_s());
    hi = std::max(hi, l.bandwidth_bits_per_s());
  }
  LinkStyle s;
  s.legend = "link classes:\\l";
  for (size_t i = 0; i < g.links().size(); ++i) {
    const auto& l = g.links()[i];
    double width = 1.0;
    if (l.bandwidth && hi > lo) width = 1.0 + 4.0 * std::log2(l.bandwidth_bits_per_s() / lo) / std::log2(hi / lo);
    const char* color = kPalette[i % kPalette.size()];
    s.attrs.push_back(fmt::format("color=\"{}\", penwidth={:.2f}{}", color, width, l.bandwidth ? "" : ", style=dashed"));
    s.legend += fmt::format("{} ({}): {}\\l", l.qualified_name(), color, bandwidth_text(l));
  }
  return s;
}

std::string header(const Graph& g, const LinkStyle& style, std::string_view level, bool lr) {
  return fmt::format(
      "graph {} {{\n  graph [fontname=\"Helvetica\", fontsize=10, {}label={}, labeljust=l, compound=true];\n"
      "  node [fontname=\"Helvetica\", fontsize=9];\n  edge [fontname=\"Helvetica\", fontsize=8];\n",
      quote(g.name().empty() ? "infragraph" : g.name()), lr ? "rankdir=LR, " : "",
      quote(fmt::format("{} ({} level: {} nodes, {} edges)\\l{}", g.name(), level, g.node_count(), g.edge_count(),
                        style.legend)));
}

std::string component_level(const Graph& g, const Annotations& a, const LinkStyle& style) {
  std::string out = header(g, style, "component", false);
  NodeId n = 0;
  uint32_t dev = 0;
  for (const auto& b : g.blocks()) {
    const auto& t = g.templates()[b.device_template];
    for (uint32_t c = 0; c < b.count; ++c, ++dev) {
      out += fmt::format("  subgraph {} {{\n    label={}; style=rounded; color=\"#999999\";\n",
                         quote(fmt::format("cluster_{}_{}", b.name, c)),
                         quote(fmt::format("{}.{} ({}, {})", b.name, c, t.device, role_name(a.device_role[dev]))));
      for (uint32_t l = 0; l < b.leaves; ++l, ++n) {
        const auto& type = g.node_type(n);
        std::string label = t.leaf_names[l];
        if (a.node_rank[n] >= 0) label += fmt::format("\\nrank {}", a.node_rank[n]);
        out += fmt::format("    n{} [label={}, shape={}];\n", n, quote(label), shape_for(type.choice));
      }
      out += "  }\n";
    }
  }
  for (const auto& e : g.edges()) out += fmt::format("  n{} -- n{} [{}];\n", e.a, e.b, style.attrs[e.link]);
  return out + "}\n";
}

// Devices or tiers: nodes are groups of device instances; edges between
// groups are aggregated per link class with their count.
std::string group_level(const Graph& g, const Annotations& a, const LinkStyle& style, bool tiers) {
  std::string out = header(g, style, tiers ? "tier" : "device", false);
  std::vector<uint32_t> group(g.device_instance_count());
  std::vector<std::string> labels;
  std::vector<int32_t> group_tier;
  std::map<std::pair<std::string, int32_t>, uint32_t> index;
  uint32_t dev = 0;
  for (const auto& b : g.blocks()) {
    const auto& t = g.templates()[b.device_template];
    for (uint32_t c = 0; c < b.count; ++c, ++dev) {
      const int32_t tier = a.device_tier[dev];
      const auto key = tiers ? std::pair{b.name, tier} : std::pair{fmt::format("{}.{}", b.name, c), tier};
      auto [it, inserted] = index.emplace(key, static_cast<uint32_t>(labels.size()));
      if (inserted) {
        labels.push_back(tiers ? fmt::format("{} ({}, {})", b.name, t.device, role_name(a.device_role[dev]))
                               : fmt::format("{}.{}\\n{}", b.name, c, t.device));
        group_tier.push_back(tier);
      }
      group[dev] = it->second;
    }
  }
  std::vector<uint32_t> members(labels.size(), 0);
  for (auto gid : group) ++members[gid];
  std::map<int32_t, std::vector<uint32_t>> by_tier;
  for (uint32_t i = 0; i < labels.size(); ++i) by_tier[group_tier[i]].push_back(i);
  for (const auto& [tier, ids] : by_tier) {
    out += "  { rank=same;\n";
    for (auto i : ids) {
      std::string label = labels[i];
      if (tiers) label += fmt::format("\\n×{}{}", members[i], tier >= 0 ? fmt::format(", tier {}", tier) : "");
      out += fmt::format("    g{} [label={}, shape={}];\n", i, quote(label), tier == 0 ? "box" : "box3d");
    }
    out += "  }\n";
  }
  std::map<std::tuple<uint32_t, uint32_t, LinkId>, uint64_t> agg;
  for (const auto& e : g.edges()) {
    uint32_t ga = group[g.device_instance_of(e.a)], gb = group[g.device_instance_of(e.b)];
    if (ga == gb) continue;
    if (ga > gb) std::swap(ga, gb);
    ++agg[{ga, gb, e.link}];
  }
  for (const auto& [key, count] : agg) {
    const auto& [ga, gb, link] = key;
    out += fmt::format("  g{} -- g{} [{}{}];\n", ga, gb, style.attrs[link],
                       count > 1 ? fmt::format(", label={}", quote(fmt::format("×{}", count))) : "");
  }
  return out + "}\n";
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::string_view rest(path);
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::filesystem::path dir(std::string(rest.substr(0, colon)));
    const auto candidate = dir / program;
    if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return "";
}

}  // namespace

std::string to_dot(const Graph& g, const Annotations& a, const DrawOptions& o) {
  const LinkStyle style = link_styles(g);
  switch (resolve_draw_level(g, o)) {
    case DrawLevel::kComponent: return component_level(g, a, style);
    case DrawLevel::kDevice: return group_level(g, a, style, false);
    case DrawLevel::kTier:
    case DrawLevel::kAuto: return group_level(g, a, style, true);
  }
  return "";
}

bool graphviz_available() { return !find_on_path("dot").empty(); }

std::string render_svg(std::string_view dot_text) {
  const std::string dot = find_on_path("dot");
  if (dot.empty()) throw Error("Graphviz 'dot' is not on PATH (Debian package graphviz); write DOT with --dot instead");
  char dir_template[] = "/tmp/snr-infra-draw-XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) throw Error("cannot create a temporary directory for Graphviz");
  const std::filesystem::path dir(dir_template);
  const auto in = dir / "graph.dot";
  const auto out = dir / "graph.svg";
  std::string svg;
  try {
    write_file_atomic(in, dot_text);
    const std::string flag_o = "-o" + out.string();
    const std::string in_s = in.string();
    std::vector<char*> argv = {const_cast<char*>(dot.c_str()), const_cast<char*>("-Tsvg"),
                               const_cast<char*>(flag_o.c_str()), const_cast<char*>(in_s.c_str()), nullptr};
    pid_t pid = 0;
    if (::posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
      throw Error("cannot start Graphviz 'dot'");
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      throw Error("Graphviz 'dot' failed on the generated graph");
    }
    svg = read_file(out);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return svg;
}

}  // namespace snr::infra
