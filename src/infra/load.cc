#include "infra/load.h"

#include <map>
#include <nlohmann/json.hpp>

#include "common/file_io.h"

namespace snr::infra {

LoadedInfrastructure load(const std::filesystem::path& path, const std::filesystem::path& annotation_path) {
  LoadedInfrastructure out;
  out.document = infragraph::load_infrastructure(path);
  out.graph = expand(out.document);
  out.annotations = annotate(out.graph);
  if (!annotation_path.empty()) {
    apply_annotations(out.graph, out.annotations, read_file(annotation_path), annotation_path.string());
  }
  return out;
}

std::string summary_json(const LoadedInfrastructure& l) {
  const Graph& g = l.graph;
  nlohmann::ordered_json j;
  j["nodes"] = g.node_count();
  j["edges"] = g.edge_count();
  j["name"] = g.name();
  j["devices"] = l.document.devices.size();
  j["device_instances"] = g.device_instance_count();
  j["ranks"] = l.annotations.ranked_nodes.size();
  std::map<std::string, uint64_t> by_type;
  for (NodeId n = 0; n < g.node_count(); ++n) ++by_type[g.node_type(n).name];
  j["nodes_by_type"] = by_type;
  std::map<std::string, uint64_t> by_role;
  for (auto r : l.annotations.device_role) ++by_role[std::string(role_name(r))];
  j["device_instances_by_role"] = by_role;
  auto& links = j["links"] = nlohmann::ordered_json::array();
  std::vector<uint64_t> per_link(g.links().size(), 0);
  for (const auto& e : g.edges()) ++per_link[e.link];
  for (size_t i = 0; i < g.links().size(); ++i) {
    const auto& lc = g.links()[i];
    nlohmann::ordered_json lj;
    lj["name"] = lc.qualified_name();
    lj["edges"] = per_link[i];
    if (lc.bandwidth) lj["bandwidth_bits_per_s"] = lc.bandwidth_bits_per_s();
    if (auto lat = lc.latency_ns()) lj["latency_ns"] = *lat;
    links.push_back(lj);
  }
  return j.dump(2) + "\n";
}

}  // namespace snr::infra
