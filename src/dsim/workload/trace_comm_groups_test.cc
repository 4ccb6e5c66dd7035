#include "dsim/workload/trace_comm_groups.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/scratch_dir.h"
#include "dsim/simulator.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/rank_files.h"

namespace snr::dsim {
namespace {

TEST(TraceCommGroups, ReadsChakrasReprAndJsonForms) {
  CommGroups groups;
  parse_process_group_metadata(R"(['[{"pg_name": "0", "pg_desc": "default_pg", "ranks": [], "group_size": 4}]'])",
                               "t", 4, groups);
  parse_process_group_metadata(R"(["[{\"pg_name\": \"1\", \"ranks\": [2, 0]}, {\"pg_name\": \"9\", \"ranks\": [3]}]"])",
                               "t", 4, groups);
  ASSERT_EQ(groups.groups.size(), 3u);
  EXPECT_EQ(groups.groups.at("0"), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(groups.groups.at("1"), (std::vector<uint32_t>{2, 0}));  // ring order as written
  EXPECT_EQ(groups.groups.at("9"), (std::vector<uint32_t>{3}));     // a group of one: its collectives move nothing
}

TEST(TraceCommGroups, BadDescriptionsAreErrors) {
  const auto fails = [](const std::string& text, const std::string& what) {
    CommGroups groups;
    try {
      parse_process_group_metadata(text, "node 3", 4, groups);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("node 3"), std::string::npos) << e.what();
    }
  };
  fails(R"(['[{"pg_name": "1", "ranks": [0, 4]}]'])", "rank 4 does not exist");
  fails(R"(['[{"pg_name": "1", "ranks": [0, 0]}]'])", "listed twice");
  fails(R"(['[{"pg_name": "1", "ranks": [0, 1], "colour": 2}]'])", "unknown key 'colour'");
  fails(R"(['[{"ranks": [0, 1]}]'])", "pg_name must be a string");
  fails(R"(['[{"pg_name": "1", "ranks": [0, 1]}, {"pg_name": "1", "ranks": [0, 2]}]'])", "different ranks");
  fails(R"(["a", "b"])", "one string");
  fails(R"(['[{"pg_name": "1", "ranks": [0, 1]'])", "line 1");
}

// Four ranks, each with one all-reduce of 4096 B on `pg_name`; the traces
// describe groups "7" = {0, 2} and "8" = {1, 3} when `describe` is set.
std::filesystem::path write_job(const std::filesystem::path& dir, const std::vector<std::string>& pg_names,
                                bool describe) {
  std::filesystem::create_directories(dir);
  const auto prefix = dir / "job";
  for (uint64_t rank = 0; rank < 4; ++rank) {
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    chakra::EtWriter writer(chakra::rank_trace_path(prefix, rank), metadata);
    uint64_t id = 1;
    if (describe) {
      ChakraProtoMsg::Node meta;
      meta.set_id(id++);
      meta.set_name(std::string(kProcessGroupInitNode));
      meta.set_type(ChakraProtoMsg::METADATA_NODE);
      meta.mutable_inputs()->set_values(
          R"(['[{"pg_name": "0", "ranks": []}, {"pg_name": "7", "ranks": [0, 2]}, {"pg_name": "8", "ranks": [1, 3]}]'])");
      writer.write(meta);
    }
    ChakraProtoMsg::Node coll;
    coll.set_id(id);
    coll.set_name("all_reduce");
    coll.set_type(ChakraProtoMsg::COMM_COLL_NODE);
    chakra::set_is_cpu_op(coll, false);
    chakra::set_comm_type(coll, ChakraProtoMsg::ALL_REDUCE);
    chakra::set_comm_size(coll, 4096);
    const std::string& pg = pg_names[rank];
    if (!pg.empty()) chakra::set_pg_name(coll, pg);
    if (describe) coll.add_data_deps(1);
    writer.write(coll);
    writer.commit();
  }
  write_file_atomic(dir / "sys.json",
                    R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
                        "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"],
                        "collective-optimization": "baseline", "local-mem-bw": 1000})");
  write_file_atomic(dir / "net.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [100]\n");
  write_file_atomic(dir / "mem.json", R"({"memory-type": "NO_MEMORY_EXPANSION"})");
  return prefix;
}

SimulationInputs inputs_for(const std::filesystem::path& prefix) {
  SimulationInputs inputs;
  inputs.workload_prefix = prefix;
  inputs.system_configuration = prefix.parent_path() / "sys.json";
  inputs.network_configuration = prefix.parent_path() / "net.yml";
  inputs.remote_memory_configuration = prefix.parent_path() / "mem.json";
  return inputs;
}

TEST(TraceCommGroups, DefaultGroupZeroAndEmptyMeanEveryRank) {
  const auto dir = snr::testing::scratch_path("world");
  std::filesystem::remove_all(dir);
  const auto everyone = simulate_files(inputs_for(write_job(dir / "a", {"", "", "", ""}, false)));
  const auto zero = simulate_files(inputs_for(write_job(dir / "b", {"0", "0", "0", "0"}, false)));
  // Ring of 4, 4096 B all-reduce in one chunk: 2 x 3 steps of 1024 B.
  EXPECT_GT(everyone.finish_ns(), 0u);
  EXPECT_EQ(zero.finish_ns(), everyone.finish_ns());
  EXPECT_EQ(zero.bytes_sent_per_npu, everyone.bytes_sent_per_npu);
  EXPECT_EQ(everyone.bytes_sent_per_npu[0], 6u * 1024u);
  std::filesystem::remove_all(dir);
}

TEST(TraceCommGroups, GroupsFromTheTracesNeedNoGroupFile) {
  const auto dir = snr::testing::scratch_path("pairs");
  std::filesystem::remove_all(dir);
  const auto prefix = write_job(dir / "described", {"7", "8", "7", "8"}, true);
  const auto from_traces = simulate_files(inputs_for(prefix));
  // Two-member groups: all-reduce of 4096 B on a ring of 2 = 2 steps of 2048 B.
  for (const auto bytes : from_traces.bytes_sent_per_npu) EXPECT_EQ(bytes, 2u * 2048u);
  // The same groups given as a file give the same run.
  write_file_atomic(dir / "groups.json", R"({"7": [0, 2], "8": [1, 3]})");
  auto with_file = inputs_for(prefix);
  with_file.comm_group_configuration = dir / "groups.json";
  EXPECT_EQ(simulate_files(with_file).finish_ns(), from_traces.finish_ns());
  // Undescribed and no file: an error that says where groups come from.
  const auto bare = write_job(dir / "bare", {"7", "8", "7", "8"}, false);
  try {
    (void)simulate_files(inputs_for(bare));
    ADD_FAILURE() << "an undescribed pg_name was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("process_group:init"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace snr::dsim
