#include "formats/pytorch/host_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/error_of.h"

namespace snr::pytorch {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

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

// The trace's own rank names the output file and sizes the job's groups: an
// integer in --rank's range, else an error naming the file and the key.
TEST(HostTrace, RootRankIsARankOrAnError) {
  const auto with_root = [](const std::string& root) {
    return parse_host_trace_text("{" + root + R"(, "nodes": [{"id": 1, "name": "a"}]})", "r.json");
  };
  EXPECT_EQ(with_root(R"("rank": 1048575)").rank, 1048575);
  EXPECT_EQ(with_root(R"("distributedInfo": {"rank": 3})").rank, 3);
  EXPECT_FALSE(with_root(R"("pid": 1)").rank);
  const auto error_with = [&](const std::string& root) { return error_of([&] { with_root(root); }); };
  for (const std::string value : {"4294967296", "100000000", "1048576", "-1", "18446744073709551615"}) {
    EXPECT_THAT(error_with(R"("rank": )" + value),
                HasSubstr("r.json: key 'rank' = " + value + " is out of range: valid 0 .. 1048575"));
  }
  for (const std::string value : {R"("0")", "1.5", "null", "true"}) {
    EXPECT_THAT(error_with(R"("rank": )" + value), HasSubstr("r.json: key 'rank' = " + value + " is not an integer"));
  }
  EXPECT_THAT(error_with(R"("distributedInfo": {"rank": -2})"),
              HasSubstr("r.json: key 'distributedInfo.rank' = -2 is out of range"));
}

// A linked trace's device fields are a node's time and place: one that is
// not an integer (a negative duration) skips the node, counted, instead of
// converting it with a time of 0. The scanner and the walk agree.
TEST(HostTrace, BadDeviceFieldsSkipTheNode) {
  const std::string text = R"({"nodes": [
    {"id": 1, "name": "k1", "dur_ns": -5}, {"id": 2, "name": "k2", "dur_ns": 18446744073709551616},
    {"id": 3, "name": "k3", "dur_ns": "x"}, {"id": 4, "name": "k4", "dur_ns": 1.5},
    {"id": 5, "name": "k5", "ts_ns": null}, {"id": 6, "name": "k6", "stream": "7"},
    {"id": 7, "name": "ok", "dur_ns": 2500, "ts_ns": -3, "stream": 7}]})";
  for (const auto reading : {detail::NodeReading::kScanFirst, detail::NodeReading::kWalkOnly}) {
    const auto trace = detail::parse_host_trace_text(text, "d.json", std::numeric_limits<size_t>::max(), reading);
    ASSERT_EQ(trace.nodes.size(), 1u);
    EXPECT_EQ(trace.nodes[0].dur_ns, 2500);
    EXPECT_EQ(trace.nodes[0].ts_ns, -3);
    ASSERT_EQ(trace.skipped.size(), 6u);
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(trace.skipped[k].reason, "\"dur_ns\" is not a non-negative integer");
    EXPECT_EQ(trace.skipped[4].reason, "\"ts_ns\" is not an integer");
    EXPECT_EQ(trace.skipped[5].reason, "\"stream\" is not an integer");
    EXPECT_EQ(trace.skipped[5].id, "6");
  }
}

// A communication record's bytes come from its tensors' shapes: a shape
// with a negative or non-integer dimension, or bytes beyond 64 bits, skips
// the record (counted) instead of a message of 0 bytes or a wrapped size.
TEST(HostTrace, CommRecordsWithoutTensorSizesAreSkipped) {
  const auto record = [](int id, const std::string& name, const std::string& shape) {
    return R"({"id": )" + std::to_string(id) + R"(, "name": ")" + name +
           R"(", "inputs": {"values": [[[1,1,0,8,4,"cuda:0"]], 1], "shapes": [)" + shape +
           R"(, []], "types": ["GenericList[Tensor(float)]", "Int"]}, "outputs": {}, "attrs": []})";
  };
  const std::string text = R"({"nodes": [)" + record(1, "record_param_comms", "[[-1]]") + "," +
                           record(2, "record_param_comms", "[[4294967296,4294967296]]") + "," +
                           record(3, "record_param_comms", R"([["a"]])") + "," +
                           record(4, "c10d::allreduce_", "[[99999999999999999999]]") + "," +
                           record(5, "record_param_comms", "[[8]]") + "," + record(6, "aten::add", "[[-1]]") + "]}";
  const auto trace = parse_host_trace_text(text, "c.json");
  ASSERT_EQ(trace.nodes.size(), 2u);
  EXPECT_EQ(tensor_bytes(trace.nodes[0].inputs), 32u);
  EXPECT_EQ(trace.nodes[1].name, "aten::add");  // its sizes are never read
  EXPECT_FALSE(find_tensors(trace.nodes[1].inputs, nullptr).at(0).size_known);
  ASSERT_EQ(trace.skipped.size(), 4u);
  EXPECT_EQ(trace.skipped[0].id, "1");
  EXPECT_NE(trace.skipped[0].reason.find("inputs: value 0 (shape [[-1]]): a tensor without a size"),
            std::string::npos)
      << trace.skipped[0].reason;
  EXPECT_NE(trace.skipped[1].reason.find("[[4294967296,4294967296]]"), std::string::npos) << trace.skipped[1].reason;
  EXPECT_EQ(trace.skipped[3].id, "4");
}

// A process group's size and ranks size the job's groups: a value outside
// --rank's range skips the whole description (counted), never part of it.
TEST(HostTrace, ProcessGroupRanksAreRanks) {
  const auto with_groups = [](const std::string& groups) {
    return parse_host_trace_text(R"({"nodes": [{"id": 9, "name": "## process_group:init ##", "inputs": {"values": [)" +
                                     nlohmann::json(groups).dump() +
                                     R"(], "shapes": [[]], "types": ["String"]}, "outputs": {}, "attrs": []}]})",
                                 "g.json");
  };
  const auto good =
      with_groups(R"([{"pg_name": "0", "ranks": [], "group_size": 1048576}, {"pg_name": "1", "ranks": [1048575]}])");
  ASSERT_EQ(good.process_groups.size(), 2u);
  EXPECT_TRUE(good.skipped.empty());
  for (const std::string bad : {R"({"pg_name": "1", "ranks": [], "group_size": 4294967296})",
                                R"({"pg_name": "1", "ranks": [0, -1]})", R"({"pg_name": "1", "ranks": ["a"]})",
                                R"({"pg_name": "1", "ranks": [1048576]})", R"({"pg_name": "1", "group_size": "2"})"}) {
    const auto trace = with_groups(R"([{"pg_name": "0", "ranks": [0, 1]}, )" + bad + "]");
    EXPECT_TRUE(trace.process_groups.empty()) << bad;
    ASSERT_EQ(trace.skipped.size(), 1u) << bad;
    EXPECT_NE(trace.skipped[0].reason.find("unreadable process-group description: group 1 "), std::string::npos)
        << trace.skipped[0].reason;
  }
}

}  // namespace
}  // namespace snr::pytorch
