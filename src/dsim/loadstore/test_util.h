// Helpers shared by the load-store tests: hand-made plans from
// src/formats/mscclpp/testdata, optionally edited before reading.
#pragma once

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "dsim/loadstore/data_check.h"
#include "dsim/loadstore/lower_mscclpp.h"
#include "formats/mscclpp/plan_reader.h"

namespace snr::dsim::loadstore::testing {

inline nlohmann::json load_plan_json(const std::string& name) {
  std::ifstream in(std::string(SNR_MSCCLPP_TESTDATA) + "/" + name);
  return nlohmann::json::parse(in);
}

inline mscclpp::Plan load_plan(const std::string& name,
                               const std::function<void(nlohmann::json&)>& edit = nullptr) {
  nlohmann::json plan = load_plan_json(name);
  if (edit) edit(plan);
  return mscclpp::parse_plan(plan.dump(), name);
}

inline DataCheckResult check_plan(const mscclpp::Plan& plan, uint64_t input_bytes = 0) {
  MscclppLowering lowering;
  lowering.input_bytes = input_bytes ? input_bytes : smallest_exact_input_bytes(plan);
  const Program program = lower_mscclpp(plan, lowering);
  DataCheckOptions options;
  options.collective = plan.collective;
  options.inplace = plan.inplace;
  return check_data_movement(program, options);
}

inline std::string joined(const DataCheckResult& result) {
  std::string text;
  for (const auto& e : result.errors) text += e + "\n";
  return text;
}

}  // namespace snr::dsim::loadstore::testing
