// The visualizer (seed 003 §4.7.2): the graph as Graphviz DOT, rendered to
// SVG by Graphviz's `dot` when it is installed. Three levels of detail:
// components (device instances as clusters of their components), devices
// (one node per device instance) and tiers (device instances of one
// instance block and tier collapsed into one node with its count). Link
// classes get a colour each and a pen width growing with bandwidth.
#pragma once

#include <string>
#include <string_view>

#include "infra/annotations.h"
#include "infra/graph.h"

namespace snr::infra {

enum class DrawLevel { kAuto, kComponent, kDevice, kTier };

struct DrawOptions {
  DrawLevel level = DrawLevel::kAuto;
  // kAuto picks components up to this many nodes, then devices up to
  // max_devices device instances, then tiers.
  size_t max_component_nodes = 300;
  size_t max_devices = 120;
};

DrawLevel parse_draw_level(std::string_view text);
std::string_view draw_level_name(DrawLevel level);
DrawLevel resolve_draw_level(const Graph& graph, const DrawOptions& options);

std::string to_dot(const Graph& graph, const Annotations& annotations, const DrawOptions& options);

// Runs `dot -Tsvg` on `dot_text`; throws snr::Error when Graphviz is not
// installed or fails.
std::string render_svg(std::string_view dot_text);
bool graphviz_available();

}  // namespace snr::infra
