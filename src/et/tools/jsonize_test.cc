#include "et/tools/jsonize.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/test_traces.h"

namespace snr::et {
namespace {

namespace fs = std::filesystem;

fs::path source_dir() {
  const char* dir = std::getenv("SNR_SOURCE_DIR");
  return dir != nullptr ? fs::path(dir) : fs::path(SNR_TEST_SOURCE_DIR);
}

class JsonizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("snr_jsonize_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void expect_lossless(const fs::path& et) {
    SCOPED_TRACE(et.string());
    jsonize_trace(et, dir_ / "x.json");
    unjsonize_trace(dir_ / "x.json", dir_ / "x.et");
    // gzip input comes back uncompressed: compare the .et streams.
    auto original = chakra::read_trace(et);
    EXPECT_EQ(read_file(dir_ / "x.et"), chakra::encode_trace(original.metadata, original.nodes));
    if (!chakra::is_gzip_file(et)) {
      EXPECT_EQ(read_file(dir_ / "x.et"), read_file(et));
    }
  }
  fs::path dir_;
};

TEST_F(JsonizeTest, GoldenSampleMatchesCheckedInJson) {
  fs::path testdata = source_dir() / "src/formats/chakra/testdata";
  jsonize_trace(testdata / "sample.0.et", dir_ / "sample.json");
  if (std::getenv("SNR_UPDATE_GOLDEN") != nullptr) {
    write_file_atomic(testdata / "sample.0.json", read_file(dir_ / "sample.json"));
  }
  EXPECT_EQ(read_file(dir_ / "sample.json"), read_file(testdata / "sample.0.json"));
  expect_lossless(testdata / "sample.0.et");
}

TEST_F(JsonizeTest, UnknownFieldsSurviveJsonRoundTrip) {
  auto nodes = chakra::testing::sample_nodes();
  std::string extra("\x98\x06\x05", 3);  // field 99 = 5 on the node
  std::string attr_extra("\xa0\x06\x01", 3);  // field 100 = 1 inside the first attribute
  ChakraProtoMsg::Node node;
  ASSERT_TRUE(node.ParseFromString(nodes[0].SerializeAsString() + extra));
  ASSERT_TRUE(node.mutable_attr(0)->MergeFromString(attr_extra));
  node.set_type(static_cast<ChakraProtoMsg::NodeType>(42));
  nodes[0] = node;
  write_file_atomic(dir_ / "u.et", chakra::encode_trace(chakra::testing::sample_metadata(), nodes));
  std::string json = message_to_json(node);
  EXPECT_NE(json.find("\"@unknownFields\": \"mAYF\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"type\": 42"), std::string::npos) << json;
  expect_lossless(dir_ / "u.et");
}

TEST_F(JsonizeTest, GzipInputReadsTransparently) {
  chakra::EtWriteOptions options;
  options.gzip = true;
  chakra::EtWriter writer(dir_ / "z.et", chakra::testing::sample_metadata(), options);
  for (const auto& node : chakra::testing::sample_nodes()) writer.write(node);
  writer.commit();
  expect_lossless(dir_ / "z.et");
}

TEST_F(JsonizeTest, BadJsonNamesTheNodeIndex) {
  write_file_atomic(dir_ / "bad.json",
                    "{\"globalMetadata\": {\"version\": \"0.0.4\"}, \"nodes\": [{\"id\": \"1\"}, {\"idd\": 2}]}");
  try {
    unjsonize_trace(dir_ / "bad.json", dir_ / "bad.et");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("bad.json: nodes[1]: not a valid ChakraProtoMsg.Node"), std::string::npos) << message;
  }
  EXPECT_FALSE(fs::exists(dir_ / "bad.et"));
  write_file_atomic(dir_ / "order.json", "{\"nodes\": [], \"globalMetadata\": {}}");
  EXPECT_THROW(unjsonize_trace(dir_ / "order.json", dir_ / "o.et"), Error);
  write_file_atomic(dir_ / "trunc.json", "{\"globalMetadata\": {\"version\": \"1\"}, \"nodes\": [{\"id\": ");
  EXPECT_THROW(unjsonize_trace(dir_ / "trunc.json", dir_ / "t.et"), Error);
  EXPECT_FALSE(fs::exists(dir_ / "t.et"));
}

TEST_F(JsonizeTest, RealTracesAreLossless) {
  const char* data = std::getenv("SNR_SHARED_DATA");
  if (data == nullptr || !fs::is_directory(fs::path(data) / "astra-sim")) {
    GTEST_SKIP() << "SNR_SHARED_DATA (../shared/data) not available";
  }
  size_t checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(data) / "astra-sim")) {
    if (entry.path().extension() != ".et") continue;
    expect_lossless(entry.path());
    ++checked;
  }
  EXPECT_GE(checked, 100u);
  fs::path archive = fs::path(data) / "chakra/feeder_tests_trace.tar.gz";
  std::string command = "tar -xzf '" + archive.string() + "' -C '" + dir_.string() + "' 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  expect_lossless(dir_ / "tests/data/chakra.0.et");
}

}  // namespace
}  // namespace snr::et
