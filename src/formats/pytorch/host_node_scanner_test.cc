#include "formats/pytorch/host_node_scanner.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "formats/pytorch/host_trace_describe.h"

namespace snr::pytorch {
namespace {

using detail::HostNodeScanner;
using detail::NodeReading;

TEST(HostNodeScanner, KeepsCompactValuesAsWritten) {
  for (const char* text : {R"j([1,2,"a"])j", R"j({"a":1,"b":[true,false,null]})j", R"j("tab\there \"q\" \\ \u001f")j",
                           "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "1.5", "1e-05", "-3", "0",
                           "18446744073709551615", "-9223372036854775808", "[[8,128,512],[]]", "{}", "[]", "\"\""}) {
    SCOPED_TRACE(text);
    const auto canonical = HostNodeScanner::canonical_text(text);
    ASSERT_TRUE(canonical.has_value());
    EXPECT_EQ(*canonical, text);
    EXPECT_EQ(*canonical, nlohmann::json::parse(text).dump());
  }
}

TEST(HostNodeScanner, WritesOtherFormsAsNlohmannDoes) {
  for (const char* text : {"[1, 2, 3]", " { \"a\" : [ 1 ,\n2 ] } ", "1.0", "1E5", "1e+2", "0.10", "-0.0", "2.5e-3",
                           "123456789.123456789"}) {
    SCOPED_TRACE(text);
    const auto canonical = HostNodeScanner::canonical_text(text);
    ASSERT_TRUE(canonical.has_value());
    EXPECT_EQ(*canonical, nlohmann::json::parse(text).dump());
  }
}

TEST(HostNodeScanner, DeclinesWhatItCannotProveCanonicalOrValid) {
  for (const char* text : {
           "-0",                       // nlohmann writes 0
           R"j("\u00e9")j",              // nlohmann writes the character itself
           R"j("\/")j", R"j("\u001F")j",   // another escape, upper-case hex
           R"j("\u000a")j",              // nlohmann writes \n
           R"j({"b":1,"a":2})j",         // keys out of order
           R"j({"a":1,"a":2})j",         // duplicate key
           R"j({"\u0061":1})j",          // escaped key
           "18446744073709551616",     // beyond uint64_t: a double to nlohmann
           "-9223372036854775809", "1e400", "01", "1.", ".5", "+1", "[1,]", "[1 2]", "{\"a\"}", "tru", "nul",
           "\"\xc3\x28\"",             // invalid UTF-8
           "\"\xed\xa0\x80\"",         // a surrogate
           "\"\xc0\xaf\"",             // overlong
           "\"a\nb\"",                 // control character
           "\"open", "[1", "1 2"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(HostNodeScanner::canonical_text(text).has_value());
  }
  std::string deep(HostNodeScanner::kMaxValueDepth + 1, '[');
  deep.append(HostNodeScanner::kMaxValueDepth + 1, ']');
  EXPECT_FALSE(HostNodeScanner::canonical_text(deep).has_value());
}

std::string read(const std::string& text, size_t window_bytes, NodeReading reading) {
  try {
    return describe_host_trace(detail::parse_host_trace_text(text, "mem", window_bytes, reading));
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

// The scanner (with the walk for what it declines) and the walk alone read
// the same trace, or fail with the same message, in one window or many.
void expect_same_reading(const std::string& text) {
  SCOPED_TRACE(text);
  const std::string walked = read(text, std::numeric_limits<size_t>::max(), NodeReading::kWalkOnly);
  EXPECT_EQ(read(text, std::numeric_limits<size_t>::max(), NodeReading::kScanFirst), walked);
  EXPECT_EQ(read(text, 1, NodeReading::kScanFirst), walked);
  EXPECT_EQ(read(text, 64, NodeReading::kScanFirst), walked);
  EXPECT_EQ(read(text, std::numeric_limits<size_t>::max(), NodeReading::kScanFirstSplit), walked);
  EXPECT_EQ(read(text, 1, NodeReading::kScanFirstSplit), walked);
}

const char* const kNode102 =
    R"j({"id":7,"name":"aten::add","ctrl_deps":2,"inputs":{"values":[[3,4,0,4,4,"cuda:0"],1.5,"a\"b"],)j"
    R"j("shapes":[[2,2],[],[]],"types":["Tensor(float)","Double","String"],"strides":[[2,1],[],[]]},)j"
    R"j("outputs":{"values":[[5,6,0,4,4,"cuda:0"]],"shapes":[[2,2]],"types":["Tensor(float)"]},)j"
    R"j("attrs":[{"name":"rf_id","type":"uint64","value":9},{"name":"seq_id","type":"int64","value":-1},)j"
    R"j({"name":"op_schema","type":"string","value":"aten::add(Tensor a) -> Tensor"},)j"
    R"j({"value":[1,2],"name":"extra","type":"list"}],"ts_ns":100,"dur_ns":5,"snr_kind":"kernel",)j"
    R"j("stream":7,"device":0,"correlation":3,"launch_ts_ns":90,"unknown":{"x":[1,{"y":null}]}})j";

TEST(HostNodeScanner, ReadsNodesAsTheWalkDoes) {
  const std::string node = kNode102;
  expect_same_reading(R"j({"schema":"1.1.1","nodes":[)j" + node + "]}");
  // PyTorch's own spacing, and the 1.0.1 flat layout.
  expect_same_reading(R"j({"schema": "1.0.2", "nodes": [ {"id": 2, "name": "a", "ctrl_deps": 1,
      "inputs": {"values": [[1, 2, 0, 4, 4, "cpu"], 2.0, -0], "shapes": [[2, 2], [], []],
                 "types": ["Tensor(float)", "Double", "Int"]},
      "outputs": {"values": [], "shapes": [], "types": []},
      "attrs": [{"name": "rf_id", "type": "uint64", "value": 1}, {"name": "tid", "type": "uint64", "value": 2}]} ,
      {"id": 3, "name": "b", "parent": 2, "inputs": [[1, 2, 0, 4, 4, "cpu"]], "input_shapes": [[2, 2]],
       "input_types": ["Tensor(float)"], "rf_id": 4, "tid": 1, "op_schema": "s", "outputs": null} ]})j");
  // Attributes in the usual shape and others: compact or spaced, other
  // names, values written again, escapes, keys in another order or missing.
  expect_same_reading(
      R"j({"nodes":[{"id":1,"name":"a","inputs":{},"attrs":[{"name":"kernel_file","type":"string","value":"a\tb"},)j"
      R"j({"name": "tensor_range", "type": "string", "value": ""},{"name":"x","type":"list","value":[1, 2.50]},)j"
      R"j({"name":"y","type":"int","value":-0},{"name":"z\u0041","type":"int","value":1},{"name":"w","type":7},)j"
      R"j({"name":"rf_id","type":"uint64","value":1e2},{"name":"tid","type":"uint64","value":3,"more":1},)j"
      R"j({"type":"uint64","name":"fw_tid","value":4},{"name":"seq_id","type":"int64"},)j"
      R"j({"name":"v","type":"t\"q","value":{"b":1,"a":[]}}]}]})j");
  // The compact attribute's fast path and where it hands over to the
  // general one: a raw UTF-8 name, a value written again, a space before
  // the closing brace, every scalar field, an escaped type.
  expect_same_reading(
      "{\"nodes\":[{\"id\":1,\"name\":\"a\",\"attrs\":[{\"name\":\"caf\xc3\xa9\",\"type\":\"string\",\"value\":\"x\"},"
      R"j({"name":"d","type":"double","value":1.50},{"name":"rf_id","type":"uint64","value":5 },)j"
      R"j({"name":"fw_parent","type":"uint64","value":6},{"name":"scope","type":"uint64","value":7},)j"
      R"j({"name":"fw_tid","type":"uint64","value":8},{"name":"seq_id","type":"int64","value":-9},)j"
      R"j({"name":"op_schema","type":"str\u0069ng","value":"s(a) -> b"},{"name":"tid","type":"uint64","value":1.0}]}]})j");
  // The same in PyTorch's spacing, and spacings near it.
  expect_same_reading(
      R"j({"nodes": [{"id": 1, "name": "a", "attrs": [{"name": "rf_id", "type": "uint64", "value": 5},)j"
      R"j({"name": "x", "type": "list", "value": [1, 2.50]},{"name": "op_schema", "type": "string", "value": "s"},)j"
      R"j({"name": "tid", "type": "uint64", "value":  3},{"name":  "y", "type": "int", "value": 1},)j"
      R"j({"name": "z", "type":"int", "value": 1},{"name": "w", "type": "int", "value": 1 },)j"
      R"j({"name": "kernel_file", "type": "string", "value": ""}]}]})j");
  // Nodes the reader skips, syncs and stream waits, escapes, doubles, odd values.
  expect_same_reading(R"j({"nodes":[{"id":"x"},{"id":3,"name":4},{"id":5,"name":"a","inputs":[1],"input_types":[]},)j"
                      R"j({"id":6,"name":"ok"},{"id":6,"name":"dup"},7,null,{"id":8.0,"name":"a\u00e9"},)j"
                      R"j({"id":9,"name":"s","syncs":[{"api":"cudaDeviceSynchronize","ts_ns":5}],)j"
                      R"j("stream_waits":[{"ts_ns":6,"stream":7,"wait_on_stream":8}]},)j"
                      R"j({"id":10,"name":"n","ctrl_deps":null,"parent":"p","ts_ns":1e3,"dur_ns":-4,)j"
                      R"j("inputs":{"values":null,"types":5,"shapes":[{"b":1,"a":2}]},"attrs":[1,{"type":"t"}]},)j"
                      R"j({"id":18446744073709551615,"name":"big","ctrl_deps":-0,"attrs":{"name":"rf_id"}}]})j");
}

TEST(HostNodeScanner, BrokenTracesFailWithTheWalksMessage) {
  const std::string good = kNode102;
  const std::string head = R"j({"schema":"1.1.1","nodes":[)j" + good + ",";
  for (const std::string& bad : {
           head + R"j({"id":8,"name":"x\q"}]})j",                  // bad escape
           head + "{\"id\":8,\"name\":\"\xc3\x28\"}]}",          // invalid UTF-8
           head + R"j({"id":8,"id":9}]})j",                        // duplicate key
           head + R"j({"id":8,"inputs":{"values":[1e400]}}]})j",   // out of a double's range
           head + R"j({"id":8,"name":"x"} x]})j",                  // syntax error
           head + R"j({"id":8,"name":"x"}]} trailing)j",           // trailing content
           head + R"j({"id":8,"name":"x","attrs":[{"name":"a","name":"b"}]}]})j",
           head + R"j({"id":8,"name":"x"},{"id":9,"name":"y","a":[1,]}]})j",
           head + R"j({"id":8,"name":"x","a":[1,{"b":1,"b":2}]},{"id":9,"name":"y\u00"}]})j",
           head + R"j({"id":8,"name":"x","a":{"b":1,"b":2}},{"id":9,"name":"\xff"}]})j",
           head + R"j({"id":8,"na)j",                               // cut short
           head + R"j({"id":8,"name":"x"},]})j",                     // a comma and no node
       }) {
    expect_same_reading(bad);
    EXPECT_EQ(read(bad, 1, NodeReading::kScanFirst).rfind("error: ", 0), 0u);
  }
}

TEST(HostNodeScanner, TensorsReadTheSameInEveryForm) {
  // The usual [id,storage,offset,count,bytes,"device"] is read in one pass;
  // every other form the general way, with the same results.
  const HostTrace trace = parse_host_trace_text(
      R"j({"nodes":[{"id":1,"name":"a","inputs":{"types":["Tensor(float)","Tensor(float)","Tensor(float)",)j"
      R"j("Tensor(float)","Tensor(float)","Tensor(half)","Tensor(float)","Tensor(float)","Tensor(x)"],)j"
      R"j("values":[[1,2,3,4,4,"cuda:0"],[5,6,0,4,4],[7,8,0,4.0,4,"cpu"],[9,10,0,4,4,"a\"b",7],)j"
      R"j([11,12,0,4,4,5],[13,14,0,6,2,"cpu"],[15,16,0,2,4],[17,18,0,2,4],[19,20,0,3,8]],)j"
      R"j("shapes":[[2,2],[4],[2.0,2],[],[18446744073709551615,2],[3,2],[2,-1],"x",[3]]}}]})j",
      "mem");
  ASSERT_EQ(trace.nodes.size(), 1u);
  const auto tensors = find_tensors(trace.nodes[0].inputs, trace.text_pool.get());
  ASSERT_EQ(tensors.size(), 9u);
  EXPECT_EQ(tensors[0].tensor_id, 1u);
  EXPECT_EQ(tensors[0].offset, 3u);
  EXPECT_EQ(tensors[0].device, "cuda:0");
  EXPECT_EQ(tensors[0].size_bytes, 16u);
  EXPECT_EQ(tensors[1].device, "");
  EXPECT_EQ(tensors[1].size_bytes, 16u);
  EXPECT_EQ(tensors[2].num_elem, 4u);
  EXPECT_EQ(tensors[2].device, "cpu");
  EXPECT_EQ(tensors[2].size_bytes, 16u);
  EXPECT_EQ(tensors[3].device, "a\"b");
  EXPECT_EQ(find_tensors(trace.nodes[0].inputs, nullptr)[3].device, "");  // escaped: needs a pool
  EXPECT_EQ(tensors[3].size_bytes, 4u);  // [] is one element
  EXPECT_EQ(tensors[4].device, "");
  // Bytes beyond 64 bits, or a shape that is there but not all counts: no
  // size (never a wrapped one, or num_elem x elem_bytes in its place).
  for (size_t k : {4, 6, 7}) {
    EXPECT_FALSE(tensors[k].size_known) << k;
    EXPECT_EQ(tensors[k].size_bytes, 0u) << k;
  }
  EXPECT_EQ(tensors[5].size_bytes, 12u);  // 6 halves
  EXPECT_TRUE(tensors[5].size_known);
  EXPECT_EQ(tensors[8].size_bytes, 24u);  // unknown dtype: 3 x 8
  std::vector<std::pair<uint64_t, uint64_t>> ids;  // the cheaper reading finds the same tensors
  find_tensor_ids(trace.nodes[0].inputs, ids);
  ASSERT_EQ(ids.size(), tensors.size());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], std::pair(tensors[i].tensor_id, tensors[i].storage_id));
}

TEST(HostNodeScanner, RepeatedIdsAreSkippedDenseOrSparse) {
  // Dense ids sit in a bitmap, far ones in a hash set; a repeat is found in
  // either, also after the bitmap has grown over an id hashed before.
  std::string text = R"j({"nodes":[{"id":5,"name":"a"},{"id":3000000,"name":"b"},{"id":3,"name":"c"},)j"
                     R"j({"id":1099511627776,"name":"d"},{"id":200000,"name":"e"},{"id":5,"name":"f"},)j"
                     R"j({"id":18446744073709551615,"name":"g"},{"id":18446744073709551615,"name":"h"})j";
  for (int id = 6; id < 70000; ++id) text += R"j(,{"id":)j" + std::to_string(id) + R"j(,"name":"n"})j";
  text += R"j(,{"id":200000,"name":"i"},{"id":3000000,"name":"j"},{"id":1099511627776,"name":"k"}]})j";
  for (const NodeReading reading : {NodeReading::kScanFirst, NodeReading::kScanFirstSplit, NodeReading::kWalkOnly}) {
    const HostTrace trace = detail::parse_host_trace_text(text, "mem", 1 << 20, reading);
    std::vector<size_t> skipped;
    for (const SkippedRecord& record : trace.skipped) skipped.push_back(record.index);
    const size_t last = 8 + (70000 - 6);
    EXPECT_EQ(skipped, (std::vector<size_t>{5, 7, last, last + 1, last + 2}));
    EXPECT_EQ(trace.skipped.back().reason, "duplicate id");
  }
}

// A list read in two halves at once is the list read front to back: the
// second half's skipped records, repeated ids (of either half) and process
// groups come out in list order with the whole list's indices, and a guessed
// cut that is not between two nodes, or a second half that fails, leaves the
// reading to the first thread.
TEST(HostNodeScanner, TwoHalvesReadAsOne) {
  std::string nodes;
  for (int id = 1; id <= 40; ++id) {
    nodes += (id == 1 ? "\n" : ",\n");
    if (id == 25) {
      nodes += R"j({"id":3,"name":"again"})j";  // a repeat of the first half's id
    } else if (id == 26) {
      nodes += R"j({"id":4.0,"name":"again, written otherwise"})j";  // its record keeps the id as written
    } else if (id == 28) {
      nodes += R"j({"name":"no id"})j";
    } else if (id == 30) {
      nodes += R"j({"id":30,"name":"## process_group:init ##","inputs":{"values":["[{\"pg_name\": \"0\", )j"
               R"j(\"backend_config\": \"cuda:nccl\", \"ranks\": [0, 1], \"group_size\": 2}]"],)j"
               R"j("shapes":[[]],"types":["String"]}})j";
    } else if (id == 33) {
      nodes += R"j({"id":33,"name":"walked","inputs":{"values":[1e5],"shapes":[[]],"types":["Double"]}})j";  // not canonical: the walk reads it
    } else if (id == 36) {
      nodes += R"j({"id":36,"name":"x"},{"id":37,"name":"two on a line"})j";
      ++id;
    } else {
      nodes += R"j({"id":)j" + std::to_string(id) + R"j(,"name":"op","attrs":[{"name":"rf_id","type":"uint64","value":)j" +
               std::to_string(id) + "}]}";
    }
  }
  const std::string text = R"j({"schema":"1.1.1","nodes":[)j" + nodes + "\n]}";
  expect_same_reading(text);
  const HostTrace trace = detail::parse_host_trace_text(text, "mem", 64, NodeReading::kScanFirstSplit);
  ASSERT_EQ(trace.skipped.size(), 3u);
  EXPECT_EQ(trace.skipped[0].index, 24u);
  EXPECT_EQ(trace.skipped[0].id, "3");
  EXPECT_EQ(trace.skipped[0].reason, "duplicate id");
  EXPECT_EQ(trace.skipped[1].index, 25u);
  EXPECT_EQ(trace.skipped[1].id, "4.0");
  EXPECT_EQ(trace.skipped[1].reason, "duplicate id");
  EXPECT_EQ(trace.skipped[2].index, 27u);
  ASSERT_EQ(trace.process_groups.size(), 1u);
  EXPECT_EQ(trace.process_groups[0].ranks, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(trace.nodes.size(), 37u);
  EXPECT_EQ(trace.nodes.back().id, 40u);

  // The cut guessed inside a node ("},\n{" between two attributes): the
  // first half's reading passes it and reads on alone.
  std::string nested = R"j({"nodes":[{"id":1,"name":"a"},{"id":2,"name":"b","attrs":[)j";
  for (int k = 0; k < 200; ++k) nested += (k == 0 ? "" : ",\n") + std::string(R"j({"name":"k","value":1})j");
  nested += R"j(]},{"id":3,"name":"c"}]})j";
  expect_same_reading(nested);
  EXPECT_EQ(detail::parse_host_trace_text(nested, "mem", 1, NodeReading::kScanFirstSplit).nodes.size(), 3u);

  // Broken in the second half: the same error as reading front to back.
  std::string broken = text;
  broken.insert(broken.rfind(R"j({"id":39)j"), "x");
  expect_same_reading(broken);
  EXPECT_EQ(read(broken, 1, NodeReading::kScanFirstSplit).rfind("error: ", 0), 0u);
}

// A fraction of more than 19 significant digits is the nearest double,
// read alike by the scanner and the walk (simdjson's get_number reads some
// of them as 0): 3333331111111111111.7 is 3333331111111111168, an integral
// double a uint64 field takes, as nlohmann's reading gave.
TEST(HostNodeScanner, LongFractionsReadAsTheNearestDouble) {
  for (const char* literal : {"3333331111111111111.7", "3333331111111111111.0", "3.333331111111111e+18"}) {
    const std::string text =
        std::string(R"j({"schema": "1.0.1", "nodes": [{"name": "x", "id": 2, "scope": )j") + literal + "}]}";
    expect_same_reading(text);
    const HostTrace trace = detail::parse_host_trace_text(text, "mem", 1 << 20, NodeReading::kWalkOnly);
    ASSERT_EQ(trace.nodes.size(), 1u);
    EXPECT_EQ(trace.nodes[0].scope, 3333331111111111168u) << literal;
  }
}

}  // namespace
}  // namespace snr::pytorch
