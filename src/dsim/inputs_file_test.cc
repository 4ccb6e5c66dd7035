#include "dsim/inputs_file.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"

namespace snr::dsim {
namespace {

SimulationInputs sample() {
  SimulationInputs inputs;
  inputs.workload_prefix = "/t/ar";
  inputs.system_configuration = "/c/sys.json";
  inputs.network_configuration = "/c/net.yml";
  inputs.remote_memory_configuration = "/c/mem.json";
  inputs.perturbation_configuration = "/c/slow.json";
  inputs.backend = "analytical-congestion-unaware";
  inputs.scales.compute = 0.5;
  inputs.scales.comm = 2;
  inputs.injection_scale = 3;
  inputs.dangling_dependencies = DanglingDependencies::kIgnore;
  return inputs;
}

TEST(InputsFile, RoundTrips) {
  const auto back = parse_inputs_json(inputs_json(sample()), "inputs.json");
  EXPECT_EQ(back.workload_prefix, "/t/ar");
  EXPECT_EQ(back.remote_memory_configuration, "/c/mem.json");
  EXPECT_TRUE(back.comm_group_configuration.empty());
  EXPECT_EQ(back.perturbation_configuration, "/c/slow.json");
  EXPECT_EQ(back.backend, "analytical-congestion-unaware");
  EXPECT_EQ(back.scales.compute, 0.5);
  EXPECT_EQ(back.scales.comm, 2);
  EXPECT_EQ(back.injection_scale, 3);
  EXPECT_EQ(back.dangling_dependencies, DanglingDependencies::kIgnore);
}

TEST(InputsFile, RelativePathsAreWrittenAbsolute) {
  auto inputs = sample();
  inputs.workload_prefix = "traces/ar";
  const auto back = parse_inputs_json(inputs_json(inputs), "inputs.json");
  EXPECT_TRUE(back.workload_prefix.is_absolute());
  EXPECT_EQ(back.workload_prefix.filename(), "ar");
}

TEST(InputsFile, StrictReading) {
  const auto error_of = [](const std::string& edit_from, const std::string& edit_to) {
    std::string text = inputs_json(sample());
    const auto at = text.find(edit_from);
    EXPECT_NE(at, std::string::npos) << edit_from;
    text.replace(at, edit_from.size(), edit_to);
    try {
      (void)parse_inputs_json(text, "run/inputs.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("\"compute_scale\"", "\"compute_scales\"").find("unknown key 'compute_scales'"),
            std::string::npos);
  EXPECT_NE(error_of("\"comm_scale\": 2.0", "\"comm_scale\": 0").find("--comm-scale 0 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of("\"injection_scale\": 3.0", "\"injection_scale\": -1").find("injection_scale"),
            std::string::npos);
  EXPECT_NE(error_of("\"network_backend\": \"analytical-congestion-unaware\"", "\"network_backend\": 7")
                .find("'network_backend' must be a string"),
            std::string::npos);
  EXPECT_NE(error_of("\"system_configuration\": \"/c/sys.json\"", "\"system_configuration\": \"\"")
                .find("must name a file"),
            std::string::npos);
  EXPECT_NE(error_of("\"dangling_dependencies\": \"ignore\"", "\"dangling_dependencies\": \"drop\"")
                .find("--dangling-dependencies 'drop'"),
            std::string::npos);
  EXPECT_NE(error_of("{", "[").find("run/inputs.json"), std::string::npos);
}

}  // namespace
}  // namespace snr::dsim
