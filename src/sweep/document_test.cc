#include "sweep/document.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error_of.h"

namespace snr::sweep {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

constexpr const char* kDevice = R"(device:
  name: d
  mcu: {rows: 16, cols: 16}
  frequency: 1410MHz
  memory:
    - {name: reg, scope: mcu, capacity: 64KiB, bandwidth: 721GB/s}
    - {name: hbm, scope: global, capacity: 80GiB, bandwidth: 2039GB/s}
  network:
    - {name: nvlink3, size: 8, bandwidth: 300GB/s}
)";

YAML::Node section(YAML::Node doc) {
  YAML::Node s;
  s.reset(doc["device"]);
  return s;
}

TEST(Document, SetsFieldsByPathNameIndexAndOneLevelDown) {
  YAML::Node doc = YAML::Load(kDevice);
  set_yaml_field(section(doc), "frequency", YAML::Node("1GHz"));
  set_yaml_field(section(doc), "mcu.rows", YAML::Node("32"));
  set_yaml_field(section(doc), "hbm.bandwidth", YAML::Node("3TB/s"));            // memory[name: hbm]
  set_yaml_field(section(doc), "memory.reg.capacity", YAML::Node("128KiB"));     // full path
  set_yaml_field(section(doc), "network.0.size", YAML::Node("16"));              // index
  set_yaml_field(section(doc), "cols", YAML::Node("8"));                         // mcu.cols, one level down
  set_yaml_field(section(doc), "kernel_overhead", YAML::Node("10us"));           // new key
  EXPECT_EQ(doc["device"]["frequency"].Scalar(), "1GHz");
  EXPECT_EQ(doc["device"]["mcu"]["rows"].Scalar(), "32");
  EXPECT_EQ(doc["device"]["mcu"]["cols"].Scalar(), "8");
  EXPECT_EQ(doc["device"]["memory"][1]["bandwidth"].Scalar(), "3TB/s");
  EXPECT_EQ(doc["device"]["memory"][0]["capacity"].Scalar(), "128KiB");
  EXPECT_EQ(doc["device"]["network"][0]["size"].Scalar(), "16");
  EXPECT_EQ(doc["device"]["kernel_overhead"].Scalar(), "10us");
  // Untouched fields stay.
  EXPECT_EQ(doc["device"]["memory"][1]["capacity"].Scalar(), "80GiB");
  EXPECT_EQ(doc["device"]["name"].Scalar(), "d");
}

TEST(Document, EditingACopyLeavesTheBase) {
  const YAML::Node base = YAML::Load(kDevice);
  InputEdits edits;
  const YAML::Node value("1TB/s");
  edits.fields.emplace_back("hbm.bandwidth", &value);
  const std::string text = emit_yaml(edited_copy(base, "device", edits));
  EXPECT_THAT(text, HasSubstr("1TB/s"));
  EXPECT_EQ(base["device"]["memory"][1]["bandwidth"].Scalar(), "2039GB/s");
}

TEST(Document, ScalarOnAListSetsEveryElement) {
  YAML::Node doc = YAML::Load("topology: [Ring, Switch]\nbandwidth: [50, 25]\n");
  set_yaml_field(doc, "bandwidth", YAML::Node("100"));
  EXPECT_EQ(canonical_text(doc["bandwidth"]), "[100, 100]");
  set_yaml_field(doc, "bandwidth.1", YAML::Node("7"));
  EXPECT_EQ(canonical_text(doc["bandwidth"]), "[100, 7]");
  set_yaml_field(doc, "topology", YAML::Load("[Switch]"));
  EXPECT_EQ(canonical_text(doc["topology"]), "[Switch]");
}

TEST(Document, ErrorsNameThePathAndWhatIsThere) {
  YAML::Node doc = YAML::Load(kDevice);
  EXPECT_THAT(error_of([&] { set_yaml_field(section(doc), "hbmx.bandwidth", YAML::Node("1")); }),
              HasSubstr("'hbmx.bandwidth': the input has no field 'hbmx' (it has: name, mcu, frequency, memory, network)"));
  EXPECT_THAT(error_of([&] { set_yaml_field(section(doc), "memory.l3.capacity", YAML::Node("1")); }),
              HasSubstr("'memory' has no field 'l3' (it has: reg, hbm)"));
  EXPECT_THAT(error_of([&] { set_yaml_field(section(doc), "frequency.x", YAML::Node("1")); }),
              HasSubstr("'frequency' is a value"));
  // "name" is also in every memory level and network tier one level down,
  // but the device has it directly: the direct one wins.
  set_yaml_field(section(doc), "name", YAML::Node("e"));
  EXPECT_EQ(doc["device"]["name"].Scalar(), "e");
  YAML::Node two = YAML::Load("a: {x: 1}\nb: {x: 2}\n");
  EXPECT_THAT(error_of([&] { set_yaml_field(two, "x", YAML::Node("3")); }),
              HasSubstr("'x': 'x' is ambiguous (it is a.x, b.x); write the full path"));
  EXPECT_THAT(error_of([&] { set_yaml_field(two, "a..x", YAML::Node("3")); }), HasSubstr("empty segment"));
}

TEST(Document, JsonFields) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(
      R"({"all-reduce-implementation": ["ring", "ring"], "endpoint-delay": 10, "peak-perf": 900})");
  set_json_field(j, "all-reduce-implementation", YAML::Load("[direct, halvingDoubling]"));
  set_json_field(j, "endpoint-delay", YAML::Node("20"));
  set_json_field(j, "peak-perf", YAML::Load("'1000'"));
  set_json_field(j, "local-mem-bw", YAML::Node("1.5"));
  EXPECT_EQ(j["all-reduce-implementation"], nlohmann::ordered_json::parse(R"(["direct", "halvingDoubling"])"));
  EXPECT_EQ(j["endpoint-delay"], 20);
  EXPECT_EQ(j["peak-perf"], "1000");  // quoted: a string
  EXPECT_EQ(j["local-mem-bw"], 1.5);
  set_json_field(j, "all-reduce-implementation", YAML::Node("ring"));  // every dimension
  EXPECT_EQ(j["all-reduce-implementation"], nlohmann::ordered_json::parse(R"(["ring", "ring"])"));
  EXPECT_THAT(error_of([&] { set_json_field(j, "nothing.here", YAML::Node("1")); }),
              HasSubstr("no field 'nothing' there (it has: all-reduce-implementation"));
}

TEST(Document, YamlToJsonAndCanonicalText) {
  EXPECT_EQ(yaml_to_json(YAML::Load("[1, 2.5, true, x, '7', ~]")),
            nlohmann::ordered_json::parse(R"([1, 2.5, true, "x", "7", null])"));
  EXPECT_EQ(canonical_text(YAML::Load("{a: [1, 2], b: {c: x}}")), "{a: [1, 2], b: {c: x}}");
  EXPECT_EQ(canonical_text(YAML::Node("tp=8,pp=8")), "tp=8,pp=8");
}

TEST(Document, EditsOfGroupsAPointsKeysByInput) {
  const std::vector<std::string> keys = {"device", "device.hbm.bandwidth", "devices", "model.hidden"};
  const std::vector<YAML::Node> values = {YAML::Node("h100-sxm"), YAML::Node("2TB/s"), YAML::Node("8"),
                                          YAML::Node("4096")};
  const InputEdits e = edits_of("device", keys, values);
  ASSERT_NE(e.whole, nullptr);
  EXPECT_EQ(e.whole->Scalar(), "h100-sxm");
  ASSERT_EQ(e.fields.size(), 1u);  // "devices" is another key
  EXPECT_EQ(e.fields[0].first, "hbm.bandwidth");
  EXPECT_EQ(e.signature, "device=h100-sxm\ndevice.hbm.bandwidth=2TB/s\n");
  EXPECT_TRUE(edits_of("budget", keys, values).signature.empty());
}

}  // namespace
}  // namespace snr::sweep
