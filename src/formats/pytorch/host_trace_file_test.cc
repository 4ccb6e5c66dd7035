// The compact record store and the mapped-file reading of host traces:
// interned texts, pages handed back a window at a time, and traces and error
// messages identical to reading the same text from memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <limits>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "formats/pytorch/gzip_for_tests.h"
#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/host_trace_describe.h"
#include "formats/pytorch/json_windows.h"
#include "formats/pytorch/mapped_text.h"
#include "formats/pytorch/text_pool.h"

namespace snr::pytorch {
namespace {

class TempFile {
 public:
  explicit TempFile(const std::string& bytes)
      : path_(std::filesystem::temp_directory_path() /
              fmt::format("snr_host_trace_file_test_{}_{}.json", ::getpid(), next_++)) {
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  static inline int next_ = 0;
  std::filesystem::path path_;
};

// Everything a reader keeps, as text, to compare two reads.
std::string describe(const HostTrace& trace) {
  std::string out = fmt::format("{} {} {}\n", trace.schema, trace.pid, trace.root_fields.dump());
  for (const auto& s : trace.skipped) out += fmt::format("skip {} {} {}\n", s.index, s.id, s.reason);
  for (const auto& n : trace.nodes) {
    out += fmt::format("{} {} {} {} {}\n", n.id, n.name, n.parent_id.value_or(0), n.rf_id.value_or(0), n.op_schema);
    for (const auto* values : {&n.inputs, &n.outputs}) {
      for (const auto& v : *values) out += fmt::format(" {} {} {} {}\n", v.type, v.value, v.shape, v.stride);
    }
    for (const auto& t : find_tensors(n.inputs, nullptr)) out += fmt::format(" t {} {}\n", t.tensor_id, t.size_bytes);
    for (const auto& a : n.extra_attrs) out += fmt::format(" a {}\n", a);
  }
  return out;
}

// A 1.0.2+ trace of `count` nodes on separate lines, each repeating the same
// argument texts, with escapes and non-ASCII text in a string.
std::string make_trace(size_t count) {
  std::string text = "{\"schema\": \"1.1.1-chakra.0.0.4\", \"pid\": 7,\n\"nodes\": [\n";
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) text += ",\n";
    text += fmt::format(
        R"j({{"id": {}, "name": "aten::mm\u00e9\"{}", "ctrl_deps": 1, "inputs": {{"values": [[{},1,0,4,4,"cuda:0"], 2.50],)j"
        R"j( "shapes": [[2,2],[]], "types": ["Tensor(float)","Double"], "strides": [[2,1],[]]}},)j"
        R"j( "outputs": {{"values": [], "shapes": [], "types": []}},)j"
        R"j( "attrs": [{{"name": "rf_id", "type": "uint64", "value": {}}},)j"
        R"j( {{"name": "op_schema", "type": "string", "value": "aten::mm(Tensor self) -> Tensor"}},)j"
        R"j( {{"name": "kernel_file", "type": "string", "value": "a\tb"}}]}})j",
        i + 2, i % 3, 100 + i, i);
  }
  text += "\n], \"trailer\": {\"b\": 1, \"a\": [1e2, -0.0]}}\n";
  return text;
}

TEST(TextPool, KeepsEachDistinctTextOnceAndViewsStayValid) {
  TextPool pool;
  const std::string_view first = pool.intern("[2,2]");
  EXPECT_EQ(first, "[2,2]");
  EXPECT_EQ(pool.intern(std::string("[2,2]")).data(), first.data());
  EXPECT_TRUE(pool.intern("").empty());
  // More than a chunk of distinct texts, and one text longer than a chunk.
  std::vector<std::pair<std::string, std::string_view>> kept;
  for (int i = 0; i < 100000; ++i) {
    std::string text = fmt::format("[{},\"some tensor text\"]", i);
    kept.emplace_back(text, pool.intern(text));
  }
  const std::string huge(3u << 20, 'x');
  EXPECT_EQ(pool.intern(huge), huge);
  for (const auto& [text, view] : kept) ASSERT_EQ(view, text);
  EXPECT_EQ(first, "[2,2]");
  EXPECT_EQ(pool.distinct_texts(), 100002u);
}

TEST(HostTraceFile, NodesShareTheirRepeatedTexts) {
  const auto trace = parse_host_trace_text(make_trace(50), "mem");
  ASSERT_EQ(trace.nodes.size(), 50u);
  EXPECT_EQ(trace.nodes[0].op_schema.data(), trace.nodes[49].op_schema.data());
  EXPECT_EQ(trace.nodes[0].inputs[0].type.data(), trace.nodes[49].inputs[0].type.data());
  EXPECT_EQ(trace.nodes[0].inputs[1].value, "2.5");
  EXPECT_EQ(trace.nodes[0].inputs[1].value.data(), trace.nodes[49].inputs[1].value.data());
  EXPECT_EQ(trace.nodes[0].extra_attrs[0], R"({"name":"kernel_file","type":"string","value":"a\tb"})");
  // A copy of the trace shares the pool: its nodes stay valid on their own.
  HostTrace copy;
  {
    const HostTrace original = parse_host_trace_text(make_trace(3), "mem");
    copy = original;
  }
  EXPECT_EQ(copy.nodes[2].op_schema, "aten::mm(Tensor self) -> Tensor");
}

TEST(HostTraceFile, ArrayScanCountsElementsAndReportsEachWindow) {
  const std::string text = R"({"a": "[", "nodes": [1, "x]", {"k": [2]}, [3]], "z": 0})";
  std::vector<size_t> passed;
  const auto split = find_root_array_windows(text, "nodes", 1, [&](size_t end) { passed.push_back(end); });
  ASSERT_TRUE(split);
  EXPECT_EQ(split->elements, 4u);
  ASSERT_EQ(split->windows.size(), 4u);
  // Every window but the last is reported once the scan is past it.
  ASSERT_EQ(passed.size(), 3u);
  for (size_t i = 0; i < passed.size(); ++i) EXPECT_EQ(passed[i], split->windows[i].second);
}

TEST(HostTraceFile, ArrayScanFindsTheEndOfStringsWithEscapes) {
  // Quotes after an odd run of backslashes are inside the string.
  const std::string text = R"j({"k\\": "]", "nodes": ["\\", "\"]", "a\\\"]\\\\", "\\\\\\"], "z": "\\"})j";
  const auto split = find_root_array_windows(text, "nodes", 1);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->elements, 4u);
  EXPECT_EQ(text.substr(split->array_begin, split->array_end - split->array_begin),
            R"j(["\\", "\"]", "a\\\"]\\\\", "\\\\\\"])j");
  EXPECT_FALSE(find_root_array_windows(R"j({"nodes": ["\"])j", "nodes", 1));
}

TEST(HostTraceFile, MappedTextHandsPagesBackAndReadsThemAgain) {
  std::string bytes(3u << 20, 'a');
  bytes[(2u << 20) + 5] = '\0';
  const TempFile file(bytes);
  auto mapped = MappedText::map_plain(file.path());
  ASSERT_TRUE(mapped);
  ASSERT_EQ(mapped->text().size(), bytes.size());
  EXPECT_EQ(find_nul_releasing(mapped->text(), mapped.get()), (2u << 20) + 5);
  mapped->release_before(mapped->text().size());
  // Dropped pages come back from the file.
  EXPECT_EQ(mapped->text(), bytes);
  mapped->begin_pass();
  mapped->release_before(12345);
  EXPECT_EQ(mapped->text(), bytes);
  // Pages mapped ahead, the range clipped to the text wherever it ends.
  mapped->release_before(mapped->text().size());
  mapped->populate(100, 4096);
  mapped->populate(bytes.size() - 10, std::numeric_limits<size_t>::max());
  mapped->populate(bytes.size() + 4096, 1);
  EXPECT_EQ(mapped->text(), bytes);

  const TempFile empty("");
  EXPECT_FALSE(MappedText::map_plain(empty.path()));
  const TempFile compressed(std::string("\x1f\x8b\x08\x00", 4));
  EXPECT_FALSE(MappedText::map_plain(compressed.path()));
  EXPECT_FALSE(MappedText::map_plain(file.path().string() + ".absent"));
}

TEST(HostTraceFile, MappedFileReadsTheSameTraceWhateverTheWindow) {
  const std::string text = make_trace(200);
  const TempFile file(text);
  const std::string expected = describe(parse_host_trace_text(text, "mem"));
  for (const size_t window_bytes : {size_t{1}, size_t{700}, size_t{4096}, size_t{1} << 22}) {
    EXPECT_EQ(describe(detail::read_host_trace(file.path(), window_bytes)), expected) << window_bytes;
  }
  // After a NUL byte the document ends, as it does in memory.
  const TempFile with_nul(text + std::string(3, '\0') + "garbage");
  EXPECT_EQ(describe(detail::read_host_trace(with_nul.path(), 700)), expected);
}

TEST(HostTraceFile, LeavingOutStridesAndExtraAttributesLeavesTheRest) {
  // A node the scanner reads, one with what it leaves to the walk (1e5, an
  // attribute with its keys in another order), and a 1.0.1 node; strides
  // and unknown attributes on the first two.
  const std::string text =
      R"j({"schema":"1.1.1","nodes":[)j"
      R"j({"id":2,"name":"aten::add","ctrl_deps":1,"inputs":{"values":[[3,4,0,4,4,"cuda:0"],1],)j"
      R"j("shapes":[[2,2],[]],"types":["Tensor(float)","Int"],"strides":[[2,1],[]]},)j"
      R"j("outputs":{"values":[[5,6,0,4,4,"cuda:0"]],"shapes":[[2,2]],"types":["Tensor(float)"],"strides":[[2,1]]},)j"
      R"j("attrs":[{"name":"rf_id","type":"uint64","value":9},{"name":"kernel_file","type":"string","value":"x"}]},)j"
      R"j({"id":3,"name":"walked","inputs":{"values":[ 1e5 ],"shapes":[[]],"types":["Double"],"strides":[[]]},)j"
      R"j("attrs":[{"name":"tid","type":"uint64","value":2},{"type":"string","value":"y","name":"odd"}]},)j"
      R"j({"id":4,"name":"old","parent":1,"inputs":[7],"input_shapes":[[]],"input_types":["Int"]}]})j";
  const TempFile file(text);
  const HostReadOptions leave_out{.keep_strides = false, .keep_extra_attrs = false};
  const HostTrace full = parse_host_trace_text(text, "mem");
  ASSERT_EQ(full.nodes.size(), 3u);
  ASSERT_EQ(full.nodes[0].extra_attrs.size(), 1u);
  ASSERT_EQ(full.nodes[1].extra_attrs.size(), 1u);
  EXPECT_EQ(full.nodes[0].inputs[0].stride, "[2,1]");
  const std::string expected = describe_host_trace(without_left_out(full, leave_out));
  for (const auto reading : {detail::NodeReading::kScanFirst, detail::NodeReading::kScanFirstSplit,
                             detail::NodeReading::kWalkOnly}) {
    for (const size_t window_bytes : {size_t{1}, size_t{1} << 22}) {
      const HostTrace read = detail::read_host_trace(file.path(), window_bytes, reading, leave_out);
      EXPECT_EQ(describe_host_trace(read), expected) << window_bytes;
      EXPECT_TRUE(read.nodes[0].extra_attrs.empty());
      EXPECT_EQ(read.nodes[0].inputs[0].stride, "null");
      EXPECT_EQ(read.nodes[0].inputs[0].shape, "[2,2]");
    }
  }
  // Only strides left out: the attributes stay.
  const HostReadOptions strides_only{.keep_strides = false, .keep_extra_attrs = true};
  EXPECT_EQ(describe_host_trace(read_host_trace(file.path(), strides_only)),
            describe_host_trace(without_left_out(full, strides_only)));
}

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(HostTraceFile, ErrorsInALaterWindowNameTheDocumentsLineAndColumn) {
  std::string text = make_trace(200);
  // Node 150 (line 153) loses the colon after its "ctrl_deps".
  const size_t at = text.find("\"ctrl_deps\": 1", text.find("\"id\": 152,"));
  ASSERT_NE(at, std::string::npos);
  text.erase(at + 11, 1);
  const TempFile file(text);
  const std::string in_memory = error_of([&] { detail::parse_host_trace_text(text, file.path().string(), 700); });
  EXPECT_NE(in_memory.find(file.path().string() + ": line 153, column "), std::string::npos) << in_memory;
  EXPECT_NE(in_memory.find("key 'nodes[150]"), std::string::npos) << in_memory;
  for (const size_t window_bytes : {size_t{1}, size_t{700}, size_t{1} << 22}) {
    EXPECT_EQ(error_of([&] { detail::read_host_trace(file.path(), window_bytes); }), in_memory) << window_bytes;
  }
  // A document cut inside a string is placed by the fallback parse.
  const TempFile cut(text.substr(0, text.find("aten::mm", text.size() / 2) + 3));
  const std::string cut_error = error_of([&] { detail::read_host_trace(cut.path(), 700); });
  EXPECT_EQ(cut_error, error_of([&] {
              detail::parse_host_trace_text(text.substr(0, text.find("aten::mm", text.size() / 2) + 3),
                                            cut.path().string(), 700);
            }));
  EXPECT_NE(cut_error.find(": line "), std::string::npos) << cut_error;
}

TEST(HostTraceFile, GzipFilesReadLikeTheirTextAndBrokenOnesNameTheByte) {
  std::string text = make_trace(200);
  const TempFile plain(text);
  const TempFile compressed(gzip_member(text));
  EXPECT_EQ(describe(detail::read_host_trace(compressed.path(), 700)),
            describe(detail::read_host_trace(plain.path(), 700)));
  // An error in a later window of a gzip file is placed in the inflated text.
  const size_t at = text.find("\"ctrl_deps\": 1", text.find("\"id\": 152,"));
  text.erase(at + 11, 1);
  const TempFile broken_text(gzip_member(text));
  const std::string in_memory =
      error_of([&] { detail::parse_host_trace_text(text, broken_text.path().string(), 700); });
  EXPECT_NE(in_memory.find(": line 153, column "), std::string::npos) << in_memory;
  EXPECT_EQ(error_of([&] { detail::read_host_trace(broken_text.path(), 700); }), in_memory);
  // Cut short, and one byte of the deflate data flipped.
  const std::string good = gzip_member(make_trace(200));
  const TempFile cut(good.substr(0, good.size() / 2));
  EXPECT_NE(error_of([&] { read_host_trace(cut.path()); }).find("corrupt or truncated gzip data near compressed byte"),
            std::string::npos);
  std::string flipped = good;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0xff);
  const TempFile corrupt(flipped);
  EXPECT_NE(error_of([&] { read_host_trace(corrupt.path()); }).find(corrupt.path().string() + ": "),
            std::string::npos);
}

}  // namespace
}  // namespace snr::pytorch
