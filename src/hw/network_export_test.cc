#include "hw/network_export.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "hw/config.h"

namespace snr::hw {
namespace {

HwConfig config_with(const std::vector<std::string>& overrides) {
  HwConfig config = load_preset_or_file("tpu-v4-like");
  apply_overrides(config, overrides);
  return config;
}

TEST(NetworkExport, RingFromTheHardwareConfig) {
  const auto files = export_network(config_with({"chips=4"}));
  // 50 GB/s = 50e9 / 2^30 ASTRA-sim GB/s; 100 ns per hop.
  EXPECT_NE(files.network_yml.find("topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 46.566128730773926 ]\n"
                                   "latency: [ 100 ]\n"),
            std::string::npos)
      << files.network_yml;
  const auto system = nlohmann::json::parse(files.system_json);
  EXPECT_EQ(system["endpoint-delay"], 500);  // dma.base_latency
  EXPECT_EQ(system["preferred-dataset-splits"], 1);
  EXPECT_EQ(system["all-gather-implementation"], nlohmann::json::array({"direct"}));
  EXPECT_DOUBLE_EQ(system["local-mem-bw"].get<double>(), 2000.0);  // vmem.bandwidth 2 TB/s
  EXPECT_NEAR(system["peak-perf"].get<double>(), 275.25, 0.01);    // 1050 MHz x 8 x 32768
  EXPECT_EQ(nlohmann::json::parse(files.remote_memory_json)["memory-type"], "NO_MEMORY_EXPANSION");
}

TEST(NetworkExport, FollowsOverrides) {
  const auto files = export_network(config_with({"chips=8", "ici.hop_latency=250ns", "dma.base_latency=1us",
                                                 "ici.link_bandwidth=100GB/s"}));
  EXPECT_NE(files.network_yml.find("latency: [ 250 ]"), std::string::npos);
  EXPECT_NE(files.network_yml.find("bandwidth: [ 93.13225746154785 ]"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(files.system_json)["endpoint-delay"], 1000);
}

TEST(NetworkExport, TorusIsTwoRingDimensionsXFirst) {
  const auto files = export_network(config_with({"chips=8", "topology.kind=torus2d", "topology.torus_width=4"}));
  EXPECT_NE(files.network_yml.find("topology: [ Ring, Ring ]\nnpus_count: [ 4, 2 ]"), std::string::npos)
      << files.network_yml;
  EXPECT_EQ(nlohmann::json::parse(files.system_json)["all-to-all-implementation"],
            nlohmann::json::array({"oneDirect", "oneDirect"}));
}

TEST(NetworkExport, FullyConnected) {
  const auto files = export_network(config_with({"chips=4", "topology.kind=fully_connected"}));
  EXPECT_NE(files.network_yml.find("topology: [ FullyConnected ]\nnpus_count: [ 4 ]"), std::string::npos);
}

TEST(NetworkExport, RefusesOneChip) { EXPECT_THROW((void)export_network(config_with({"chips=1"})), Error); }

}  // namespace
}  // namespace snr::hw
