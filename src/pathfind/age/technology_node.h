// Logic technology nodes for pathfinding studies (seed 004 §9): a library
// at one node carried to another by the per-node scaling the paper assumes
// for iso-performance, area / 1.8 and power / 1.3 per node step, applied to
// what is logic on the compute die (MACs, SRAM banks, their controllers and
// crossbars). Off-chip memory devices and SerDes lanes are separate
// technologies (memory and network scaling are their own axes in §9.1), so
// they stay as they are. Built-in libraries n12 ... n1 are n7 carried this way.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "pathfind/age/technology.h"

namespace snr::pathfind::age {

struct NodeScaling {
  double area_per_step = 1.8;   // logic area shrinks this much per node step
  double power_per_step = 1.3;  // energy per operation and static power shrink this much
};

// The node ladder, oldest first: N12 N10 N7 N5 N3 N2 N1 (one step apart).
std::span<const std::string_view> logic_nodes();
// Steps from `from` to `to` along the ladder (negative: an older node);
// throws naming the unknown label and the ladder.
int node_steps(std::string_view from, std::string_view to);

// `base` (every compute entry at `from_node`) carried to `to_node`, renamed
// `name`; compute entries' node label becomes `to_node`.
TechnologyLibrary scale_to_node(const TechnologyLibrary& base, std::string_view from_node, std::string_view to_node,
                                std::string name, NodeScaling scaling = {});

// YAML a user could have written (the strict reader reads it back to the
// same library; units as the reader takes them).
std::string format_technology_yaml(const TechnologyLibrary& library);

}  // namespace snr::pathfind::age
