#include "dsim/system/custom_collective.h"

#include <fmt/format.h>

#include "common/error.h"

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

}  // namespace snr::dsim
