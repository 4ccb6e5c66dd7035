// For the tests of the generated plans: their options in one call, and the
// data-movement checker's verdict on a plan as text ("" when the plan moves
// exactly its collective's bytes, else one line per error).
#pragma once

#include <string>
#include <string_view>

#include "dsim/loadstore/data_check.h"
#include "dsim/loadstore/generated/plan_generator.h"
#include "dsim/loadstore/program.h"

namespace snr::dsim::loadstore {

inline GeneratedPlanOptions plan_options(std::string_view collective, uint32_t gpus, uint32_t workgroups,
                                         uint64_t buffer_bytes, Transfer transfer, Protocol protocol) {
  GeneratedPlanOptions o;
  o.collective = std::string(collective);
  o.gpus = gpus;
  o.workgroups = workgroups;
  o.buffer_bytes = buffer_bytes;
  o.transfer = transfer;
  o.protocol = protocol;
  return o;
}

inline std::string check_generated_plan(const Program& program, std::string_view collective) {
  DataCheckOptions options;
  options.collective = std::string(collective);
  const DataCheckResult result = check_data_movement(program, options);
  std::string text = result.collective_checked ? "" : "collective not checked\n";
  for (const auto& e : result.errors) text += e + "\n";
  return text;
}

}  // namespace snr::dsim::loadstore
