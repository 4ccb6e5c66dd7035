#include "dsim/workload/custom_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

#include "common/error.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/rank_files.h"

namespace snr::dsim {
namespace {

constexpr int64_t kMaxTag = int64_t{1} << 24;

// Kahn's algorithm: every node must be reachable from the roots, or the
// program would never finish.
void check_acyclic(const CustomProgram& program) {
  std::vector<uint32_t> parents_left(program.steps.size());
  std::vector<uint32_t> ready;
  for (uint32_t i = 0; i < program.steps.size(); ++i) {
    parents_left[i] = program.steps[i].parents;
    if (parents_left[i] == 0) ready.push_back(i);
  }
  size_t visited = 0;
  while (!ready.empty()) {
    const uint32_t i = ready.back();
    ready.pop_back();
    ++visited;
    for (uint32_t child : program.steps[i].children) {
      if (--parents_left[child] == 0) ready.push_back(child);
    }
  }
  if (visited != program.steps.size()) {
    for (uint32_t i = 0; i < program.steps.size(); ++i) {
      if (parents_left[i] > 0) {
        throw Error(fmt::format("{}: node {} is on a dependency cycle", program.source, program.steps[i].chakra_id));
      }
    }
  }
}

}  // namespace

CustomProgram load_custom_program(const std::filesystem::path& path) {
  const auto trace = chakra::read_trace(path);
  return parse_custom_program(trace.nodes, trace.stats.skipped_records, path.string());
}

CustomProgram parse_custom_program(const std::vector<ChakraProtoMsg::Node>& nodes, uint64_t skipped_records,
                                   std::string source) {
  CustomProgram program;
  program.source = std::move(source);
  std::unordered_map<uint64_t, uint32_t> index_of;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!index_of.emplace(nodes[i].id(), static_cast<uint32_t>(i)).second) {
      throw Error(fmt::format("{}: node id {} appears twice", program.source, nodes[i].id()));
    }
  }
  program.steps.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& proto = nodes[i];
    CustomStep& step = program.steps[i];
    step.chakra_id = proto.id();
    with_error_context(fmt::format("{}: node {}", program.source, proto.id()), [&] {
      const chakra::NodeView view(proto);
      switch (proto.type()) {
        case ChakraProtoMsg::COMM_SEND_NODE:
        case ChakraProtoMsg::COMM_RECV_NODE: {
          const bool send = proto.type() == ChakraProtoMsg::COMM_SEND_NODE;
          step.kind = send ? CustomStepKind::kSend : CustomStepKind::kRecv;
          const auto peer = send ? view.comm_dst() : view.comm_src();
          if (!peer.has_value() || *peer < 0) {
            throw Error(fmt::format("{} needs a non-negative {}", send ? "send" : "recv",
                                    send ? "comm_dst" : "comm_src"));
          }
          step.peer = static_cast<uint32_t>(*peer);
          const auto bytes = view.comm_size_bytes();
          if (!bytes.has_value() || *bytes == 0) throw Error("send/recv without a positive comm_size");
          step.bytes = *bytes;
          const int64_t tag = view.comm_tag().value_or(0);
          if (tag < 0 || tag >= kMaxTag) throw Error(fmt::format("comm_tag {} outside [0, 2^24)", tag));
          step.tag = static_cast<uint32_t>(tag);
          break;
        }
        case ChakraProtoMsg::COMP_NODE:
          // A reduction; ASTRA-sim charges 1 ns when no duration is given.
          step.kind = CustomStepKind::kCompute;
          step.duration_ns = proto.duration_micros() == 0 ? 1 : proto.duration_micros() * 1000;
          break;
        default:
          throw Error(fmt::format("node type {} is not allowed in a custom collective "
                                  "(COMM_SEND_NODE, COMM_RECV_NODE, COMP_NODE)",
                                  ChakraProtoMsg::NodeType_Name(proto.type())));
      }
      auto link = [&](uint64_t parent_id) {
        const auto it = index_of.find(parent_id);
        if (it == index_of.end()) throw Error(fmt::format("depends on node {}, which is not in the trace", parent_id));
        program.steps[it->second].children.push_back(static_cast<uint32_t>(i));
        ++step.parents;
      };
      for (uint64_t dep : proto.data_deps()) link(dep);
      for (uint64_t dep : proto.ctrl_deps()) {
        if (std::find(proto.data_deps().begin(), proto.data_deps().end(), dep) == proto.data_deps().end()) link(dep);
      }
    });
  }
  if (skipped_records > 0) {
    throw Error(fmt::format("{}: {} unreadable records; a custom collective must be complete", program.source,
                            skipped_records));
  }
  check_acyclic(program);
  return program;
}

CustomPrograms load_custom_programs(const std::filesystem::path& prefix, uint64_t npus_count) {
  CustomPrograms programs;
  programs.reserve(npus_count);
  for (uint64_t rank = 0; rank < npus_count; ++rank) {
    const auto path = chakra::rank_trace_path(prefix, rank);
    // Communicator groups need only as many programs as members; a missing
    // position is reported when a collective needs it.
    if (rank > 0 && !std::filesystem::exists(path)) break;
    programs.push_back(load_custom_program(path));
  }
  return programs;
}

CustomCollectives load_custom_collectives(const SystemConfig& system, uint64_t npus_count) {
  std::map<std::filesystem::path, std::shared_ptr<const CustomPrograms>> loaded;
  const auto programs_of = [&](const std::filesystem::path& prefix) {
    auto& slot = loaded[prefix];
    if (slot == nullptr) slot = std::make_shared<const CustomPrograms>(load_custom_programs(prefix, npus_count));
    return slot;
  };
  CustomCollectives custom;
  for (size_t kind = 0; kind < kCustomKeys.size(); ++kind) {
    const std::filesystem::path& prefix = system.*(kCustomKeys[kind].prefix);
    if (!prefix.empty()) custom.by_kind[kind] = programs_of(prefix);
  }
  for (const auto& [chakra_id, prefix] : system.per_node_custom) custom.by_node.emplace(chakra_id, programs_of(prefix));
  return custom;
}

}  // namespace snr::dsim
