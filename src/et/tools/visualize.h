// `snr et visualize`: the dependency graph of a trace as Graphviz dot (seed
// 002 §5.2). Each node is a box labelled with id, name, type and duration,
// coloured by type; data dependencies are solid edges, control dependencies
// dashed. SVG and PDF go through Graphviz's `dot` program. A trace with more
// than `max_nodes` nodes is refused (dot cannot lay out huge graphs usefully).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace snr::et {

enum class GraphFormat { kDot, kSvg, kPdf };

struct VisualizeOptions {
  uint64_t max_nodes = 2000;
  size_t max_label_chars = 48;
};

// By extension: .dot/.gv, .svg, .pdf; anything else is an error.
GraphFormat graph_format_for(const std::filesystem::path& output);

// Streams the trace into dot text; throws when it has more than max_nodes.
// `node_count`, when given, receives the number of nodes drawn.
std::string render_dot(const std::filesystem::path& et_path, const VisualizeOptions& options = {},
                       uint64_t* node_count = nullptr);

// Writes `output` (all-or-nothing); returns the number of nodes drawn.
uint64_t visualize_trace(const std::filesystem::path& et_path, const std::filesystem::path& output,
                         const VisualizeOptions& options = {});

}  // namespace snr::et
