#include "dsim/system/custom_collective.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "common/cli_numbers.h"
#include "common/error.h"
#include "common/file_io.h"
#include "dsim/system/algorithm_registry.h"

namespace snr::dsim {

CustomPhase::CustomPhase(const PhasePlan& plan, const CustomProgram& program)
    : program_(&program), ring_(plan.ring) {
  parents_left_.reserve(program.steps.size());
  for (const CustomStep& step : program.steps) {
    if (step.kind != CustomStepKind::kCompute && step.peer >= ring_.size) {
      throw Error(fmt::format("{}: node {} names rank {}, but the collective has {} members", program.source,
                              step.chakra_id, step.peer, ring_.size));
    }
    if (step.kind != CustomStepKind::kCompute && step.peer == ring_.my_position) {
      throw Error(fmt::format("{}: node {} sends to or receives from its own rank {}", program.source,
                              step.chakra_id, step.peer));
    }
    parents_left_.push_back(step.parents);
  }
  steps_left_ = program.steps.size();
}

void CustomPhase::start(uint32_t stream, PhaseActions& actions) {
  if (steps_left_ == 0) {
    actions.phase_finished(stream);
    return;
  }
  // Issue in node order, as ASTRA-sim's dependency-free list does.
  for (uint32_t i = 0; i < parents_left_.size(); ++i) {
    if (program_->steps[i].parents == 0) issue(stream, i, actions);
  }
}

void CustomPhase::issue(uint32_t stream, uint32_t step_index, PhaseActions& actions) {
  const CustomStep& step = program_->steps[step_index];
  switch (step.kind) {
    case CustomStepKind::kSend:
      actions.custom_send(stream, step_index, ring_.member(step.peer), step.tag, step.bytes);
      break;
    case CustomStepKind::kRecv:
      actions.custom_recv(stream, step_index, ring_.member(step.peer), step.tag, step.bytes);
      break;
    case CustomStepKind::kCompute:
      actions.custom_compute(stream, step_index, step.duration_ns);
      break;
  }
}

void CustomPhase::on_step_done(uint32_t stream, uint32_t step_index, PhaseActions& actions) {
  const CustomStep& step = program_->steps[step_index];
  for (uint32_t child : step.children) {
    if (--parents_left_[child] == 0) issue(stream, child, actions);
  }
  if (--steps_left_ == 0) actions.phase_finished(stream);  // replaces this phase: touch nothing after
}

bool CustomCollectives::empty() const {
  return by_node.empty() && std::all_of(by_kind.begin(), by_kind.end(), [](const auto& p) { return p == nullptr; });
}

const CustomPrograms* CustomCollectives::find(CollectiveKind kind, uint64_t chakra_id) const {
  if (!by_node.empty()) {
    if (const auto it = by_node.find(chakra_id); it != by_node.end()) return it->second.get();
  }
  const auto index = static_cast<size_t>(kind);
  return index < by_kind.size() ? by_kind[index].get() : nullptr;
}

namespace {

constexpr std::string_view kPerNodeKey = "per-node-custom-implementation";

// ASTRA-sim's per-node file: a YAML mapping of workload node ids to trace
// prefixes (relative ones tried as given, then beside the file).
std::map<uint64_t, std::filesystem::path> read_per_node_file(const std::filesystem::path& path) {
  // A map of node ids is small; anything else (a device, a huge file) is a
  // wrong path, refused before it is read.
  constexpr uintmax_t kMaxBytes = uintmax_t{16} << 20;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(fmt::format("'{}': cannot read the file (not a regular file)", path.string()));
  }
  if (std::filesystem::file_size(path, ec) > kMaxBytes) {
    throw Error(fmt::format("'{}': larger than {} MiB, not a per-node map", path.string(), kMaxBytes >> 20));
  }
  YAML::Node root;
  try {
    root = YAML::Load(read_file(path));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}: {}", path.string(), e.mark.line + 1, e.msg));
  }
  if (!root.IsMap() || root.size() == 0) {
    throw Error(fmt::format("{}: expected a mapping of workload node ids to custom-collective trace prefixes",
                            path.string()));
  }
  std::map<uint64_t, std::filesystem::path> prefixes;
  for (const auto& entry : root) {
    const auto line = entry.first.Mark().line + 1;
    if (!entry.first.IsScalar() || !entry.second.IsScalar()) {
      throw Error(fmt::format("{}:{}: a node id must map to one trace prefix", path.string(), line));
    }
    const std::string id_text = entry.first.Scalar();
    const auto id = parse_unsigned(id_text);
    if (!id.ok()) {
      throw Error(fmt::format("{}:{}: '{}' is not a workload node id (a non-negative integer)", path.string(), line,
                              id_text));
    }
    const std::string prefix = entry.second.Scalar();
    const auto resolved = with_error_context(fmt::format("{}:{}: node {}", path.string(), line, id.value()),
                                             [&] { return resolve_custom_prefix(prefix, path.parent_path()); });
    if (!prefixes.emplace(id.value(), resolved).second) {
      throw Error(fmt::format("{}:{}: node {} is given twice", path.string(), line, id.value()));
    }
  }
  return prefixes;
}

}  // namespace

CollectiveAlgorithmSpec custom_algorithm_spec() {
  CollectiveAlgorithmSpec spec;
  spec.name = "custom";
  spec.summary =
      "per-rank Chakra programs of sends, receives and reductions (*-implementation-custom, "
      "per-node-custom-implementation)";
  spec.listed = false;  // chosen by its own keys, not in the *-implementation lists
  spec.implements = {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                     CollectiveKind::kAllToAll};
  for (const CustomKey& custom : kCustomKeys) spec.config_keys.emplace_back(custom.key);
  spec.config_keys.emplace_back(kPerNodeKey);
  spec.parse_key = [](const nlohmann::json& value, std::string_view key, const std::filesystem::path& base_dir,
                      SystemConfig& config) {
    if (key == kPerNodeKey) {
      if (!value.is_string()) throw Error(fmt::format("key '{}' must be the path of a YAML file", key));
      std::filesystem::path file(value.get<std::string>());
      if (file.is_relative() && !std::filesystem::exists(file) && std::filesystem::exists(base_dir / file)) {
        file = base_dir / file;
      }
      config.per_node_custom = read_per_node_file(file);
      return;
    }
    // ASTRA-sim takes exactly one prefix: in a multi-dimensional network
    // the one program covers every dimension.
    if (!value.is_array() || value.size() != 1 || !value[0].is_string()) {
      throw Error(fmt::format("key '{}' must be a list with one trace prefix", key));
    }
    const auto* custom = std::find_if(kCustomKeys.begin(), kCustomKeys.end(),
                                      [&](const CustomKey& k) { return k.key == key; });
    config.*(custom->prefix) = resolve_custom_prefix(value[0].get<std::string>(), base_dir);
  };
  spec.create = [](const PhaseContext& context) -> Phase {
    const CustomPrograms* programs = context.plan.custom_programs;
    const uint32_t position = context.plan.ring.my_position;
    if (programs == nullptr || position >= programs->size()) {
      throw Error(fmt::format("custom {} has {} rank programs, rank position {} needs one",
                              collective_name(context.plan.kind), programs == nullptr ? 0 : programs->size(),
                              position));
    }
    return CustomPhase(context.plan, (*programs)[position]);
  };
  return spec;
}

}  // namespace snr::dsim
