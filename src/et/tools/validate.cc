#include "et/tools/validate.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"

namespace snr::et {
namespace {

using ChakraProtoMsg::Node;

class IssueLog {
 public:
  IssueLog(ValidationReport& report, RankValidation& rank, size_t max_listed)
      : report_(report), rank_(rank), max_listed_(max_listed) {}

  void error(const std::string& message) { add(IssueSeverity::kError, message); }
  void warning(const std::string& message) { add(IssueSeverity::kWarning, message); }

 private:
  void add(IssueSeverity severity, const std::string& message) {
    if (severity == IssueSeverity::kError) {
      ++rank_.errors;
      ++report_.errors;
    } else {
      ++rank_.warnings;
      ++report_.warnings;
    }
    if (report_.issues.size() < max_listed_) {
      report_.issues.push_back(ValidationIssue{severity, rank_.path + ": " + message});
    }
  }

  ValidationReport& report_;
  RankValidation& rank_;
  size_t max_listed_;
};

// The dependency graph of one rank as compact arrays: node i has id ids[i]
// and dependencies deps[dep_begin[i] .. dep_begin[i+1]), its data deps
// first; dep_is_ctrl marks control dependencies.
struct CompactGraph {
  std::vector<uint64_t> ids;
  std::vector<uint64_t> dep_begin{0};
  std::vector<uint64_t> deps;
  std::vector<bool> dep_is_ctrl;
};

// Data dependencies are what every simulator waits on: problems there are
// errors. ASTRA-sim's feeder ignores ctrl_deps (PyTorch converters put the
// enclosing operator there), so problems that exist only through control
// dependencies are warnings.
enum class GraphPass { kDataDeps, kControlDeps };

void check_comm_attributes(const Node& node, size_t rank_count, IssueLog& log, RankValidation& rank) {
  chakra::NodeView view(node);
  auto where = [&] { return fmt::format("node {}", node.id()); };
  try {
    // Reading each conventional attribute checks its member kind and range.
    (void)view.is_cpu_op();
    (void)view.num_ops();
    (void)view.tensor_size_bytes();
    (void)view.comm_priority();
    (void)view.pg_name();
    (void)view.involved_dim();
    auto type = node.type();
    if (type == ChakraProtoMsg::COMM_COLL_NODE) {
      ++rank.collectives;
      auto comm_type = view.comm_type();
      if (!comm_type) {
        log.error(where() + ": COMM_COLL_NODE without a comm_type attribute");
      } else if (chakra::comm_type_name(*comm_type).find('(') != std::string::npos) {
        log.warning(fmt::format("{}: comm_type {} is not a known CollectiveCommType", where(), *comm_type));
      }
      if (!view.comm_size_bytes() && (!comm_type || chakra::collective_needs_size(*comm_type))) {
        log.error(where() + ": COMM_COLL_NODE without a comm_size attribute");
      }
    }
    if (type == ChakraProtoMsg::COMM_SEND_NODE || type == ChakraProtoMsg::COMM_RECV_NODE) {
      const char* kind = type == ChakraProtoMsg::COMM_SEND_NODE ? "COMM_SEND_NODE" : "COMM_RECV_NODE";
      if (!view.comm_size_bytes()) log.error(fmt::format("{}: {} without a comm_size attribute", where(), kind));
      auto peer = type == ChakraProtoMsg::COMM_SEND_NODE ? view.comm_dst() : view.comm_src();
      const char* peer_name = type == ChakraProtoMsg::COMM_SEND_NODE ? "comm_dst" : "comm_src";
      if (!peer) {
        log.error(fmt::format("{}: {} without a {} attribute", where(), kind, peer_name));
      }
      for (auto [name, value] : {std::pair{"comm_src", view.comm_src()}, std::pair{"comm_dst", view.comm_dst()}}) {
        if (value && (*value < 0 || (rank_count > 1 && static_cast<uint64_t>(*value) >= rank_count))) {
          log.error(fmt::format("{}: {} {} is outside ranks 0..{}", where(), name, *value, rank_count - 1));
        }
      }
      if (!view.comm_tag()) log.warning(fmt::format("{}: {} without a comm_tag attribute", where(), kind));
    }
  } catch (const Error& e) {
    log.error(e.what());
  }
}

// Returns whether a cycle was found.
bool check_graph(const CompactGraph& graph, const std::unordered_map<uint64_t, uint32_t>& index_of, GraphPass pass,
                 bool report_cycle, IssueLog& log) {
  size_t n = graph.ids.size();
  bool with_ctrl = pass == GraphPass::kControlDeps;
  auto report = [&](const std::string& message) {
    if (with_ctrl) {
      log.warning(message + " (through ctrl_deps, which ASTRA-sim ignores)");
    } else {
      log.error(message);
    }
  };
  auto counts = [&](uint64_t k) { return with_ctrl || !graph.dep_is_ctrl[k]; };
  // Edges parent -> child, for Kahn's algorithm.
  std::vector<uint32_t> indegree(n, 0);
  std::vector<uint64_t> child_begin(n + 1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (size_t i = 0; i < n; ++i) {
    for (uint64_t k = graph.dep_begin[i]; k < graph.dep_begin[i + 1]; ++k) {
      if (!counts(k)) continue;
      uint64_t dep = graph.deps[k];
      // Each problem is reported once: data-dep problems in the data pass,
      // control-dep problems in the control pass.
      bool report_here = with_ctrl == graph.dep_is_ctrl[k];
      if (dep == graph.ids[i]) {
        if (report_here) report(fmt::format("node {} depends on itself", graph.ids[i]));
        continue;
      }
      auto parent = index_of.find(dep);
      if (parent == index_of.end()) {
        if (report_here) report(fmt::format("node {} depends on node {}, which is not in the trace", graph.ids[i], dep));
        continue;
      }
      edges.emplace_back(parent->second, static_cast<uint32_t>(i));
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<uint32_t> children(edges.size());
  for (const auto& [parent, child] : edges) {
    ++child_begin[parent + 1];
    ++indegree[child];
  }
  for (size_t i = 0; i < n; ++i) child_begin[i + 1] += child_begin[i];
  for (size_t e = 0; e < edges.size(); ++e) children[e] = edges[e].second;

  std::vector<uint32_t> queue;
  for (size_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) queue.push_back(static_cast<uint32_t>(i));
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    uint32_t u = queue[head];
    for (uint64_t e = child_begin[u]; e < child_begin[u + 1]; ++e) {
      if (--indegree[children[e]] == 0) queue.push_back(children[e]);
    }
  }
  if (queue.size() == n) return false;
  if (!report_cycle) return true;
  // Walk from a node left on a cycle (or behind one) through parents that
  // are also left; the walk must repeat a node.
  uint32_t current = 0;
  while (indegree[current] == 0) ++current;
  std::vector<int64_t> seen_at(n, -1);
  std::vector<uint32_t> path;
  while (seen_at[current] < 0) {
    seen_at[current] = static_cast<int64_t>(path.size());
    path.push_back(current);
    for (uint64_t k = graph.dep_begin[current]; k < graph.dep_begin[current + 1]; ++k) {
      if (!counts(k)) continue;
      auto parent = index_of.find(graph.deps[k]);
      if (parent != index_of.end() && parent->second != current && indegree[parent->second] > 0) {
        current = parent->second;
        break;
      }
    }
  }
  std::string cycle;
  for (size_t i = static_cast<size_t>(seen_at[current]); i < path.size(); ++i) {
    cycle += fmt::format("{} <- ", graph.ids[path[i]]);
  }
  cycle += std::to_string(graph.ids[current]);
  report(fmt::format("dependency cycle: {} node(s) can never issue; cycle (each depends on the next): {}",
                     n - queue.size(), cycle));
  return true;
}

void check_graph(const CompactGraph& graph, IssueLog& log) {
  std::unordered_map<uint64_t, uint32_t> index_of;
  index_of.reserve(graph.ids.size() * 2);
  for (size_t i = 0; i < graph.ids.size(); ++i) {
    if (!index_of.emplace(graph.ids[i], static_cast<uint32_t>(i)).second) {
      log.error(fmt::format("duplicate node id {} (message {} reuses it)", graph.ids[i], i + 1));
    }
  }
  bool data_cycle = check_graph(graph, index_of, GraphPass::kDataDeps, true, log);
  check_graph(graph, index_of, GraphPass::kControlDeps, !data_cycle, log);
}

void validate_rank(const chakra::RankTraceFile& file, size_t rank_count, const ValidateOptions& options,
                   ValidationReport& report) {
  report.ranks.push_back(RankValidation{});
  RankValidation& rank = report.ranks.back();
  rank.rank = file.rank;
  rank.path = file.path.string();
  IssueLog log(report, rank, options.max_listed_issues);
  CompactGraph graph;
  chakra::EtReadOptions read_options;
  read_options.lenient = true;
  read_options.max_message_bytes = options.max_message_bytes;
  std::vector<uint64_t> node_deps;
  try {
    auto reader = chakra::EtReader::open(file.path, read_options);
    Node node;
    while (reader.next(node)) {
      ++rank.nodes;
      ++rank.nodes_by_type[chakra::node_type_name(node.type())];
      if (!ChakraProtoMsg::NodeType_IsValid(node.type())) {
        log.warning(fmt::format("node {}: unknown node type {}", node.id(), static_cast<int>(node.type())));
      } else if (node.type() == ChakraProtoMsg::INVALID_NODE) {
        log.warning(fmt::format("node {}: type is INVALID_NODE (unset)", node.id()));
      }
      rank.data_edges += static_cast<uint64_t>(node.data_deps_size());
      rank.ctrl_edges += static_cast<uint64_t>(node.ctrl_deps_size());
      graph.ids.push_back(node.id());
      graph.deps.insert(graph.deps.end(), node.data_deps().begin(), node.data_deps().end());
      graph.deps.insert(graph.deps.end(), node.ctrl_deps().begin(), node.ctrl_deps().end());
      graph.dep_is_ctrl.resize(graph.deps.size() - static_cast<size_t>(node.ctrl_deps_size()), false);
      graph.dep_is_ctrl.resize(graph.deps.size(), true);
      graph.dep_begin.push_back(graph.deps.size());
      node_deps.assign(node.data_deps().begin(), node.data_deps().end());
      node_deps.insert(node_deps.end(), node.ctrl_deps().begin(), node.ctrl_deps().end());
      std::sort(node_deps.begin(), node_deps.end());
      if (std::adjacent_find(node_deps.begin(), node_deps.end()) != node_deps.end()) {
        log.warning(fmt::format("node {} lists the same dependency more than once", node.id()));
      }
      check_comm_attributes(node, rank_count, log, rank);
    }
    const auto& stats = reader.stats();
    rank.skipped_records = stats.skipped_records;
    rank.zero_length_messages = stats.zero_length_messages;
    for (const auto& skipped : stats.skipped) {
      log.error(fmt::format("byte {}, message {}: {}", skipped.byte_offset, skipped.message_index, skipped.reason));
    }
    if (stats.skipped_records > stats.skipped.size()) {
      log.error(fmt::format("{} more skipped record(s) not listed", stats.skipped_records - stats.skipped.size()));
    }
    if (stats.zero_length_messages > 0) {
      log.warning(fmt::format("{} zero-length message(s) skipped", stats.zero_length_messages));
    }
  } catch (const Error& e) {
    log.error(e.what());
  }
  check_graph(graph, log);
}

}  // namespace

ValidationReport validate_traces(const std::vector<chakra::RankTraceFile>& files, const ValidateOptions& options) {
  ValidationReport report;
  report.ranks.reserve(files.size());
  for (const auto& file : files) validate_rank(file, files.size(), options, report);
  if (report.ranks.size() > 1) {
    const auto& first = report.ranks.front();
    for (const auto& rank : report.ranks) {
      if (rank.collectives != first.collectives) {
        ++report.warnings;
        if (report.issues.size() < options.max_listed_issues) {
          report.issues.push_back(ValidationIssue{
              IssueSeverity::kWarning,
              fmt::format("rank {} has {} collective node(s) but rank {} has {}; collectives must match across "
                          "ranks or the simulation hangs",
                          rank.rank, rank.collectives, first.rank, first.collectives)});
        }
      }
    }
  }
  return report;
}

std::string format_validation_report(const ValidationReport& report) {
  std::string out = fmt::format("{:>6} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8}  {}\n", "rank", "nodes", "data_deps",
                                "ctrl_deps", "skipped", "errors", "warnings", "types");
  RankValidation total;
  for (const auto& rank : report.ranks) {
    std::string types;
    for (const auto& [name, count] : rank.nodes_by_type) {
      types += fmt::format("{}{}={}", types.empty() ? "" : " ", name, count);
      total.nodes_by_type[name] += count;
    }
    out += fmt::format("{:>6} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8}  {}\n", rank.rank, rank.nodes, rank.data_edges,
                       rank.ctrl_edges, rank.skipped_records, rank.errors, rank.warnings, types);
    total.nodes += rank.nodes;
    total.data_edges += rank.data_edges;
    total.ctrl_edges += rank.ctrl_edges;
    total.skipped_records += rank.skipped_records;
  }
  if (report.ranks.size() > 1) {
    std::string types;
    for (const auto& [name, count] : total.nodes_by_type) {
      types += fmt::format("{}{}={}", types.empty() ? "" : " ", name, count);
    }
    out += fmt::format("{:>6} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8}  {}\n", "total", total.nodes, total.data_edges,
                       total.ctrl_edges, total.skipped_records, report.errors, report.warnings, types);
  }
  for (const auto& issue : report.issues) {
    out += fmt::format("{}: {}\n", issue.severity == IssueSeverity::kError ? "error" : "warning", issue.message);
  }
  uint64_t listed = report.issues.size();
  if (report.errors + report.warnings > listed) {
    out += fmt::format("({} more issue(s) not listed)\n", report.errors + report.warnings - listed);
  }
  out += fmt::format("{}: {} rank(s), {} error(s), {} warning(s)\n", report.errors == 0 ? "OK" : "FAILED",
                     report.ranks.size(), report.errors, report.warnings);
  return out;
}

}  // namespace snr::et
