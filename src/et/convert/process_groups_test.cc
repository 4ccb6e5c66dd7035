#include "et/convert/process_groups.h"

#include <gtest/gtest.h>

#include <string>

#include "formats/pytorch/host_trace.h"

namespace snr::et_convert {
namespace {

// A host trace with a "## process_group:init ##" record describing `groups`
// (its JSON text) and one all_reduce on group `used`.
pytorch::HostTrace trace_with_groups(const std::string& groups, const std::string& used) {
  const nlohmann::json empty = {{"values", nlohmann::json::array()},
                                {"shapes", nlohmann::json::array()},
                                {"types", nlohmann::json::array()}};
  nlohmann::json init = {{"id", 3}, {"name", "## process_group:init ##"}, {"ctrl_deps", 2},
                         {"inputs", {{"values", {groups}}, {"shapes", {nlohmann::json::array()}}, {"types", {"String"}}}},
                         {"outputs", empty}, {"attrs", nlohmann::json::array()}};
  nlohmann::json comm = {
      {"id", 4}, {"name", "record_param_comms"}, {"ctrl_deps", 2},
      {"inputs", {{"values", {nlohmann::json::array({{10, 11, 0, 4, 4, "cuda:0"}}), 7, {used, "desc"}, 0, "allreduce"}},
                  {"shapes", {{{4}}, nlohmann::json::array(), nlohmann::json::array(), nlohmann::json::array(),
                              nlohmann::json::array()}},
                  {"types", {"GenericList[Tensor(float)]", "Int", "Tuple[String,String]", "Int", "String"}}}},
      {"outputs", empty}, {"attrs", nlohmann::json::array()}};
  const nlohmann::json document = {{"schema", "1.1.1-chakra.0.0.4"}, {"pid", 1}, {"nodes", {init, comm}}};
  return pytorch::parse_host_trace(document, "constructed");
}

TEST(ProcessGroups, WorldGroupWithEmptyRanksIsEveryRank) {
  const auto trace = trace_with_groups(
      R"([{"pg_name": "0", "backend_id": 1, "ranks": [], "group_size": 4},
          {"pg_name": "1", "backend_id": 2, "ranks": [0, 2], "group_size": 2}])",
      "1");
  const auto derived = derive_process_groups(trace);
  ASSERT_EQ(derived.groups.size(), 2u);
  EXPECT_EQ(derived.groups[0].name, "0");
  EXPECT_TRUE(derived.groups[0].every_rank);
  EXPECT_EQ(derived.groups[0].ranks, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(derived.groups[1].ranks, (std::vector<int64_t>{0, 2}));
  EXPECT_TRUE(derived.undescribed.empty());
  EXPECT_EQ(comm_groups_json(derived), "{\n  \"0\": [0,1,2,3],\n  \"1\": [0,2]\n}\n");
}

TEST(ProcessGroups, UndescribedAndBadGroupsAreReported) {
  const auto trace = trace_with_groups(
      R"([{"pg_name": "0", "ranks": [1, 1]}, {"pg_name": "5", "ranks": [], "group_size": 0}])",
      "94594108284448");
  const auto derived = derive_process_groups(trace);
  EXPECT_TRUE(derived.groups.empty());
  ASSERT_EQ(derived.notes.size(), 2u);
  EXPECT_NE(derived.notes[0].find("repeated or negative ranks"), std::string::npos);
  EXPECT_NE(derived.notes[1].find("no group_size"), std::string::npos);
  ASSERT_EQ(derived.undescribed.size(), 1u);
  EXPECT_EQ(derived.undescribed[0], "94594108284448");
  EXPECT_EQ(comm_groups_json(derived), "{}\n");
}

}  // namespace
}  // namespace snr::et_convert
