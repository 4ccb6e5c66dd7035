// The fully qualified InfraGraph (seed 003 §4.7.3): every component of every
// device instance becomes a node named `<instance>.<i>.<component>.<j>`
// (composed devices add `<device>.<k>` levels), every expanded edge an
// undirected edge (a, b, link) carrying the link's physical attributes.
//
// Storage is compact: a device is flattened once into a template (its leaf
// components and internal edges); an instance block of `count` copies owns
// a contiguous node-id range, so a node is (block, copy, leaf) and its name
// is computed on demand. Adjacency is CSR.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/infragraph/model.h"

namespace snr::infra {

using NodeId = uint32_t;
using LinkId = uint32_t;

// What one expansion may hold. A document of a few lines can describe
// billions of nodes (counts go up to 2^31 - 1 per level), so sizes are
// checked before anything of that size is allocated: 2^26 nodes or edges
// take a few GiB with their adjacency and duplicate-edge index, and hold a
// three-level Clos fat tree of radix-128 switches with 8-GPU hosts several
// times over.
inline constexpr uint64_t kMaxGraphNodes = uint64_t{1} << 26;
inline constexpr uint64_t kMaxGraphEdges = uint64_t{1} << 26;

// A link class: one Link object of the document, scoped to the device that
// declares it ("" for infrastructure links).
struct LinkClass {
  std::string scope;
  std::string name;
  std::optional<infragraph::Bandwidth> bandwidth;
  std::optional<infragraph::Latency> latency;
  [[nodiscard]] double bandwidth_bits_per_s() const {  // 0 when not given
    return bandwidth ? infragraph::bandwidth_bits_per_s(*bandwidth) : 0.0;
  }
  [[nodiscard]] std::optional<double> latency_ns() const {
    return latency ? std::optional<double>(infragraph::latency_ns(*latency)) : std::nullopt;
  }
  [[nodiscard]] std::string qualified_name() const { return scope.empty() ? name : scope + "/" + name; }
};

struct Edge {
  NodeId a = 0;
  NodeId b = 0;
  LinkId link = 0;
};

struct NodeType {
  std::string name;  // the choice, or custom.type for custom components
  infragraph::ComponentChoice choice = infragraph::ComponentChoice::kCpu;
};

// A device flattened to its leaf components and internal edges.
struct DeviceTemplate {
  std::string device;
  std::vector<std::string> leaf_names;  // "xpu.3", "cx5_100gbe.0.port.0"
  std::vector<uint32_t> leaf_types;     // index into Graph::types()
  std::vector<Edge> edges;              // a, b are leaf indices
  std::unordered_map<std::string, uint32_t> leaf_index;
};

struct InstanceBlock {
  std::string name;
  uint32_t device_template = 0;
  uint32_t count = 0;
  NodeId first_node = 0;
  uint32_t leaves = 0;
};

struct Adjacent {
  NodeId node;
  uint32_t edge;
};

class Graph {
 public:
  [[nodiscard]] size_t node_count() const { return node_count_; }
  [[nodiscard]] size_t edge_count() const { return edges_.size(); }
  [[nodiscard]] const std::string& name() const { return name_; }

  [[nodiscard]] std::string node_name(NodeId node) const;
  [[nodiscard]] std::optional<NodeId> find_node(std::string_view name) const;
  [[nodiscard]] const NodeType& node_type(NodeId node) const;
  // Which instance block, which copy of it, which leaf of its device.
  [[nodiscard]] uint32_t block_of(NodeId node) const;
  [[nodiscard]] uint32_t copy_of(NodeId node) const;
  [[nodiscard]] uint32_t leaf_of(NodeId node) const;
  // A dense id for (block, copy): the device instance a node belongs to.
  [[nodiscard]] uint32_t device_instance_of(NodeId node) const;
  [[nodiscard]] size_t device_instance_count() const { return device_instance_count_; }
  [[nodiscard]] std::string device_instance_name(uint32_t device_instance) const;

  [[nodiscard]] const std::vector<Edge>& edges() const { return edges_; }
  [[nodiscard]] const std::vector<LinkClass>& links() const { return links_; }
  [[nodiscard]] const std::vector<NodeType>& types() const { return types_; }
  [[nodiscard]] const std::vector<DeviceTemplate>& templates() const { return templates_; }
  [[nodiscard]] const std::vector<InstanceBlock>& blocks() const { return blocks_; }
  [[nodiscard]] std::span<const Adjacent> neighbours(NodeId node) const {
    return {adjacency_.data() + offsets_[node], adjacency_.data() + offsets_[node + 1]};
  }

 private:
  friend class GraphBuilder;
  std::string name_;
  size_t node_count_ = 0;
  size_t device_instance_count_ = 0;
  std::vector<NodeType> types_;
  std::vector<LinkClass> links_;
  std::vector<DeviceTemplate> templates_;
  std::vector<InstanceBlock> blocks_;
  std::vector<uint32_t> block_device_instance_base_;
  std::unordered_map<std::string, uint32_t> block_index_;
  std::vector<Edge> edges_;
  std::vector<uint32_t> offsets_;
  std::vector<Adjacent> adjacency_;
};

// Expands a document into its fully qualified graph. Errors (slices out of
// range, one2one/ring endpoint lists of different lengths, an endpoint that
// is not a leaf, the same node pair joined by two different links) name the
// file, line, object and field. Self-loops that many2many produces (x–x) are
// skipped; an identical edge given twice counts once. A bare Device document
// expands as one instance of the device, named after it. More than
// kMaxGraphNodes nodes or kMaxGraphEdges edges (in one device or in the
// whole graph) is an error naming the device or instance.
Graph expand(const infragraph::Infrastructure& infra);

}  // namespace snr::infra
