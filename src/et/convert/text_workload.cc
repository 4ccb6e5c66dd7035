#include "et/convert/text_workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

#include "common/error.h"
#include "common/text.h"

namespace snr::et_convert {

namespace {

[[noreturn]] void fail(const std::string& source, size_t line, const std::string& message) {
  throw Error(fmt::format("{}:{}: {}", source, line, message));
}

uint64_t parse_count(std::string_view text, const char* what, const std::string& source, size_t line) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    fail(source, line, fmt::format("{} '{}' is not a non-negative integer", what, text));
  }
  return value;
}

TextComm parse_comm(std::string_view type, std::string_view size, const char* what,
                    const std::string& source, size_t line) {
  TextComm comm;
  comm.type_name = std::string(type);
  comm.size_bytes = parse_count(size, what, source, line);
  if (type == "NONE") return comm;
  if (type == "ALLREDUCE") comm.type = CollectiveType::kAllReduce;
  else if (type == "ALLGATHER") comm.type = CollectiveType::kAllGather;
  else if (type == "REDUCESCATTER") comm.type = CollectiveType::kReduceScatter;
  else if (type == "ALLTOALL") comm.type = CollectiveType::kAllToAll;
  else {
    fail(source, line, fmt::format("unknown communication type '{}' (expected NONE, ALLREDUCE, "
                                   "ALLGATHER, REDUCESCATTER or ALLTOALL)", type));
  }
  return comm;
}

// Builds one pass after another; tracks each layer's nodes across passes.
class TextGraphBuilder {
 public:
  TextGraphBuilder(const TextWorkload& workload, ConvertedGraph& graph)
      : workload_(workload), graph_(graph), layers_(workload.layers.size()) {}

  void pass() {
    switch (workload_.parallelism) {
      case TextParallelism::kMicro: micro(); break;
      case TextParallelism::kData: data_parallel(); break;
      case TextParallelism::kModel: model_or_hybrid(false); break;
      case TextParallelism::kHybridDataModel:
      case TextParallelism::kHybridModelData: model_or_hybrid(true); break;
      case TextParallelism::kDlrm: dlrm(); break;
    }
  }

 private:
  struct LayerNodes {
    std::optional<uint64_t> fwd_comp, fwd_comm, ig_comp, ig_comm, wg_comp, wg_comm;
  };

  uint64_t comp(const std::string& layer, const char* phase, uint64_t duration,
                std::initializer_list<std::optional<uint64_t>> deps) {
    ConvertedNode node;
    node.id = next_id_++;
    node.name = fmt::format("COMP_NODE_{}_{}", layer, phase);
    node.type = ConvertedNodeType::kComp;
    node.duration_micros = duration;
    node.is_cpu_op = false;
    add_deps(node, deps);
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.back().id;
  }

  // NONE makes no node: returns nullopt and callers depend on the producer.
  std::optional<uint64_t> comm(const std::string& layer, const TextComm& spec,
                               std::initializer_list<std::optional<uint64_t>> deps) {
    if (!spec.type) return std::nullopt;
    ConvertedNode node;
    node.id = next_id_++;
    node.name = fmt::format("COMM_COLL_NODE_{}_{}", layer, spec.type_name);
    node.type = ConvertedNodeType::kCommColl;
    node.comm_type = spec.type;
    node.comm_size_bytes = spec.size_bytes;
    add_deps(node, deps);
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.back().id;
  }

  static void add_deps(ConvertedNode& node, std::initializer_list<std::optional<uint64_t>> deps) {
    for (const auto& d : deps) {
      if (d && std::find(node.data_deps.begin(), node.data_deps.end(), *d) == node.data_deps.end()) {
        node.data_deps.push_back(*d);
      }
    }
  }

  static std::optional<uint64_t> either(std::optional<uint64_t> first, std::optional<uint64_t> second) {
    return first ? first : second;
  }

  void micro() {
    for (const auto& layer : workload_.layers) comm(layer.name, layer.wg_comm, {});
  }

  void data_parallel() {
    const auto& layers = workload_.layers;
    std::optional<uint64_t> last_fwd;
    for (size_t i = 0; i < layers.size(); ++i) {
      auto& nodes = layers_[i];
      // The previous pass's weight update of this layer gates its forward.
      const auto previous_update = either(nodes.wg_comm, nodes.wg_comp);
      nodes.fwd_comp = comp(layers[i].name, "FWD", layers[i].fwd_compute,
                            {i > 0 ? layers_[i - 1].fwd_comp : std::nullopt, previous_update});
      last_fwd = nodes.fwd_comp;
    }
    for (size_t k = 0; k < layers.size(); ++k) {
      const size_t i = layers.size() - 1 - k;
      auto& nodes = layers_[i];
      const auto upstream = k == 0 ? last_fwd : layers_[i + 1].ig_comp;
      nodes.wg_comp = comp(layers[i].name, "BWD_WG", layers[i].wg_compute, {upstream});
      nodes.wg_comm = comm(layers[i].name, layers[i].wg_comm, {nodes.wg_comp});
      nodes.ig_comp = i > 0 ? std::optional(comp(layers[i].name, "BWD_IG", layers[i].ig_compute,
                                                 {nodes.wg_comp}))
                            : std::nullopt;
    }
  }

  void model_or_hybrid(bool weight_gradient_comm) {
    const auto& layers = workload_.layers;
    std::optional<uint64_t> last_fwd_output;
    for (size_t i = 0; i < layers.size(); ++i) {
      auto& nodes = layers_[i];
      const auto previous_update =
          weight_gradient_comm ? either(nodes.wg_comm, nodes.wg_comp) : nodes.wg_comp;
      const auto upstream = i > 0 ? either(layers_[i - 1].fwd_comm, layers_[i - 1].fwd_comp)
                                  : std::nullopt;
      nodes.fwd_comp = comp(layers[i].name, "FWD", layers[i].fwd_compute, {upstream, previous_update});
      nodes.fwd_comm = comm(layers[i].name, layers[i].fwd_comm, {nodes.fwd_comp});
      last_fwd_output = either(nodes.fwd_comm, nodes.fwd_comp);
    }
    for (size_t k = 0; k < layers.size(); ++k) {
      const size_t i = layers.size() - 1 - k;
      auto& nodes = layers_[i];
      if (k == 0) {
        nodes.ig_comp = comp(layers[i].name, "BWD_IG", layers[i].ig_compute, {last_fwd_output});
      } else {
        const auto& upper = layers_[i + 1];
        nodes.ig_comp = comp(layers[i].name, "BWD_IG", layers[i].ig_compute,
                             {upper.wg_comp, either(upper.ig_comm, upper.ig_comp)});
      }
      // Chakra names HYBRID_DATA_MODEL's input-gradient comm <layer>_IG_COMM_
      // (COMM_COLL_NODE_<layer>_IG_COMM__<TYPE>), the other kinds' <layer>.
      const std::string ig_name = workload_.parallelism == TextParallelism::kHybridDataModel
                                      ? layers[i].name + "_IG_COMM_"
                                      : layers[i].name;
      nodes.ig_comm = i > 0 ? comm(ig_name, layers[i].ig_comm, {nodes.ig_comp}) : std::nullopt;
      nodes.wg_comp = comp(layers[i].name, "BWD_WG", layers[i].wg_compute, {nodes.ig_comp});
      nodes.wg_comm = weight_gradient_comm ? comm(layers[i].name, layers[i].wg_comm, {nodes.wg_comp})
                                           : std::nullopt;
    }
  }

  // Chakra's HYBRID_DLRM: forward comm only for the embeddings' all-to-all,
  // the weight-gradient compute leads the backward of each layer, and the
  // embeddings' input-gradient all-to-all (layer 0's ig columns) is issued
  // after the first top-MLP layer's input gradient.
  void dlrm() {
    const auto& layers = workload_.layers;
    const size_t last_bottom = workload_.dlrm_last_bottom_layer;
    for (size_t i = 0; i < layers.size(); ++i) {
      auto& nodes = layers_[i];
      const auto previous_update = either(nodes.wg_comm, nodes.wg_comp);
      nodes.fwd_comp = comp(layers[i].name, "FWD", layers[i].fwd_compute,
                            {i > 0 ? layers_[i - 1].fwd_comp : std::nullopt, previous_update,
                             i == last_bottom ? layers_[0].fwd_comm : std::nullopt});
      const bool all_to_all = layers[i].fwd_comm.type == CollectiveType::kAllToAll;
      nodes.fwd_comm = all_to_all ? comm(layers[i].name, layers[i].fwd_comm, {nodes.fwd_comp}) : std::nullopt;
    }
    for (size_t k = 0; k < layers.size(); ++k) {
      const size_t i = layers.size() - 1 - k;
      auto& nodes = layers_[i];
      if (k == 0) {
        nodes.wg_comp = comp(layers[i].name, "BWD_WG", layers[i].wg_compute, {layers_.back().fwd_comp});
      } else {
        nodes.wg_comp = comp(layers[i].name, "BWD_WG", layers[i].wg_compute,
                             {layers_[i + 1].ig_comp, nodes.ig_comm});
      }
      nodes.wg_comm = comm(layers[i].name, layers[i].wg_comm, {nodes.wg_comp});
      nodes.ig_comp = i > 0 ? std::optional(comp(layers[i].name, "BWD_IG", layers[i].ig_compute,
                                                 {nodes.wg_comp}))
                            : std::nullopt;
      if (i == last_bottom + 1) {
        layers_[0].ig_comm = comm(layers[0].name, layers[0].ig_comm, {nodes.ig_comp});
      }
    }
  }

  const TextWorkload& workload_;
  ConvertedGraph& graph_;
  std::vector<LayerNodes> layers_;
  uint64_t next_id_ = 0;
};

}  // namespace

TextWorkload parse_text_workload(std::string_view text, const std::string& source_name) {
  std::vector<std::pair<size_t, std::string_view>> lines;  // non-blank lines with numbers
  size_t line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_number;
    const std::string_view line = text.substr(start, end - start);
    if (!split_blanks(line).empty()) lines.emplace_back(line_number, line);
    start = end + 1;
  }
  if (lines.size() < 2) fail(source_name, line_number, "expected the parallelism line and the layer count");

  TextWorkload workload;
  const auto header = split_blanks(lines[0].second);
  const std::string_view kind = header[0];
  if (kind == "MICRO") workload.parallelism = TextParallelism::kMicro;
  else if (kind == "DATA") workload.parallelism = TextParallelism::kData;
  else if (kind == "MODEL") workload.parallelism = TextParallelism::kModel;
  else if (kind == "HYBRID_DATA_MODEL") workload.parallelism = TextParallelism::kHybridDataModel;
  else if (kind == "HYBRID_MODEL_DATA") workload.parallelism = TextParallelism::kHybridModelData;
  else if (kind == "HYBRID_DLRM" || kind == "HYBRID_DLRM_ENHANCED") workload.parallelism = TextParallelism::kDlrm;
  else {
    fail(source_name, lines[0].first,
         fmt::format("unsupported parallelism '{}' (expected MICRO, DATA, MODEL, HYBRID_DATA_MODEL, "
                     "HYBRID_MODEL_DATA, HYBRID_DLRM or HYBRID_DLRM_ENHANCED)", kind));
  }
  const auto count_columns = split_blanks(lines[1].second);
  if (count_columns.size() != 1) fail(source_name, lines[1].first, "expected the number of layers alone");
  const uint64_t layer_count = parse_count(count_columns[0], "layer count", source_name, lines[1].first);
  if (layer_count == 0) fail(source_name, lines[1].first, "the workload has no layers");
  if (lines.size() - 2 != layer_count) {
    fail(source_name, lines.back().first,
         fmt::format("the header announces {} layers but {} layer lines follow", layer_count,
                     lines.size() - 2));
  }
  if (workload.parallelism == TextParallelism::kDlrm) {
    if (header.size() < 2) {
      fail(source_name, lines[0].first,
           fmt::format("{} needs the index of the last bottom-MLP layer after it (e.g. '{} 4')", kind, kind));
    }
    workload.dlrm_last_bottom_layer =
        parse_count(header[1], "last bottom-MLP layer", source_name, lines[0].first);
    if (workload.dlrm_last_bottom_layer >= layer_count) {
      fail(source_name, lines[0].first,
           fmt::format("last bottom-MLP layer {} is not one of the {} layers (0 to {})",
                       workload.dlrm_last_bottom_layer, layer_count, layer_count - 1));
    }
    // The embeddings' backward all-to-all follows the first top-MLP
    // layer's input gradient: without a top layer it would be left out.
    if (workload.dlrm_last_bottom_layer + 1 == layer_count) {
      fail(source_name, lines[0].first,
           fmt::format("last bottom-MLP layer {} is the last of the {} layers: a DLRM needs a top-MLP layer after "
                       "it (its first one issues the embeddings' backward all-to-all)",
                       workload.dlrm_last_bottom_layer, layer_count));
    }
  }
  for (size_t k = 2; k < lines.size(); ++k) {
    const auto [number, line] = lines[k];
    const auto c = split_blanks(line);
    if (c.size() != 12) {
      fail(source_name, number, fmt::format("expected 12 columns, found {}", c.size()));
    }
    TextLayer layer;
    layer.line = number;
    layer.name = std::string(c[0]);
    layer.fwd_compute = parse_count(c[2], "forward compute time", source_name, number);
    layer.fwd_comm = parse_comm(c[3], c[4], "forward comm size", source_name, number);
    layer.ig_compute = parse_count(c[5], "input-gradient compute time", source_name, number);
    layer.ig_comm = parse_comm(c[6], c[7], "input-gradient comm size", source_name, number);
    layer.wg_compute = parse_count(c[8], "weight-gradient compute time", source_name, number);
    layer.wg_comm = parse_comm(c[9], c[10], "weight-gradient comm size", source_name, number);
    layer.update_time = parse_count(c[11], "update time", source_name, number);
    workload.layers.push_back(std::move(layer));
  }
  return workload;
}

ConvertedGraph convert_text_workload(const TextWorkload& workload, int64_t rank, uint32_t passes) {
  ConvertedGraph graph;
  graph.rank = rank;
  TextGraphBuilder builder(workload, graph);
  for (uint32_t p = 0; p < passes; ++p) builder.pass();
  return graph;
}

}  // namespace snr::et_convert
