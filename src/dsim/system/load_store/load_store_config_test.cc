// The load-store algorithm's configuration keys: accepted values land in
// the settings; bad ones are errors that name the key.
#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "dsim/config/system_config.h"
#include "dsim/system/algorithm_registry.h"
#include "dsim/system/load_store/load_store_collective.h"
#include "dsim/system/load_store/load_store_config.h"

namespace snr::dsim::load_store {
namespace {

SystemConfig parse(const std::string& extra) {
  register_load_store_algorithm();
  return parse_system_config(R"({"all-reduce-implementation": ["load-store"])" + extra + "}", "test.json");
}

std::string error_of(const std::string& extra) {
  try {
    (void)parse(extra);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(LoadStoreConfig, SelectedByNameWithDefaults) {
  const SystemConfig config = parse("");
  ASSERT_EQ(config.all_reduce.size(), 1u);
  EXPECT_EQ(config.all_reduce[0].algorithm->name, "load-store");
  const Settings s = settings_of(config);
  EXPECT_EQ(s.system, "generic-448");
  EXPECT_EQ(s.algorithm, "auto");
  EXPECT_EQ(s.protocol, "auto");
  EXPECT_EQ(s.workgroups, 0u);
  EXPECT_TRUE(s.plan_files.empty());
  EXPECT_EQ(s.compute, "duration");
  EXPECT_EQ(s.compute_workgroups, 0u);
}

TEST(LoadStoreConfig, KeysLandInTheSettings) {
  const Settings s = settings_of(parse(
      R"(, "load-store-system": "dgx-a100", "load-store-algorithm": "ring", "load-store-protocol": "LL",
         "load-store-transfer": "get", "load-store-workgroups": 8)"));
  EXPECT_EQ(s.system, "dgx-a100");
  EXPECT_EQ(s.algorithm, "ring");
  EXPECT_EQ(s.protocol, "LL");
  EXPECT_EQ(s.transfer, "get");
  EXPECT_EQ(s.workgroups, 8u);
  const Settings compute =
      settings_of(parse(R"(, "load-store-compute": "gpu", "load-store-compute-workgroups": 256,
                           "load-store-compute-slice-cycles": 1000)"));
  EXPECT_EQ(compute.compute, "gpu");
  EXPECT_EQ(compute.compute_workgroups, 256u);
  EXPECT_EQ(compute.compute_slice_cycles, 1000u);
}

TEST(LoadStoreConfig, BadValuesNameTheirKey) {
  const auto expect_names = [](const std::string& extra, const std::string& key, const std::string& why) {
    const std::string what = error_of(extra);
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(why), std::string::npos) << what;
  };
  expect_names(R"(, "load-store-system": "dgx-z9")", "load-store-system", "unknown system 'dgx-z9'");
  expect_names(R"(, "load-store-system": 3)", "load-store-system", "must be a string");
  expect_names(R"(, "load-store-algorithm": "rung")", "load-store-algorithm", "unknown plan algorithm 'rung'");
  expect_names(R"(, "load-store-protocol": "LL64")", "load-store-protocol", "LL64");
  expect_names(R"(, "load-store-transfer": "push")", "load-store-transfer", "push");
  expect_names(R"(, "load-store-workgroups": 0)", "load-store-workgroups", "from 1 to 1024");
  expect_names(R"(, "load-store-gpu": "no-such-gpu.yaml")", "load-store-gpu", "no-such-gpu.yaml");
  expect_names(R"(, "load-store-plan-all-reduce": "missing.json")", "load-store-plan-all-reduce", "missing.json");
  expect_names(R"(, "load-store-compute": "roofline")", "load-store-compute", "'roofline' is not a compute model");
  expect_names(R"(, "load-store-compute-workgroups": 0)", "load-store-compute-workgroups", "from 1 to 65536");
  expect_names(R"(, "load-store-compute-slice-cycles": 0)", "load-store-compute-slice-cycles", "from 1 to");
  // Not a key of the algorithm: the configuration's own error.
  expect_names(R"(, "load-store-colour": "red")", "load-store-colour", "unknown key");
}

TEST(LoadStoreConfig, ComputeOnTheGpuNeedsTheGpuModelInTheRun) {
  register_load_store_algorithm();
  try {
    (void)parse_system_config(R"({"all-reduce-implementation": ["ring"], "load-store-compute": "gpu"})", "t.json");
    FAIL() << "accepted compute on a GPU model the run does not have";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("names 'load-store'"), std::string::npos) << e.what();
  }
  // Durations need no GPU model; any list naming load-store gives one.
  (void)parse_system_config(R"({"all-reduce-implementation": ["ring"], "load-store-compute": "duration"})", "t.json");
  (void)parse_system_config(R"({"all-to-all-implementation": ["load-store"], "load-store-compute": "gpu"})", "t.json");
}

TEST(LoadStoreConfig, ImplementsTheFourUnrootedCollectives) {
  register_load_store_algorithm();
  const CollectiveAlgorithmSpec& spec = find_collective_algorithm("load-store");
  EXPECT_TRUE(spec.implements_kind(CollectiveKind::kAllReduce));
  EXPECT_TRUE(spec.implements_kind(CollectiveKind::kAllToAll));
  EXPECT_FALSE(spec.implements_kind(CollectiveKind::kBroadcast));
  EXPECT_TRUE(static_cast<bool>(spec.create_run));
}

}  // namespace
}  // namespace snr::dsim::load_store
