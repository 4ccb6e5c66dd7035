#include <gtest/gtest.h>

#include "common/error.h"
#include "dsim/config/aux_config.h"
#include "dsim/config/network_config.h"
#include "dsim/config/system_config.h"
#include "dsim/system/algorithm_registry.h"

namespace snr::dsim {
namespace {

TEST(SystemConfig, ParsesAstraSimKeys) {
  const auto config = parse_system_config(R"({"scheduling-policy": "FIFO", "endpoint-delay": 10,
    "active-chunks-per-dimension": 2, "preferred-dataset-splits": 4,
    "all-reduce-implementation": ["ring", "direct8"], "collective-optimization": "localBWAware",
    "local-mem-bw": 3350, "boost-mode": 0, "roofline-enabled": 0, "peak-perf": 900})", "test");
  EXPECT_EQ(config.scheduling_policy, SchedulingPolicy::kFifo);
  EXPECT_EQ(config.active_chunks_per_dimension, 2);
  EXPECT_EQ(config.preferred_dataset_splits, 4);
  ASSERT_EQ(config.all_reduce.size(), 2u);
  EXPECT_EQ(config.all_reduce[1].algorithm->name, "direct");
  EXPECT_EQ(config.all_reduce[1].parameter, 8);
  EXPECT_EQ(config.collective_optimization, CollectiveOptimization::kLocalBwAware);
  EXPECT_DOUBLE_EQ(config.local_mem_bw_gbps, 3350);
}

TEST(SystemConfig, RejectsTyposAndContradictions) {
  EXPECT_THROW((void)parse_system_config(R"({"endpoint-dealy": 10})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"scheduling-policy": "RANDOM"})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"roofline-enabled": 1})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"all-reduce-implementation": ["rnig"]})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"preferred-dataset-splits": 0})", "t"), Error);
  EXPECT_THROW((void)parse_system_config("{", "t"), Error);
  try {
    (void)parse_system_config(R"({"endpoint-dealy": 10})", "sys.json");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sys.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("endpoint-dealy"), std::string::npos);
  }
}

TEST(NetworkConfig, ParsesMultiDimensional) {
  const auto config = parse_network_config(
      "topology: [ Switch, Ring ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 400.0, 50 ]\nlatency: [ 936.25, 500 ]\n", "t");
  ASSERT_EQ(config.dimensions.size(), 2u);
  EXPECT_EQ(config.dimensions[0].topology, TopologyKind::kSwitch);
  EXPECT_EQ(config.npus_count(), 32u);
  EXPECT_DOUBLE_EQ(config.dimensions[0].latency_ns, 936.25);
}

TEST(NetworkConfig, RejectsBadInput) {
  EXPECT_THROW((void)parse_network_config("topology: [ Ring ]\nnpus_count: [ 4, 2 ]\nbandwidth: [1]\nlatency: [1]\n", "t"), Error);
  EXPECT_THROW((void)parse_network_config("topology: [ Torus ]\nnpus_count: [ 4 ]\nbandwidth: [1]\nlatency: [1]\n", "t"), Error);
  EXPECT_THROW((void)parse_network_config("topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [1]\nlatency: [1]\nlatnecy: [2]\n", "t"), Error);
  EXPECT_THROW((void)parse_network_config("topology: [ Ring ]\nnpus_count: [ 1.5 ]\nbandwidth: [1]\nlatency: [1]\n", "t"), Error);
  EXPECT_THROW((void)parse_network_config("topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [0]\nlatency: [1]\n", "t"), Error);
}

TEST(AuxConfig, RemoteMemoryAndGroups) {
  EXPECT_EQ(parse_remote_memory_config(R"({"memory-type": "NO_MEMORY_EXPANSION"})", "t").memory_type,
            "NO_MEMORY_EXPANSION");
  EXPECT_THROW((void)parse_remote_memory_config(R"({"memory-type": "PER_NPU_MEMORY_EXPANSION"})", "t"), Error);
  const auto groups = parse_comm_groups(R"({"0": [0, 1], "1": [2, 3]})", "t", 4);
  EXPECT_EQ(groups.groups.at("1")[1], 3u);
  EXPECT_THROW((void)parse_comm_groups(R"({"0": [0, 9]})", "t", 4), Error);
  EXPECT_THROW((void)parse_comm_groups(R"({"0": [1, 1]})", "t", 4), Error);
}

}  // namespace
}  // namespace snr::dsim
