#include "formats/pytorch/host_trace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.h"

namespace snr::pytorch {
namespace {

std::filesystem::path corpus(const std::string& name) {
  return std::filesystem::path(SNR_PYTORCH_FORMATS_DIR) / "fuzz_corpus" / name;
}

std::filesystem::path shared_data(const std::string& relative) {
  const char* dir = std::getenv("SNR_SHARED_DATA");
  return dir ? std::filesystem::path(dir) / relative : std::filesystem::path();
}

TEST(HostTrace, ReadsFlatSchema101) {
  const auto trace = read_host_trace(corpus("host/schema_1_0_1.json"));
  EXPECT_EQ(trace.schema, "1.0.1");
  ASSERT_EQ(trace.nodes.size(), 2u);
  const HostNode& add = trace.nodes[1];
  EXPECT_EQ(add.name, "aten::add");
  EXPECT_EQ(add.parent_id, 2u);
  EXPECT_EQ(add.rf_id, 1u);
  EXPECT_EQ(add.tid, 1u);
  ASSERT_EQ(add.input_tensors.size(), 2u);
  EXPECT_EQ(add.input_tensors[1].tensor_id, 3u);
  EXPECT_EQ(add.input_tensors[1].size_bytes, 16u);  // 2x2 float
  ASSERT_EQ(add.output_tensors.size(), 1u);
  EXPECT_EQ(add.output_tensors[0].device, "cuda:0");
  EXPECT_TRUE(trace.skipped.empty());
}

TEST(HostTrace, ReadsNestedSchema102WithProcessGroups) {
  const auto trace =
      read_host_trace(corpus("host/schema_1_0_2_comms.json"));
  ASSERT_EQ(trace.nodes.size(), 3u);
  ASSERT_EQ(trace.process_groups.size(), 1u);
  EXPECT_EQ(trace.process_groups[0].pg_name, "0");
  EXPECT_EQ(trace.process_groups[0].group_size, 2);
  EXPECT_EQ(trace.process_groups[0].ranks, (std::vector<int64_t>{0, 1}));
  const HostNode& comm = trace.nodes[2];
  EXPECT_EQ(comm.rf_id, 2u);
  ASSERT_EQ(comm.input_tensors.size(), 1u);
  EXPECT_EQ(comm.input_tensors[0].size_bytes, 64u);  // 16 floats inside a GenericList
}

TEST(HostTrace, SkipsAndCountsBadRecords) {
  const auto trace = parse_host_trace_text(
      R"({"nodes": [{"id": "x"}, {"id": 3, "name": 4}, {"id": 5, "name": "a", "inputs": [1], "input_types": []},
                    {"id": 6, "name": "ok"}, {"id": 6, "name": "dup"}]})",
      "mem");
  ASSERT_EQ(trace.nodes.size(), 1u);
  ASSERT_EQ(trace.skipped.size(), 4u);
  EXPECT_EQ(trace.skipped[0].index, 0u);
  EXPECT_EQ(trace.skipped[1].id, "3");
  EXPECT_NE(trace.skipped[2].reason.find("1 values but 0 types"), std::string::npos);
  EXPECT_EQ(trace.skipped[3].reason, "duplicate id");
}

TEST(HostTrace, BrokenJsonNamesByteOffset) {
  try {
    parse_host_trace_text(R"({"nodes": [ {"id": 1,, }]})", "broken.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("broken.json"), std::string::npos) << message;
    EXPECT_NE(message.find("line 1, column 23 (byte 22)"), std::string::npos) << message;
  }
  EXPECT_THROW(parse_host_trace_text(R"({"traceEvents": []})", "kineto.json"), Error);
}

TEST(HostTrace, DtypeSizes) {
  EXPECT_EQ(dtype_size_bytes("float"), 4u);
  EXPECT_EQ(dtype_size_bytes("c10::BFloat16"), 2u);
  EXPECT_EQ(dtype_size_bytes("long int"), 8u);
  EXPECT_EQ(dtype_size_bytes("mystery"), 0u);
}

TEST(HostTrace, RealTracesAllSchemas) {
  const auto hta = shared_data("pytorch/hta/benchmark_simple_add_et.json.gz");
  const auto linear = shared_data("pytorch/param/linear_et.json.gz");
  if (hta.empty() || !std::filesystem::exists(hta) || !std::filesystem::exists(linear)) {
    GTEST_SKIP() << "shared data (../shared/data/pytorch) not present";
  }
  // Node counts: len(json["nodes"]) of each file.
  const auto hta_trace = read_host_trace(hta);
  EXPECT_EQ(hta_trace.schema, "1.0.1");
  EXPECT_EQ(hta_trace.nodes.size(), 38u);
  EXPECT_TRUE(hta_trace.skipped.empty());
  const auto linear_trace = read_host_trace(linear);
  EXPECT_EQ(linear_trace.nodes.size(), 931u);
  EXPECT_TRUE(linear_trace.skipped.empty());
  // First aten::as_strided (id 12): input 0 is a 1024x1024 float tensor.
  const auto& as_strided = linear_trace.nodes[1];
  EXPECT_EQ(as_strided.id, 12u);
  ASSERT_FALSE(as_strided.input_tensors.empty());
  EXPECT_EQ(as_strided.input_tensors[0].size_bytes, 1024u * 1024u * 4u);
}

}  // namespace
}  // namespace snr::pytorch
