#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/infragraph/infragraph.h"

namespace snr::infragraph {
namespace {

std::filesystem::path examples() {
  const char* data = std::getenv("SNR_SHARED_DATA");
  return data == nullptr ? std::filesystem::path() : std::filesystem::path(data) / "infragraph" / "examples";
}

std::vector<std::filesystem::path> current_examples() {
  const auto root = examples();
  if (root.empty() || !std::filesystem::exists(root)) return {};
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    if (e.path().parent_path().filename() == "infragraph-docs-older-schema") continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string error_of(const std::string& text, const std::string& source = "t.yaml") {
  try {
    (void)parse_infrastructure(text, source);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(InfraGraphReader, EveryCurrentExampleRoundTripsThroughYamlAndJson) {
  const auto files = current_examples();
  if (files.empty()) GTEST_SKIP() << "../shared/data/infragraph not present";
  EXPECT_EQ(files.size(), 8u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const Infrastructure a = load_infrastructure(f);
    for (auto format : {OutputFormat::kYaml, OutputFormat::kJson}) {
      const std::string text = write_document(a, format);
      const Infrastructure b = parse_infrastructure(text, "written");
      EXPECT_EQ(a, b);
      EXPECT_EQ(write_document(b, format), text) << "writer is not deterministic";
    }
  }
}

TEST(InfraGraphReader, ReadsTheFieldsOfTheClosExample) {
  const auto root = examples();
  if (root.empty() || !std::filesystem::exists(root)) GTEST_SKIP();
  const auto infra = load_infrastructure(root / "infragraph-gh-pages" / "closfabric.yaml");
  EXPECT_EQ(infra.name, "closfabric");
  ASSERT_EQ(infra.devices.size(), 2u);
  EXPECT_EQ(infra.devices[0].components[5].choice, ComponentChoice::kCustom);
  EXPECT_EQ(infra.devices[0].components[5].custom_type, "mgmt-nic");
  ASSERT_EQ(infra.links.size(), 2u);
  ASSERT_TRUE(infra.links[1].bandwidth.has_value());
  EXPECT_EQ(infra.links[1].bandwidth->unit, BandwidthUnit::kGigabitsPerSecond);
  EXPECT_EQ(infra.links[1].bandwidth->value, 400);
  EXPECT_FALSE(infra.links[1].latency.has_value());
  EXPECT_EQ(infra.instances[2].count, 3);
  EXPECT_EQ(infra.edges.size(), 16u);
  EXPECT_EQ(infra.edges[4].ep1.instance, "leafsw[0]");
  EXPECT_EQ(infra.edges[4].ep1.component, "port[2]");
  EXPECT_GT(infra.edges[4].line, 0);
}

TEST(InfraGraphReader, BareDeviceDocumentsStayBareDevices) {
  const auto root = examples();
  if (root.empty() || !std::filesystem::exists(root)) GTEST_SKIP();
  const auto infra = load_infrastructure(root / "infragraph-gh-pages" / "cx5_100gbe.yaml");
  EXPECT_TRUE(infra.bare_device);
  const std::string yaml = to_yaml(infra);
  EXPECT_EQ(yaml.find("devices:"), std::string::npos);
  EXPECT_NE(yaml.find("components:"), std::string::npos);
}

TEST(InfraGraphReader, RejectsTheOlderSchemaSayingSo) {
  const auto root = examples() / "infragraph-docs-older-schema";
  if (!std::filesystem::exists(root)) GTEST_SKIP();
  for (const char* name : {"dgxa100.yaml", "two-tier-clos-fabric-infrastructure.yaml"}) {
    SCOPED_TRACE(name);
    try {
      (void)load_infrastructure(root / name);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("older InfraGraph schema"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  // The older shapes inside a current-looking document are caught too.
  EXPECT_NE(error_of("devices:\n- name: d\n  components:\n  - {name: cpu, type: cpu}\n").find("older InfraGraph schema"),
            std::string::npos);
  const std::string listed = error_of("device:\n- name: d\n  components:\n  - {name: cpu, type: cpu, count: 1}\n");
  EXPECT_NE(listed.find(":2: device: this is the older InfraGraph schema (a top-level 'device' list)"),
            std::string::npos) << listed;
  EXPECT_NE(error_of("devices:\n- name: d\n  components: []\n  connections: [cpu.0.pcie.xpu.0]\n")
                .find("older InfraGraph schema"),
            std::string::npos);
}

TEST(InfraGraphReader, ErrorsNameFileLineObjectAndField) {
  const std::string e = error_of("devices:\n- name: d\n  components:\n  - {name: xpu, count: 2, choice: gpu}\n",
                                 "cluster.yaml");
  EXPECT_NE(e.find("cluster.yaml:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("devices[0](d).components[0](xpu).choice"), std::string::npos) << e;
}

TEST(InfraGraphWriter, EveryStringReadsBackAsWritten) {
  // A literal block keeps one final newline: strings it cannot carry are
  // written double-quoted (the first was found by the reader's fuzzer).
  for (const std::string& name :
       {std::string("a\nb"), std::string("a\nb\n"), std::string("a\n\n"), std::string("a\n\n\nb\n"),
        std::string(" lead\nx\n"), std::string("\tx\ny\n"), std::string("\nx\n"), std::string("x:|\n\n\n 1h"),
        std::string("tab\there\nx\n"), std::string("cr\r\nx\n"), std::string("x\n")}) {
    Infrastructure infra;
    infra.name = name;
    for (auto format : {OutputFormat::kYaml, OutputFormat::kJson}) {
      const Infrastructure again = parse_infrastructure(write_document(infra, format), "written");
      EXPECT_EQ(again.name, name) << (format == OutputFormat::kYaml ? "YAML" : "JSON");
    }
  }
  Infrastructure readable;
  readable.name = "two\nlines\n";
  EXPECT_NE(write_document(readable, OutputFormat::kYaml).find("name: |\n  two\n  lines\n"), std::string::npos)
      << write_document(readable, OutputFormat::kYaml);
}

TEST(InfraGraphReader, JsonAndYamlOfOneDocumentAreEqual) {
  const std::string yaml =
      "name: t\ndevices:\n- name: d\n  components: [{name: x, count: 2, choice: xpu}]\n  links: [{name: l, physical: "
      "{latency: {choice: us, us: 1.5}}}]\n  edges: [{ep1: {component: x}, ep2: {component: x}, scheme: ring, link: "
      "l}]\ninstances: [{name: i, device: d, count: 3}]\n";
  const auto a = parse_infrastructure(yaml, "a.yaml");
  const auto b = parse_infrastructure(to_json(a), "a.json");
  EXPECT_EQ(a, b);
  ASSERT_TRUE(b.devices[0].links[0].latency.has_value());
  EXPECT_DOUBLE_EQ(latency_ns(*b.devices[0].links[0].latency), 1500.0);
  EXPECT_EQ(b.devices[0].edges[0].scheme, Scheme::kRing);
}

TEST(InfraGraphSlices, ParseAndSelect) {
  auto segs = parse_slice_path("cx5[0:8].pcie_endpoint[0]");
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[0].name, "cx5");
  EXPECT_EQ(segs[0].indices(8, "t"), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(segs[1].indices(1, "t"), (std::vector<int64_t>{0}));
  EXPECT_EQ(parse_slice_path("x[1::3]")[0].indices(8, "t"), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(parse_slice_path("x[:2]")[0].indices(8, "t"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(parse_slice_path("x")[0].indices(3, "t"), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(to_string(parse_slice_path("x[1::3]")[0]), "x[1::3]");
  EXPECT_THROW((void)parse_slice_path("x[0:9]")[0].indices(8, "t"), Error);
  EXPECT_THROW((void)parse_slice_path("x[8]")[0].indices(8, "t"), Error);
  EXPECT_THROW((void)parse_slice_path("x[-1]"), Error);
  EXPECT_THROW((void)parse_slice_path("x[0:1:0]"), Error);
  EXPECT_THROW((void)parse_slice_path("x[0"), Error);
  EXPECT_THROW((void)parse_slice_path("x."), Error);
  EXPECT_THROW((void)parse_slice_path(".x"), Error);
}

}  // namespace
}  // namespace snr::infragraph
