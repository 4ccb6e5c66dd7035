#include "dsim/system/custom_collective.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
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

CollectiveAlgorithmSpec custom_algorithm_spec() {
  CollectiveAlgorithmSpec spec;
  spec.name = "custom";
  spec.summary = "per-rank Chakra programs of sends, receives and reductions (all-reduce-implementation-custom)";
  spec.listed = false;  // chosen by its own key, not in the *-implementation lists
  spec.implements = {CollectiveKind::kAllReduce};
  spec.config_keys = {"all-reduce-implementation-custom"};
  spec.parse_key = [](const nlohmann::json& value, std::string_view key, const std::filesystem::path& base_dir,
                      SystemConfig& config) {
    if (!value.is_array() || value.size() != 1 || !value[0].is_string()) {
      throw Error(fmt::format("key '{}' must be a list with one trace prefix", key));
    }
    config.all_reduce_custom.push_back(resolve_custom_prefix(value[0].get<std::string>(), base_dir));
  };
  spec.create = [](const PhaseContext& context) -> Phase {
    const uint32_t position = context.plan.ring.my_position;
    if (context.custom == nullptr || position >= context.custom->all_reduce.size()) {
      throw Error(fmt::format("custom all-reduce has {} rank programs, rank position {} needs one",
                              context.custom == nullptr ? 0 : context.custom->all_reduce.size(), position));
    }
    return CustomPhase(context.plan, context.custom->all_reduce[position]);
  };
  return spec;
}

}  // namespace snr::dsim
