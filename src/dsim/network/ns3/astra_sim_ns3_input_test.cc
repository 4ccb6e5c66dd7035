#include "dsim/network/ns3/astra_sim_ns3_input.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "common/error_of.h"
#include "common/file_io.h"

namespace snr::dsim {
namespace {

using ::testing::HasSubstr;

using snr::testing::error_of;

TEST(AstraSimNs3Input, Ns3RateAndTimeStrings) {
  EXPECT_DOUBLE_EQ(parse_ns3_data_rate_gbit_per_s("400Gbps", "t"), 400);
  EXPECT_DOUBLE_EQ(parse_ns3_data_rate_gbit_per_s("25Gb/s", "t"), 25);
  EXPECT_DOUBLE_EQ(parse_ns3_data_rate_gbit_per_s("100Mbps", "t"), 0.1);
  EXPECT_DOUBLE_EQ(parse_ns3_data_rate_gbit_per_s("1Tbps", "t"), 1000);
  EXPECT_DOUBLE_EQ(parse_ns3_data_rate_gbit_per_s("2GB/s", "t"), 16);           // bytes
  EXPECT_DOUBLE_EQ(parse_ns3_data_rate_gbit_per_s("1Gib/s", "t"), 1.073741824);  // binary prefix
  EXPECT_DOUBLE_EQ(parse_ns3_time_ns("0.0005ms", "t"), 500);
  EXPECT_DOUBLE_EQ(parse_ns3_time_ns("0.005ms", "t"), 5000);
  EXPECT_DOUBLE_EQ(parse_ns3_time_ns("1us", "t"), 1000);
  EXPECT_DOUBLE_EQ(parse_ns3_time_ns("250ns", "t"), 250);
  EXPECT_THAT(error_of([] { parse_ns3_data_rate_gbit_per_s("400G", "line 3"); }),
              HasSubstr("line 3: data rate '400G'"));
  EXPECT_THAT(error_of([] { parse_ns3_data_rate_gbit_per_s("fast", "t"); }), HasSubstr("is not a bandwidth"));
  // The rate as written, not as rewritten for snr's unit parser.
  EXPECT_THAT(error_of([] { parse_ns3_data_rate_gbit_per_s("400Xbps", "line 5"); }),
              HasSubstr("line 5: data rate '400Xbps' is not an ns-3 rate"));
  EXPECT_THAT(error_of([] { parse_ns3_time_ns("5", "t"); }), HasSubstr("time '5': unknown duration unit"));
  EXPECT_THAT(error_of([] { parse_ns3_time_ns("-1ms", "t"); }), HasSubstr("negative"));
}

TEST(AstraSimNs3Input, TopologyFileWithItsSwitchesLast) {
  Ns3NetworkConfig config;
  parse_astra_sim_ns3_topology("5 1 4\n4\n4 0 400Gbps 0.0005ms 0\n4 1 400Gbps 0.0005ms 0\n"
                               "4 2 400Gbps 0.0005ms 0\n4 3 200Gbps 0.001ms 0\n",
                               "topo.txt", config);
  EXPECT_EQ(config.npus, 4u);
  EXPECT_EQ(config.switches, 1u);
  ASSERT_EQ(config.links.size(), 4u);
  EXPECT_EQ(config.links[3].from, 4u);
  EXPECT_EQ(config.links[3].to, 3u);
  EXPECT_DOUBLE_EQ(config.links[3].bandwidth_gbit_per_s, 200);
  EXPECT_DOUBLE_EQ(config.links[3].latency_ns, 1000);
  // A ring without switches (an empty switch line is no line at all).
  parse_astra_sim_ns3_topology("3 0 3\n\n0 1 25Gbps 0.005ms 0\n1 2 25Gbps 0.005ms 0\n2 0 25Gbps 0.005ms 0\n", "r",
                               config);
  EXPECT_EQ(config.npus, 3u);
  EXPECT_EQ(config.switches, 0u);
  const auto fails = [](const char* text, const char* what) {
    Ns3NetworkConfig c;
    EXPECT_THAT(error_of([&] { parse_astra_sim_ns3_topology(text, "topo.txt", c); }), HasSubstr(what)) << text;
  };
  fails("3 1 2\n0\n0 1 1Gbps 1ns 0\n0 2 1Gbps 1ns 0\n", "ASTRA-sim runs NPU i on node i");
  fails("3 1 3\n2\n2 0 1Gbps 1ns 0\n2 1 1Gbps 1ns 0\n", "3 links declared, 2 given");
  fails("3 1 2\n2\n2 0 1Gbps 1ns 0.01\n2 1 1Gbps 1ns 0\n", "only 0 is modelled (no packet loss");
  fails("3 1 2\n2\n2 0 1Gbps 1ns\n2 1 1Gbps 1ns 0\n", "line 3: a link is");
  fails("3 1 2\n2\n2 5 1Gbps 1ns 0\n2 1 1Gbps 1ns 0\n", "line 3: dst: '5' is not a whole number in 0 .. 2");
  // Out of snr's ns-3 ranges: said at the topology file's own line.
  fails("3 1 2\n2\n2 0 0Gbps 1ns 0\n2 1 1Gbps 1ns 0\n",
        "line 3: rate '0Gbps' is out of range: valid 0.001 .. 1000000 Gb/s");
  fails("3 1 2\n2\n2 0 1Gbps 2s 0\n2 1 1Gbps 1ns 0\n", "line 3: delay '2s' is out of range");
  fails("3 1 2\n2\n2 2 1Gbps 1ns 0\n2 1 1Gbps 1ns 0\n", "line 3: joins node 2 to itself");
  fails("3 3 0\n0 1 2\n", "all of them switches");
  fails("3 2 1\n2\n", "2 switch ids declared, 1 found");
  fails("nodes\n", "the first line must be");
}

TEST(AstraSimNs3Input, SettingsKeepWhatIsModelledAndNameTheRest) {
  const auto settings = parse_astra_sim_ns3_settings(
      "ENABLE_QCN 1\n\nPACKET_PAYLOAD_SIZE 1000\nTOPOLOGY_FILE ../../scratch/topology/t.txt\n"
      "FLOW_FILE ../../scratch/output/flow.txt\nCC_MODE 12\nRATE_AI 50Mb/s\nERROR_RATE_PER_LINK 0.0000\n"
      "LINK_DOWN 0 0 0\nKMAX_MAP 2 25000000000 400 40000000000 800\nBUFFER_SIZE 32\n",
      "config.txt");
  EXPECT_EQ(settings.topology_file, "../../scratch/topology/t.txt");
  EXPECT_EQ(settings.packet_payload_bytes, 1000u);
  EXPECT_EQ(settings.port_queue_bytes, uint64_t{32} << 20);
  EXPECT_EQ(settings.transport_keys, (std::vector<std::string>{"ENABLE_QCN", "CC_MODE", "RATE_AI", "KMAX_MAP"}));
  const auto fails = [](const char* text, const char* what) {
    EXPECT_THAT(error_of([&] { (void)parse_astra_sim_ns3_settings(text, "config.txt"); }), HasSubstr(what)) << text;
  };
  fails("TOPOLOGY_FILE t\nLINK_DOWN 1000 0 1\n", "line 2: LINK_DOWN: only \"0 0 0\"");
  fails("TOPOLOGY_FILE t\nERROR_RATE_PER_LINK 0.001\n", "only 0 is modelled");
  fails("TOPOLOGY_FILE t\nTOPOLOGY_FLIE u\n", "line 2: TOPOLOGY_FLIE: unknown key");
  fails("TOPOLOGY_FILE t\nTOPOLOGY_FILE u\n", "is given twice");
  fails("PACKET_PAYLOAD_SIZE 1000\n", "TOPOLOGY_FILE is missing");
  fails("TOPOLOGY_FILE t\nPACKET_PAYLOAD_SIZE 1e3\n", "not a whole number");
  fails("TOPOLOGY_FILE t\nPACKET_PAYLOAD_SIZE 0\n",
        "line 2: PACKET_PAYLOAD_SIZE: '0' is not a whole number in 64 .. 65000");
  fails("TOPOLOGY_FILE t\nBUFFER_SIZE 0\n", "line 2: BUFFER_SIZE: '0' is not a whole number in 1 .. 4095");
  fails("TOPOLOGY_FILE\n", "has no value");
}

TEST(AstraSimNs3Input, LogicalDimsAsAstraSimWritesThem) {
  EXPECT_EQ(parse_astra_sim_logical_dims(R"({"logical-dims": ["8", "2"]})", "l.json"), (std::vector<uint32_t>{8, 2}));
  EXPECT_EQ(parse_astra_sim_logical_dims(R"({"logical-dims": [16]})", "l.json"), (std::vector<uint32_t>{16}));
  EXPECT_THAT(error_of([] { (void)parse_astra_sim_logical_dims(R"({"logical-dims": ["0"]})", "l.json"); }),
              HasSubstr("logical topology l.json: logical-dims[0] is 0"));
  EXPECT_THAT(error_of([] { (void)parse_astra_sim_logical_dims(R"({"logical-dims": ["x"]})", "l.json"); }),
              HasSubstr("not a whole number"));
  EXPECT_THAT(error_of([] { (void)parse_astra_sim_logical_dims(R"({"dims": ["8"]})", "l.json"); }),
              HasSubstr("unknown key 'dims'"));
}

TEST(AstraSimNs3Input, TheTopologyFileIsFoundAsAstraSimsRunScriptsNameIt) {
  namespace fs = std::filesystem;
  // The fork's layout: scratch/config/config.txt names
  // ../../scratch/topology/t.txt, relative to build/scratch.
  const fs::path root = fs::temp_directory_path() / ("astra_ns3_input_" + std::to_string(::getpid()));
  fs::create_directories(root / "scratch" / "config");
  fs::create_directories(root / "scratch" / "topology");
  write_file_atomic(root / "scratch" / "topology" / "t.txt",
                    "3 1 2\n2\n2 0 100Gbps 0.001ms 0\n2 1 100Gbps 0.001ms 0\n");
  const fs::path config = root / "scratch" / "config" / "config.txt";
  const std::string text = "TOPOLOGY_FILE ../../scratch/topology/t.txt\nCC_MODE 12\nPACKET_PAYLOAD_SIZE 1000\n";
  const auto input = read_astra_sim_ns3_input(text, config, {2});
  EXPECT_EQ(input.topology_file, root / "scratch" / "topology" / "t.txt");
  EXPECT_EQ(input.config.npus, 2u);
  EXPECT_EQ(input.config.logical_dims, (std::vector<uint32_t>{2}));
  ASSERT_EQ(input.notes.size(), 1u);
  EXPECT_THAT(input.notes[0], HasSubstr("1 RDMA transport settings of ASTRA-sim's ns-3 fork (CC_MODE)"));
  // What it reads is a configuration snr's own reader accepts as written.
  const Ns3NetworkConfig back = parse_ns3_network(ns3_network_yaml(input.config, "translated"), "back");
  EXPECT_EQ(back.links.size(), 2u);
  EXPECT_THAT(error_of([&] { (void)read_astra_sim_ns3_input(text, config, {4}); }),
              HasSubstr("the logical dimensions [4] hold 4 NPUs, the topology only 2"));
  // Fewer NPUs than hosts: ASTRA-sim runs NPU i on node i and leaves the
  // other hosts idle; they stay in the network, named, without an NPU.
  const auto one = read_astra_sim_ns3_input(text, config, {1});
  EXPECT_EQ(one.config.npus, 1u);
  EXPECT_EQ(one.config.switches, 2u);
  EXPECT_EQ(one.config.links.size(), 2u);
  EXPECT_EQ(one.config.node_name(0), "npu0");
  EXPECT_EQ(one.config.node_name(1), "host1");
  EXPECT_EQ(one.config.node_name(2), "switch0");
  ASSERT_EQ(one.notes.size(), 2u);
  EXPECT_THAT(one.notes[0], HasSubstr("the logical dimensions hold 1 NPUs: hosts 1..1 of the topology's 2 run none"));
  EXPECT_THAT(error_of([&] { (void)read_astra_sim_ns3_input("TOPOLOGY_FILE nowhere/t2.txt\n", config, {}); }),
              HasSubstr("TOPOLOGY_FILE 'nowhere/t2.txt' was not found"));
  fs::remove_all(root);
}

TEST(AstraSimNs3Input, TheFormatIsToldApartFromSnrsYaml) {
  EXPECT_TRUE(is_astra_sim_ns3_config("ENABLE_QCN 1\nTOPOLOGY_FILE t\n"));
  EXPECT_TRUE(is_astra_sim_ns3_config("\n# a comment\nTOPOLOGY_FILE t\n"));
  EXPECT_FALSE(is_astra_sim_ns3_config("npus: 8\nswitches: 1\n"));
  EXPECT_FALSE(is_astra_sim_ns3_config("topology: [ Ring ]\n"));
  EXPECT_FALSE(is_astra_sim_ns3_config(""));
}

}  // namespace
}  // namespace snr::dsim
