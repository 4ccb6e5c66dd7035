#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "common/error_of.h"
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
  EXPECT_DOUBLE_EQ(config.local_mem_bytes_per_ns, 3350);
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

// ASTRA-sim 1.0 and early 2.0 system files are "key: value" text; the error says so
// instead of quoting a JSON syntax error. A JSON error stays one.
TEST(SystemConfig, AstraSim1TextIsNamed) {
  const auto error_of = [](std::string_view text) {
    try {
      (void)parse_system_config(text, "sys.txt");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string old = error_of("scheduling-policy: LIFO\nall-reduce-implementation: ring_ring\n");
  EXPECT_NE(old.find("system configuration sys.txt: this is the older ASTRA-sim (1.0, early 2.0) text system "
                     "format"), std::string::npos)
      << old;
  EXPECT_NE(old.find("ring_ring becomes [\"ring\", \"ring\"]"), std::string::npos) << old;
  const std::string json = error_of("{\"scheduling-policy\": LIFO}");
  EXPECT_EQ(json.find("older ASTRA-sim"), std::string::npos) << json;
  EXPECT_EQ(error_of("not json at all").find("older ASTRA-sim"), std::string::npos);
  // The custom-collective key's former name says what it is called now.
  EXPECT_NE(error_of(R"({"all-reduce-implementation-chakra": ["demo/allreduce"]})")
                .find("key 'all-reduce-implementation-chakra' is ASTRA-sim's former name of "
                      "'all-reduce-implementation-custom'"),
            std::string::npos);
}

// ASTRA-sim's custom keys: one prefix per collective, beside native lists
// (the custom one wins when simulating), and per-node-custom-implementation,
// a YAML file of workload node ids to prefixes resolved beside it.
TEST(SystemConfig, CustomCollectiveKeys) {
  using ::testing::HasSubstr;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("custom_keys_" + std::to_string(::getpid()));
  fs::create_directories(dir / "algo");
  std::ofstream(dir / "algo" / "ring.0.et") << "x";
  std::ofstream(dir / "algo" / "tree.0.et") << "x";
  std::ofstream(dir / "nodes.yaml") << "12: algo/ring\n40: algo/tree\n";
  const auto config = parse_system_config(R"({"all-reduce-implementation": ["ring"],
    "all-reduce-implementation-custom": ["algo/ring"], "all-to-all-implementation-custom": ["algo/tree"],
    "per-node-custom-implementation": "nodes.yaml"})",
                                          "sys.json", dir);
  EXPECT_EQ(config.all_reduce.size(), 1u);
  EXPECT_EQ(config.all_reduce_custom, dir / "algo" / "ring");
  EXPECT_EQ(config.all_to_all_custom, dir / "algo" / "tree");
  EXPECT_TRUE(config.all_gather_custom.empty());
  ASSERT_EQ(config.per_node_custom.size(), 2u);
  EXPECT_EQ(config.per_node_custom.at(40), dir / "algo" / "tree");
  EXPECT_TRUE(config.names_custom_collectives());
  const auto error_with_nodes = [&](std::string_view yaml) {
    std::ofstream(dir / "nodes.yaml") << yaml;
    return snr::testing::error_of([&] {
      (void)parse_system_config(R"({"per-node-custom-implementation": "nodes.yaml"})", "sys.json", dir);
    });
  };
  EXPECT_THAT(error_with_nodes("12: algo/ring\n-3: algo/tree\n"),
              HasSubstr("nodes.yaml:2: '-3' is not a workload node id"));
  EXPECT_THAT(error_with_nodes("12: algo/ring\n12: algo/tree\n"), HasSubstr("nodes.yaml:2: node 12 is given twice"));
  EXPECT_THAT(error_with_nodes("12: [algo/ring]\n"), HasSubstr("nodes.yaml:1: a node id must map to one trace prefix"));
  EXPECT_THAT(error_with_nodes("12: algo/none\n"), HasSubstr("nodes.yaml:1: node 12"));
  EXPECT_THAT(error_with_nodes("- algo/ring\n"), HasSubstr("expected a mapping of workload node ids"));
  EXPECT_THAT(snr::testing::error_of([&] {
                (void)parse_system_config(R"({"per-node-custom-implementation": "missing.yaml"})", "sys.json", dir);
              }),
              HasSubstr("missing.yaml': cannot read the file"));
  EXPECT_THAT(snr::testing::error_of([&] {
                (void)parse_system_config(R"({"all-gather-implementation-custom": ["algo/ring", "algo/tree"]})",
                                          "sys.json", dir);
              }),
              HasSubstr("must be a list with one trace prefix"));
  fs::remove_all(dir);
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
  // A missing list is named.
  try {
    (void)parse_network_config("topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [1]\n", "t");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing: latency ("), std::string::npos) << e.what();
  }
}

TEST(NetworkConfig, EveryNumberHasARangeNamedInTheError) {
  const auto message = [](const std::string& bandwidth, const std::string& latency, const std::string& npus) {
    try {
      (void)parse_network_config("topology: [ Ring ]\nnpus_count: [ " + npus + " ]\nbandwidth: [ " + bandwidth +
                                     " ]\nlatency: [ " + latency + " ]\n",
                                 "net.yml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  for (const char* bad : {"1e-15", "1e-300", "0", "-50", "1e400", "2e6", ".nan", ".inf"}) {
    const std::string text = message(bad, "500", "4");
    EXPECT_NE(text.find("net.yml"), std::string::npos) << bad;
    EXPECT_NE(text.find("'bandwidth'"), std::string::npos) << text;
    EXPECT_NE(text.find("out of range"), std::string::npos) << text;
    EXPECT_NE(text.find("valid 0.0001 .. 1e+06 GB/s"), std::string::npos) << text;
  }
  EXPECT_EQ(message("0.0001", "0", "4"), "accepted");
  // The slowest link `snr hw export-network` writes: 1 MB/s.
  EXPECT_EQ(message("0.0009313225746154785", "0", "4"), "accepted");
  EXPECT_EQ(message("1e6", "1e9", "4"), "accepted");
  for (const char* bad : {"-1", "1e10", "1e400"}) {
    const std::string text = message("50", bad, "4");
    EXPECT_NE(text.find("'latency'"), std::string::npos) << text;
    EXPECT_NE(text.find("valid 0 .. 1e+09 ns"), std::string::npos) << text;
  }
  for (const char* bad : {"0", "-4", "1e9", "2.5"}) {
    EXPECT_NE(message("50", "500", bad).find("'npus_count'"), std::string::npos) << bad;
  }
}

TEST(NetworkConfig, OneNpuOnlyAsTheOnlyDimension) {
  const auto single = parse_network_config("topology: [ Ring ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n", "t");
  EXPECT_EQ(single.npus_count(), 1u);
  EXPECT_THROW((void)parse_network_config(
                   "topology: [ Ring, Switch ]\nnpus_count: [ 1, 4 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 5, 5 ]\n", "t"),
               Error);
}

TEST(NetworkConfig, DuplicateKeysAreErrorsNamingBothLines) {
  try {
    (void)parse_network_config(
        "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\nbandwidth: [ 1e-15 ]\n",
        "net.yml");
    FAIL() << "duplicate key accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("net.yml:5: duplicate key 'bandwidth' (first at line 3)"), std::string::npos)
        << e.what();
  }
}

TEST(SystemConfig, KnownAstraSimKeysAreRefusedWithTheReasonTyposStayUnknown) {
  for (const char* key : {"L", "o", "g", "G", "local-reduction-delay"}) {
    try {
      (void)parse_system_config(fmt::format(R"({{"{}": 0}})", key), "sys.json");
      FAIL() << key << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("known ASTRA-sim key, not modelled by snr: {} (", key)),
                std::string::npos)
          << e.what();
    }
  }
  try {
    (void)parse_system_config(R"({"scheduling-policy": "EXPLICIT"})", "sys.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not modelled by snr: scheduling-policy EXPLICIT"), std::string::npos);
  }
  for (const char* typo : {"l", "GG", "local-reduction-dealy"}) {
    try {
      (void)parse_system_config(fmt::format(R"({{"{}": 0}})", typo), "sys.json");
      FAIL() << typo;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("unknown key '{}'", typo)), std::string::npos) << e.what();
    }
  }
}

// The error parsing `json` gives, "" when it parses.
std::string system_config_error(std::string_view json) {
  return snr::testing::error_of([&] { (void)parse_system_config(json, "sys.json"); });
}

// ASTRA-sim ignores keys it does not know, so a misspelt key keeps its
// default there without a word; snr refuses it and names the key meant.
TEST(SystemConfig, AMisspeltKeyNamesTheKeyMeant) {
  using ::testing::HasSubstr;
  EXPECT_THAT(system_config_error(R"({"local_mem_bw": 50})"),
              HasSubstr("unknown key 'local_mem_bw'; did you mean 'local-mem-bw'?"));
  EXPECT_THAT(system_config_error(R"({"active-chunks-per-dimnesion": 1})"),
              HasSubstr("did you mean 'active-chunks-per-dimension'?"));
  EXPECT_THAT(system_config_error(R"({"all-reduce-implementation-custm": "x"})"),
              HasSubstr("did you mean 'all-reduce-implementation-custom'?"));  // a key an algorithm owns
  EXPECT_EQ(system_config_error(R"({"bandwidth": [1]})"), "system configuration sys.json: unknown key 'bandwidth'");
}

// ASTRA-sim 2.0's chunk schedulers: the values that mean what current
// ASTRA-sim and snr run are read, the others refused with what runs.
TEST(SystemConfig, DimensionSchedulingKeysOfAstraSim2) {
  using ::testing::HasSubstr;
  EXPECT_EQ(system_config_error(R"({"intra-dimension-scheduling": "FIFO", "inter-dimension-scheduling": "baseline"})"),
            "");
  EXPECT_EQ(system_config_error(R"({"inter-dimension-scheduling": "ascending"})"), "");
  EXPECT_THAT(system_config_error(R"({"intra-dimension-scheduling": "SCF"})"),
              HasSubstr("not modelled by snr: intra-dimension-scheduling 'SCF'"));
  EXPECT_THAT(system_config_error(R"({"inter-dimension-scheduling": "themis"})"),
              HasSubstr("set baseline or remove the key"));
  EXPECT_THAT(system_config_error(R"({"inter-dimension-scheduling": 1})"), HasSubstr("inter-dimension-scheduling"));
}

TEST(SystemConfig, RatesHaveRangesAndInjectionScaleMultipliesAGivenEndpointDelay) {
  EXPECT_THROW((void)parse_system_config(R"({"local-mem-bw": 1e-300})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"peak-perf": 1e30})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"preferred-dataset-splits": 1000000000})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"active-chunks-per-dimension": 65537})", "t"), Error);
  // An integer key given a real says its range and what it got.
  for (const auto& [text, got] : {std::pair{R"({"endpoint-delay": 1e30})", "1e+30"},
                                  std::pair{R"({"endpoint-delay": 10.5})", "10.5"}}) {
    try {
      (void)parse_system_config(text, "sys.json");
      ADD_FAILURE() << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format(
                    "sys.json: key 'endpoint-delay' must be an integer from 0 to 1000000000, got {}", got)),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(parse_system_config(R"({"preferred-dataset-splits": 65536})", "t").preferred_dataset_splits, 65536);
  EXPECT_EQ(parse_system_config(R"({"local-mem-bw": 0})", "t").local_mem_bytes_per_ns, 0);
  auto given = parse_system_config(R"({"endpoint-delay": 10})", "t");
  apply_injection_scale(given, 2.55);
  EXPECT_EQ(given.endpoint_delay_ns, 25u);  // truncated, as ASTRA-sim stores it in an int
  auto defaulted = parse_system_config("{}", "t");
  apply_injection_scale(defaulted, 3);
  EXPECT_EQ(defaulted.endpoint_delay_ns, 10u);  // ASTRA-sim scales only a given endpoint-delay
  EXPECT_THROW(apply_injection_scale(given, -1), Error);
}

TEST(AuxConfig, RemoteMemoryAndGroups) {
  EXPECT_EQ(parse_remote_memory_config(R"({"memory-type": "NO_MEMORY_EXPANSION"})", "t").memory_type,
            "NO_MEMORY_EXPANSION");
  const auto pool = parse_remote_memory_config(
      R"({"memory-type": "MEMORY_POOL", "remote-mem-latency": 500, "remote-mem-bw": 100})", "t");
  EXPECT_EQ(pool.type, RemoteMemoryType::kMemoryPool);
  EXPECT_EQ(pool.latency_ns, 500u);
  EXPECT_EQ(pool.bandwidth_bytes_per_ns, 100u);
  const auto per_node = parse_remote_memory_config(
      R"({"memory-type": "PER_NODE_MEMORY_EXPANSION", "num-nodes": 2, "num-npus-per-node": 4, "remote-mem-bw": 8})",
      "t");
  EXPECT_EQ(per_node.num_nodes * per_node.num_npus_per_node, 8u);
  // Needs a bandwidth; per node needs its layout; whole numbers in range.
  EXPECT_THROW((void)parse_remote_memory_config(R"({"memory-type": "PER_NPU_MEMORY_EXPANSION"})", "t"), Error);
  EXPECT_THROW((void)parse_remote_memory_config(R"({"memory-type": "PER_NODE_MEMORY_EXPANSION", "remote-mem-bw": 8})",
                                                "t"),
               Error);
  EXPECT_THROW((void)parse_remote_memory_config(R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 1.5})", "t"),
               Error);
  EXPECT_THROW((void)parse_remote_memory_config(R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 0})", "t"), Error);
  EXPECT_THROW(
      (void)parse_remote_memory_config(R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 1, "remote-mem-latency": -1})",
                                       "t"),
      Error);
  EXPECT_THROW((void)parse_remote_memory_config(R"({"memory-type": "CXL"})", "t"), Error);
  EXPECT_THROW((void)parse_remote_memory_config(R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 1, "x": 1})", "t"),
               Error);
  const auto groups = parse_comm_groups(R"({"0": [0, 1], "1": [2, 3]})", "t", 4);
  EXPECT_EQ(groups.groups.at("1")[1], 3u);
  EXPECT_THROW((void)parse_comm_groups(R"({"0": [0, 9]})", "t", 4), Error);
  EXPECT_THROW((void)parse_comm_groups(R"({"0": [1, 1]})", "t", 4), Error);
  // A group of one, as Symbolic Tensor Graph writes per rank for a parallel
  // dimension of size 1; an empty group is an error.
  EXPECT_EQ(parse_comm_groups(R"({"9": [2]})", "t", 4).groups.at("9"), (std::vector<uint32_t>{2}));
  EXPECT_THROW((void)parse_comm_groups(R"({"9": []})", "t", 4), Error);
}

TEST(SystemConfig, TheLocalMemoryTrackerAndTraceEnabledAreRead) {
  const auto tracked = parse_system_config(
      R"({"track-local-mem": 1, "local-mem-trace-filename": "mem_trace/local_memory_trace", "trace-enabled": 1})",
      "sys.json");
  EXPECT_TRUE(tracked.track_local_mem);
  EXPECT_EQ(tracked.local_mem_trace_filename, "mem_trace/local_memory_trace");
  EXPECT_TRUE(tracked.trace_enabled);
  const auto defaults = parse_system_config("{}", "sys.json");
  EXPECT_FALSE(defaults.track_local_mem);
  EXPECT_EQ(defaults.local_mem_trace_filename, "local_mem_trace");  // ASTRA-sim's default
  // The file name is read even with the tracker off, as ASTRA-sim does.
  EXPECT_EQ(parse_system_config(R"({"local-mem-trace-filename": "m"})", "t").local_mem_trace_filename, "m");
  EXPECT_THROW((void)parse_system_config(R"({"local-mem-trace-filename": ""})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"local-mem-trace-filename": 3})", "t"), Error);
  EXPECT_THROW((void)parse_system_config(R"({"track-local-mem": 2})", "t"), Error);
  EXPECT_TRUE(parse_system_config(R"({"replay-only": 1})", "t").replay_only);
  EXPECT_THROW((void)parse_system_config(R"({"boost-mode": 1})", "t"), Error);
}

}  // namespace
}  // namespace snr::dsim
