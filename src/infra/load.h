// One call from a file to the annotated graph, for the CLI and tests.
#pragma once

#include <filesystem>
#include <string>

#include "formats/infragraph/infragraph.h"
#include "infra/annotations.h"
#include "infra/graph.h"

namespace snr::infra {

struct LoadedInfrastructure {
  infragraph::Infrastructure document;
  Graph graph;
  Annotations annotations;
};

// Reads, validates and expands `path`; applies `annotation_path` when not empty.
LoadedInfrastructure load(const std::filesystem::path& path, const std::filesystem::path& annotation_path = {});

// `{"nodes": N, "edges": E, ...}`: counts of the expanded graph.
std::string summary_json(const LoadedInfrastructure& loaded);

}  // namespace snr::infra
