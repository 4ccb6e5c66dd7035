#include "hw/config.h"

#include "common/file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

namespace snr::hw {
namespace {

TEST(HwConfig, V4PresetMatchesPublicFigures) {
  HwConfig c = preset("tpu-v4-like");
  EXPECT_EQ(c.clock.hertz, 1050e6);
  EXPECT_EQ(c.mxu_count, 8u);
  EXPECT_EQ(c.hbm_bytes.count, 32ull << 30);
  EXPECT_EQ(c.hbm_bandwidth.bytes_per_second, 1200e9);
  EXPECT_EQ(c.vmem_blocks, 128u);
  EXPECT_EQ(c.vmem_pages_per_block, 256u);
  EXPECT_EQ(c.vmem_bytes(), 16ull << 20);
}

TEST(HwConfig, V5ePresetOverridesOnlyItsFigures) {
  HwConfig c = preset("tpu-v5e-like");
  EXPECT_EQ(c.clock.hertz, 1500e6);
  EXPECT_EQ(c.mxu_count, 4u);
  EXPECT_EQ(c.hbm_bytes.count, 16ull << 30);
  EXPECT_EQ(c.hbm_bandwidth.bytes_per_second, 819e9);
  EXPECT_EQ(c.topology, TopologyKind::kTorus2d);
  EXPECT_EQ(c.preset_name, "tpu-v5e-like");
}

TEST(HwConfig, UnknownPresetNamesKnownOnes) {
  try {
    (void)preset("tpu-v9");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tpu-v5e-like"), std::string::npos);
  }
}

TEST(HwConfig, CyclesRoundUp) {
  HwConfig c = preset("tpu-v4-like");
  c.set("clock", "1GHz");
  EXPECT_EQ(c.cycles_for(Duration{500'000}), 500u);  // 500 ns
  EXPECT_EQ(c.cycles_for(Duration{1'500}), 2u);      // 1.5 ns -> 2 cycles
  EXPECT_EQ(c.bytes_per_cycle_q16(Bandwidth{64e9}), 64u << 16);
}

std::string set_error(std::string_view key, std::string_view value) {
  HwConfig c = preset("tpu-v4-like");
  try {
    apply_overrides(c, {std::string(key) + "=" + std::string(value)});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(HwConfig, EveryUnitQuantityHasARangeNamedInErrors) {
  // The cases: 1e30TB/s used to wrap the Q16 rate to 1 B/cycle.
  EXPECT_NE(set_error("hbm.bandwidth", "1e30TB/s").find("hbm.bandwidth = 1e30TB/s is out of range"), std::string::npos)
      << set_error("hbm.bandwidth", "1e30TB/s");
  EXPECT_NE(set_error("ici.link_bandwidth", "1e30TB/s").find("ici.link_bandwidth"), std::string::npos);
  EXPECT_NE(set_error("smem.bandwidth", "1e-15GB/s").find("smem.bandwidth"), std::string::npos);
  EXPECT_NE(set_error("dma.base_latency", "2s").find("dma.base_latency"), std::string::npos);
  EXPECT_NE(set_error("clock", "1THz").find("clock"), std::string::npos);
  EXPECT_NE(set_error("hbm.bytes", "1PiB").find("hbm.bytes"), std::string::npos);
  EXPECT_NE(set_error("chips", "0").find("chips"), std::string::npos);
  // The edges of each range are accepted.
  EXPECT_EQ(set_error("hbm.bandwidth", "1PB/s"), "");
  EXPECT_EQ(set_error("hbm.bandwidth", "1MB/s"), "");
  EXPECT_EQ(set_error("ici.hop_latency", "1s"), "");
  EXPECT_EQ(set_error("ici.hop_latency", "0ns"), "");
  // Matrix units: as many as the ISA can name (mxu0..mxu31); 64 used to be
  // accepted and then fail to compile with a line per unencodable unit.
  EXPECT_EQ(set_error("mxu.count", "32"), "");
  EXPECT_NE(set_error("mxu.count", "33").find("mxu.count = 33 is out of range: valid 1 .. 32"), std::string::npos);
}

TEST(HwConfig, Q16ConversionIsCheckedBothWays) {
  HwConfig c = preset("tpu-v4-like");
  c.clock = Frequency{1e9};
  EXPECT_EQ(c.bytes_per_cycle_q16(Bandwidth{1e15}), 1'000'000ull << 16);  // largest valid bandwidth, exact
  EXPECT_EQ(c.bytes_per_cycle_q16(Bandwidth{1e9 / 65536}), 1u);           // exactly the resolution
  EXPECT_THROW((void)c.bytes_per_cycle_q16(Bandwidth{1e3}), Error);       // below 1/65536 B/cycle
  // Rates a few units above the resolution would be rounded by whole
  // percents (2MB/s at 100GHz is 1.31 units, 24% slow as 1): refused.
  c.clock = Frequency{100e9};
  EXPECT_THAT([&] { (void)c.bytes_per_cycle_q16(Bandwidth{2e6}); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("is 1.311/65536 byte per cycle, which DMA timing "
                                                                   "would round to 1/65536 (24% slower)")));
  EXPECT_THROW((void)c.bytes_per_cycle_q16(Bandwidth{50e6}), Error);      // 32.8 units: 2.4% slow
  EXPECT_EQ(c.bytes_per_cycle_q16(Bandwidth{100e6}), 65u);                 // 65.5 units: 0.8%, kept
  c.clock = Frequency{1e9};
  EXPECT_THROW((void)c.bytes_per_cycle_q16(Bandwidth{1e42}), Error);      // beyond 2^62
  // One key twice, or --chips beside --set chips, contradict each other.
  HwConfig twice = preset("tpu-v4-like");
  EXPECT_THAT([&] { apply_overrides(twice, {"chips=4", "clock=1GHz", "chips=8"}); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("key 'chips' is given twice ('4' and '8')")));
  EXPECT_THAT([] { (void)with_chips_option({"chips=8"}, "4"); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("--chips 4 and --set chips=8")));
  EXPECT_EQ(with_chips_option({"clock=1GHz"}, "4"), (std::vector<std::string>{"clock=1GHz", "chips=4"}));
  EXPECT_EQ(with_chips_option({"chips=8"}, ""), std::vector<std::string>{"chips=8"});
  // A valid bandwidth that the clock cannot resolve names the key.
  HwConfig slow = preset("tpu-v4-like");
  try {
    apply_overrides(slow, {"clock=100GHz", "smem.bandwidth=1MB/s"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("smem.bandwidth"), std::string::npos) << e.what();
  }
}

// The timing model counts whole cycles: a latency is refused, naming its
// key, when whole cycles would time it more than 1% long (a sub-cycle
// latency used to become one cycle without a word), on every latency key.
TEST(HwConfig, LatenciesAreWholeCyclesWithinOnePercent) {
  size_t latency_keys = 0;
  for (const KeyInfo& key : schema()) {
    if (key.kind != ValueKind::kDuration) continue;
    ++latency_keys;
    const std::string name(key.key);
    HwConfig c = preset("tpu-v4-like");
    EXPECT_THAT([&] { apply_overrides(c, {"clock=1GHz", name + "=0.3ns"}); },
                ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                    name + " = 300ps at 1GHz is 0.3 cycles, which the timing model (whole cycles) would run as 1 "
                           "(1ns, 233% longer); the smallest latency it represents is one cycle, 1ns (or 0ns for "
                           "none)")));
    c = preset("tpu-v4-like");
    EXPECT_THAT([&] { apply_overrides(c, {"clock=1GHz", name + "=1.3ns"}); },
                ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                    name + " = 1.3ns at 1GHz is 1.3 cycles, which the timing model (whole cycles) would run as 2 "
                           "(2ns, 53.8% longer); give a whole number of cycles, e.g. 1ns or 2ns (1 or 2 cycles)")));
    // 10ns at 1.05GHz is 10.5 cycles, 11 is 4.8% long; the suggested
    // values are those cycles.
    EXPECT_NE(set_error(name, "10ns").find("e.g. 9.523ns or 10.476ns (10 or 11 cycles)"), std::string::npos)
        << set_error(name, "10ns");
    EXPECT_EQ(set_error(name, "9.523ns"), "");
    EXPECT_EQ(set_error(name, "10.476ns"), "");
    EXPECT_EQ(set_error(name, "50ns"), "");  // 52.5 cycles as 53: 0.95% long
    EXPECT_EQ(set_error(name, "0ns"), "");
    EXPECT_NE(set_error(name, "1ns").find("is 1.05 cycles, which the timing model (whole cycles) would run as 2"),
              std::string::npos);
  }
  EXPECT_EQ(latency_keys, 2u);
  // A clock change re-checks the latencies it leaves: 500ns at 1MHz.
  EXPECT_NE(set_error("clock", "1MHz").find("dma.base_latency = 500ns at 1MHz is 0.5 cycles"), std::string::npos)
      << set_error("clock", "1MHz");
}

TEST(HwConfig, CycleConversionIsChecked) {
  HwConfig c = preset("tpu-v4-like");
  c.clock = Frequency{1e11};
  EXPECT_EQ(c.cycles_for(Duration{1'000'000'000'000}), 100'000'000'000u);  // 1 s at 100 GHz
  EXPECT_EQ(c.cycles_for(Duration{INT64_MAX}), 922'337'203'685'477'581u);  // the longest duration at the fastest clock
  c.clock = Frequency{1e15};  // beyond the valid range: the conversion itself still refuses
  EXPECT_THROW((void)c.cycles_for(Duration{INT64_MAX}), Error);
  EXPECT_THROW((void)c.cycles_for(Duration{-1}), Error);
}

TEST(HwConfig, PresetErrorsListThePresets) {
  try {
    (void)load_preset_or_file("tpu-v4");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tpu-v4-like, tpu-v5e-like"), std::string::npos) << e.what();
  }
}

TEST(HwConfig, DuplicateAndEmptyYamlAreErrors) {
  EXPECT_THROW((void)parse_config_yaml("chips: 2\nchips: 4\n", "dup.yaml"), Error);
  EXPECT_THROW((void)parse_config_yaml("hbm:\n  bandwidth: 1TB/s\n  bandwidth: 2TB/s\n", "dup.yaml"), Error);
  EXPECT_THROW((void)parse_config_yaml("# nothing\n", "empty.yaml"), Error);
}

TEST(HwConfig, YamlNestedKeysAndUnits) {
  HwConfig c = parse_config_yaml("preset: tpu-v5e-like\nchips: 4\nhbm:\n  bandwidth: 1.6TB/s\ndma: {base_latency: 1us}\n",
                                 "test.yaml");
  EXPECT_EQ(c.chip_count, 4u);
  EXPECT_EQ(c.hbm_bandwidth.bytes_per_second, 1.6e12);
  EXPECT_EQ(c.dma_base_latency.picoseconds, 1'000'000);
  EXPECT_EQ(c.mxu_count, 4u);  // from the preset
}

TEST(HwConfig, UnknownKeyNamesKeyAndLine) {
  try {
    (void)parse_config_yaml("chips: 2\nhbm:\n  bandwith: 1TB/s\n", "cfg.yaml");
    FAIL();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("cfg.yaml:3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("hbm.bandwith"), std::string::npos) << msg;
    EXPECT_NE(msg.find("hbm.bandwidth"), std::string::npos) << msg;  // the hint
  }
}

TEST(HwConfig, BadValueNamesKeyAndLine) {
  try {
    (void)parse_config_yaml("clock: 940\n", "cfg.yaml");
    FAIL();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("cfg.yaml:1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("clock"), std::string::npos) << msg;
  }
}

TEST(HwConfig, SetValidatesLikeYaml) {
  HwConfig c = preset("tpu-v4-like");
  c.set("vmem.blocks", "64");
  EXPECT_EQ(c.vmem_bytes(), 8ull << 20);
  EXPECT_THROW(c.set("vmem.blocks", "0"), Error);
  EXPECT_THROW(c.set("vmem.blokcs", "1"), Error);
  EXPECT_THROW(c.set("hbm.bandwidth", "fast"), Error);
  EXPECT_THROW(c.set("topology.kind", "mesh"), Error);
  EXPECT_EQ(c.get("vmem.blocks"), "64");
}

TEST(HwConfig, ToYamlRoundTrips) {
  HwConfig c = preset("tpu-v5e-like");
  c.set("chips", "8");
  HwConfig back = parse_config_yaml("preset: tpu-v4-like\n" + c.to_yaml(), "rt");
  EXPECT_EQ(back.to_yaml().substr(back.to_yaml().find('\n')), c.to_yaml().substr(c.to_yaml().find('\n')));
}

TEST(HwConfig, SchemaCoversEveryKeyOnce) {
  std::set<std::string_view> seen;
  for (const KeyInfo& k : schema()) {
    EXPECT_TRUE(seen.insert(k.key).second) << k.key;
    EXPECT_FALSE(k.doc.empty()) << k.key;
  }
  EXPECT_NE(schema_markdown().find("`vmem.page_bytes`"), std::string::npos);
}

TEST(HwConfig, InvalidYamlIsAnError) {
  EXPECT_THROW((void)parse_config_yaml("clock: [1, 2\n", "bad.yaml"), Error);
  EXPECT_THROW((void)parse_config_yaml("- a\n- b\n", "bad.yaml"), Error);
  EXPECT_THROW((void)parse_config_yaml("clock:\n  - 1\n", "bad.yaml"), Error);
}

}  // namespace
}  // namespace snr::hw

namespace snr::hw {
namespace {

// docs/hardware.md lists every key; the list is generated from the schema.
TEST(HwDocs, KeyListIsGeneratedFromSchema) {
  const char* source_dir = std::getenv("SNR_SOURCE_DIR");
  if (source_dir == nullptr) source_dir = SNR_SOURCE_DIR_FALLBACK;
  const std::string path = std::string(source_dir) + "/docs/hardware.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string begin = "<!-- hw-keys:begin -->\n", end = "<!-- hw-keys:end -->";
  const size_t from = doc.find(begin), to = doc.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  const std::string generated = schema_markdown();
  const std::string current = doc.substr(from + begin.size(), to - from - begin.size());
  if (current != generated && std::getenv("SNR_UPDATE_DOCS") != nullptr) {
    doc.replace(from + begin.size(), to - from - begin.size(), generated);
    write_file_atomic(path, doc);
    return;
  }
  EXPECT_EQ(current, generated) << "regenerate with SNR_UPDATE_DOCS=1";
}

}  // namespace
}  // namespace snr::hw
