// The data-movement checker's verdict on a generated plan as text, for the
// tests of the generated plans: "" when the plan moves exactly its
// collective's bytes, else one line per error.
#pragma once

#include <string>
#include <string_view>

#include "dsim/loadstore/data_check.h"
#include "dsim/loadstore/program.h"

namespace snr::dsim::loadstore {

inline std::string check_generated_plan(const Program& program, std::string_view collective) {
  DataCheckOptions options;
  options.collective = std::string(collective);
  const DataCheckResult result = check_data_movement(program, options);
  std::string text = result.collective_checked ? "" : "collective not checked\n";
  for (const auto& e : result.errors) text += e + "\n";
  return text;
}

}  // namespace snr::dsim::loadstore
