#include "formats/pytorch/host_trace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

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
  const auto inputs = find_tensors(add.inputs, nullptr);
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[1].tensor_id, 3u);
  EXPECT_EQ(inputs[1].size_bytes, 16u);  // 2x2 float
  EXPECT_EQ(tensor_bytes(add.inputs), inputs[0].size_bytes + 16u);
  const auto outputs = find_tensors(add.outputs, nullptr);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].device, "cuda:0");
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
  const auto tensors = find_tensors(comm.inputs, nullptr);
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].size_bytes, 64u);  // 16 floats inside a GenericList
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

TEST(HostTrace, KeepsValuesAsNlohmannDumpText) {
  const auto trace = parse_host_trace_text(
      R"({"nodes": [{"id": 1, "name": "op", "inputs": {"values": [1.50, "a\u0041\n\/", {"b": 1, "a": [1e2]}, -0,
        18446744073709551615, 123456789012345678901, true, null], "types": ["Double", "String", "Dict", "Int", "Int",
        "Int", "Bool", "None"]}, "outputs": {}, "attrs": [{"value": "x", "type": "string", "name": "kernel_file"}]}]})",
      "mem");
  ASSERT_EQ(trace.nodes.size(), 1u);
  const auto& inputs = trace.nodes[0].inputs;
  ASSERT_EQ(inputs.size(), 8u);
  EXPECT_EQ(inputs[0].value, "1.5");
  EXPECT_EQ(inputs[1].value, R"("aA\n/")");
  EXPECT_EQ(inputs[2].value, R"({"a":[100.0],"b":1})");
  EXPECT_EQ(inputs[3].value, "0");
  EXPECT_EQ(inputs[4].value, "18446744073709551615");
  EXPECT_EQ(inputs[5].value, "1.2345678901234568e+20");
  EXPECT_EQ(inputs[6].value, "true");
  EXPECT_EQ(inputs[7].value, "null");
  EXPECT_EQ(inputs[0].shape, "null");
  ASSERT_EQ(trace.nodes[0].extra_attrs.size(), 1u);
  EXPECT_EQ(trace.nodes[0].extra_attrs[0], R"({"name":"kernel_file","type":"string","value":"x"})");

  int64_t i = 0;
  uint64_t u = 0;
  EXPECT_TRUE(json_text_to_int64("5.0", i));
  EXPECT_EQ(i, 5);
  EXPECT_FALSE(json_text_to_int64("5.5", i));
  EXPECT_FALSE(json_text_to_int64("18446744073709551615", i));
  EXPECT_TRUE(json_text_to_uint64("18446744073709551615", u));
  EXPECT_FALSE(json_text_to_uint64("-1", u));
  EXPECT_EQ(json_text_string(R"("a\"b")"), "a\"b");
  EXPECT_FALSE(json_text_string("[]"));
  std::vector<std::string_view> elements;
  ASSERT_TRUE(json_text_elements(R"([1,"a,]",[2,3],{"k":"]"}])", elements));
  EXPECT_EQ(elements, (std::vector<std::string_view>{"1", R"("a,]")", "[2,3]", R"({"k":"]"})"}));
}

TEST(HostTrace, WindowedWalkReadsTheSameTrace) {
  const std::string text = R"json({"schema": "1.0.1", "nodes": [
    {"id": 2, "name": "a", "parent": 1, "inputs": [[1,2,0,4,4,"cuda:0"]], "input_shapes": [[2,2]],
     "input_types": ["Tensor(float)"]},
    {"id": 2, "name": "dup"}, 7, {"id": 3, "name": "b", "parent": 2}], "pid": 5})json";
  const auto whole = detail::parse_host_trace_text(text, "mem", std::numeric_limits<size_t>::max());
  const auto one_node_each = detail::parse_host_trace_text(text, "mem", 1);
  for (const auto* trace : {&whole, &one_node_each}) {
    EXPECT_EQ(trace->pid, 5);
    ASSERT_EQ(trace->nodes.size(), 2u);
    EXPECT_EQ(trace->nodes[1].id, 3u);
    const auto tensors = find_tensors(trace->nodes[0].inputs, nullptr);
    ASSERT_EQ(tensors.size(), 1u);
    EXPECT_EQ(tensors[0].size_bytes, 16u);
    ASSERT_EQ(trace->skipped.size(), 2u);
    EXPECT_EQ(trace->skipped[0].reason, "duplicate id");
    EXPECT_EQ(trace->skipped[1].index, 2u);
  }
  // A syntax error inside a later window is still placed in the whole document.
  try {
    detail::parse_host_trace_text(R"({"nodes": [{"id": 1, "name": "a"}, {"id": 2,, "name": "b"}]})", "w.json", 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("w.json: line 1, column 46 (byte 45)"), std::string::npos) << e.what();
  }
}

TEST(HostTrace, EndsAtNulLikeBefore) {
  const std::string text = std::string(R"({"nodes": [{"id": 1, "name": "a"}]})") + std::string(4, '\0');
  EXPECT_EQ(parse_host_trace_text(text, "mem").nodes.size(), 1u);
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
  const auto tensors = find_tensors(as_strided.inputs, nullptr);
  ASSERT_FALSE(tensors.empty());
  EXPECT_EQ(tensors[0].size_bytes, 1024u * 1024u * 4u);
}

}  // namespace
}  // namespace snr::pytorch
