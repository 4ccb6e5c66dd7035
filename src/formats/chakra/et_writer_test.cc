#include "formats/chakra/et_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/test_traces.h"

namespace snr::chakra {
namespace {

namespace fs = std::filesystem;

class EtWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("snr_et_writer_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(EtWriterTest, PlainFileMatchesInMemoryEncoding) {
  auto path = dir_ / "t.0.et";
  EtWriter writer(path, testing::sample_metadata());
  for (const auto& node : testing::sample_nodes()) writer.write(node);
  writer.commit();
  EXPECT_EQ(writer.nodes_written(), 6u);
  std::string expected = encode_trace(testing::sample_metadata(), testing::sample_nodes());
  EXPECT_EQ(read_file(path), expected);
  EXPECT_EQ(writer.bytes_written(), expected.size());
}

TEST_F(EtWriterTest, GzipIsDeterministicAndReadTransparently) {
  EtWriteOptions options;
  options.gzip = true;
  for (const char* name : {"a.et", "b.et"}) {
    EtWriter writer(dir_ / name, testing::sample_metadata(), options);
    for (const auto& node : testing::sample_nodes()) writer.write(node);
    writer.commit();
  }
  std::string compressed = read_file(dir_ / "a.et");
  EXPECT_EQ(compressed, read_file(dir_ / "b.et"));
  EXPECT_TRUE(is_gzip_file(dir_ / "a.et"));
  EtTrace trace = read_trace(dir_ / "a.et");
  EXPECT_EQ(encode_trace(trace.metadata, trace.nodes), encode_trace(testing::sample_metadata(), testing::sample_nodes()));
  auto reader = EtReader::open(dir_ / "a.et");
  EXPECT_TRUE(reader.gzip_compressed());
}

TEST_F(EtWriterTest, CorruptGzipIsReportedWithItsOffset) {
  EtWriteOptions options;
  options.gzip = true;
  {
    EtWriter writer(dir_ / "a.et", testing::sample_metadata(), options);
    for (const auto& node : testing::sample_nodes()) writer.write(node);
    writer.commit();
  }
  std::string bytes = read_file(dir_ / "a.et");
  write_file_atomic(dir_ / "cut.et", bytes.substr(0, bytes.size() / 2));
  try {
    read_trace(dir_ / "cut.et");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated gzip stream"), std::string::npos) << e.what();
  }
}

TEST_F(EtWriterTest, RefusesZeroLengthNodeAndLeavesNoFile) {
  auto path = dir_ / "empty.et";
  {
    EtWriter writer(path, testing::sample_metadata());
    ChakraProtoMsg::Node empty;
    try {
      writer.write(empty);
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                path.string() + ": node 0 (message 1) serializes to zero bytes (every field at its default); "
                                "readers skip zero-length records, so it would be lost");
    }
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(EtWriterTest, RefusesEmptyMetadata) {
  EXPECT_THROW(EtWriter(dir_ / "m.et", ChakraProtoMsg::GlobalMetadata()), Error);
}

}  // namespace
}  // namespace snr::chakra
