#include "formats/chakra/et_reader.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "common/error.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/test_traces.h"

namespace snr::chakra {
namespace {

using ChakraProtoMsg::Node;

std::string sample_bytes() { return encode_trace(testing::sample_metadata(), testing::sample_nodes()); }

std::string metadata_bytes() { return encode_trace(testing::sample_metadata(), {}); }

std::string error_of(const std::string& bytes, EtReadOptions options = {}) {
  try {
    auto reader = EtReader::from_memory(bytes, "mem.et", options);
    Node node;
    while (reader.next(node)) {
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(EtReader, ReadsMetadataAndNodesInOrder) {
  std::string bytes = sample_bytes();
  auto reader = EtReader::from_memory(bytes, "mem.et");
  EXPECT_EQ(reader.metadata().version(), "0.0.4");
  EXPECT_FALSE(reader.gzip_compressed());
  Node node;
  std::vector<uint64_t> ids;
  while (reader.next(node)) ids.push_back(node.id());
  EXPECT_EQ(ids, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(reader.stats().nodes_read, 6u);
  EXPECT_EQ(reader.stats().bytes_consumed, bytes.size());
  EXPECT_EQ(reader.stats().skipped_records, 0u);
}

TEST(EtReader, TinyBufferStillReadsMessagesLargerThanIt) {
  std::string bytes = sample_bytes();
  EtReadOptions options;
  options.buffer_bytes = 3;
  auto reader = EtReader::from_memory(bytes, "mem.et", options);
  Node node;
  int count = 0;
  while (reader.next(node)) ++count;
  EXPECT_EQ(count, 6);
}

TEST(EtReader, EmptyInputNamesTheMissingMetadata) {
  EXPECT_EQ(error_of(""), "mem.et: empty file: expected a GlobalMetadata message first");
}

TEST(EtReader, TruncatedLengthPrefixSaysWhere) {
  std::string bytes = metadata_bytes();
  size_t offset = bytes.size();
  bytes += '\x80';
  EXPECT_EQ(error_of(bytes), "mem.et: byte " + std::to_string(offset) +
                                 ", message 1: truncated length prefix: the stream ends 1 byte(s) into a varint");
}

TEST(EtReader, OverlongVarintIsMalformed) {
  std::string bytes = metadata_bytes();
  size_t offset = bytes.size();
  bytes += std::string(11, '\xff');
  EXPECT_EQ(error_of(bytes), "mem.et: byte " + std::to_string(offset) +
                                 ", message 1: malformed length prefix: varint longer than 10 bytes");
}

TEST(EtReader, TruncatedMessageSaysHowMuchIsMissing) {
  std::string full = sample_bytes();
  std::string bytes = full.substr(0, full.size() - 3);
  auto nodes = testing::sample_nodes();
  size_t last_size = nodes.back().ByteSizeLong();
  size_t offset = full.size() - last_size - 1;
  EXPECT_EQ(error_of(bytes), fmt::format("mem.et: byte {}, message 6: truncated message: length prefix says {} "
                                         "bytes but only {} remain",
                                         offset, last_size, last_size - 3));
}

TEST(EtReader, OversizedLengthPrefixIsRefusedBeforeReading) {
  std::string bytes = metadata_bytes();
  size_t offset = bytes.size();
  bytes += "\xe8\x07";  // 1000
  bytes += std::string(1000, 'x');
  EtReadOptions options;
  options.max_message_bytes = 100;
  EXPECT_EQ(error_of(bytes, options),
            "mem.et: byte " + std::to_string(offset) +
                ", message 1: message too large: length prefix says 1000 bytes, limit is 100");
}

TEST(EtReader, GarbageMessageIsAParseFailure) {
  std::string bytes = metadata_bytes();
  size_t offset = bytes.size();
  bytes += "\x03\xff\xff\xff";
  EXPECT_EQ(error_of(bytes), "mem.et: byte " + std::to_string(offset) +
                                 ", message 1: parse failure: 3 bytes are not a valid ChakraProtoMsg.Node");
}

TEST(EtReader, GarbageMetadataIsAParseFailure) {
  EXPECT_EQ(error_of(std::string("\x02\xff\xff", 3)),
            "mem.et: byte 0, message 0: parse failure: 2 bytes are not a valid ChakraProtoMsg.GlobalMetadata");
}

TEST(EtReader, LenientModeSkipsAndCountsBadRecords) {
  std::string bytes = metadata_bytes();
  bytes += "\x03\xff\xff\xff";
  auto nodes = testing::sample_nodes();
  append_length_prefixed(bytes, nodes[0], "node 0");
  bytes += "\x05\x01";  // truncated tail
  EtReadOptions options;
  options.lenient = true;
  auto reader = EtReader::from_memory(bytes, "mem.et", options);
  Node node;
  std::vector<uint64_t> ids;
  while (reader.next(node)) ids.push_back(node.id());
  EXPECT_EQ(ids, std::vector<uint64_t>{0});
  const auto& stats = reader.stats();
  EXPECT_EQ(stats.skipped_records, 2u);
  ASSERT_EQ(stats.skipped.size(), 2u);
  EXPECT_EQ(stats.skipped[0].message_index, 1u);
  EXPECT_EQ(stats.skipped[0].reason, "parse failure: 3 bytes are not a valid ChakraProtoMsg.Node");
  EXPECT_EQ(stats.skipped[1].message_index, 3u);
  EXPECT_EQ(stats.skipped[1].reason, "truncated message: length prefix says 5 bytes but only 1 remain");
  EXPECT_EQ(stats.bytes_consumed, bytes.size());
}

TEST(EtReader, ZeroLengthMessagesAreCountedAndSkipped) {
  std::string bytes = metadata_bytes();
  bytes += '\0';
  append_length_prefixed(bytes, testing::sample_nodes()[2], "node 2");
  bytes += '\0';
  auto reader = EtReader::from_memory(bytes, "mem.et");
  Node node;
  ASSERT_TRUE(reader.next(node));
  EXPECT_EQ(node.id(), 2u);
  EXPECT_FALSE(reader.next(node));
  EXPECT_EQ(reader.stats().zero_length_messages, 2u);
  EXPECT_EQ(reader.stats().nodes_read, 1u);
}

TEST(EtReader, EmptyMetadataIsAValidZeroLengthFirstMessage) {
  std::string bytes(1, '\0');
  append_length_prefixed(bytes, testing::sample_nodes()[0], "node 0");
  auto reader = EtReader::from_memory(bytes, "mem.et");
  EXPECT_EQ(reader.metadata().version(), "");
  Node node;
  EXPECT_TRUE(reader.next(node));
}

TEST(EtReader, UnknownFieldsAndEnumValuesSurviveARoundTrip) {
  Node node = testing::sample_nodes()[0];
  std::string node_bytes = node.SerializeAsString();
  // Field 99 (varint 5) and field 100 (a 3-byte string): from a newer schema.
  node_bytes += std::string("\x98\x06\x05\xa2\x06\x03" "abc", 9);
  // type = 42: not a NodeType this schema knows.
  node_bytes += std::string("\x18\x2a", 2);
  Node parsed;
  ASSERT_TRUE(parsed.ParseFromString(node_bytes));
  EXPECT_EQ(static_cast<int>(parsed.type()), 42);
  EXPECT_EQ(parsed.GetReflection()->GetUnknownFields(parsed).field_count(), 2);

  std::string file = metadata_bytes();
  append_length_prefixed(file, parsed, "node");
  auto reader = EtReader::from_memory(file, "mem.et");
  Node read_back;
  ASSERT_TRUE(reader.next(read_back));
  EXPECT_EQ(static_cast<int>(read_back.type()), 42);
  EXPECT_EQ(encode_trace(reader.metadata(), {read_back}), file);
}

TEST(EtReader, ZeroOneofMemberIsStillWritten) {
  Node node;
  node.set_id(1);
  auto* attr = node.add_attr();
  attr->set_name("comm_type");
  attr->set_int64_val(0);
  std::string bytes = node.SerializeAsString();
  Node parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.attr(0).value_case(), ChakraProtoMsg::AttributeProto::kInt64Val);
  EXPECT_NE(bytes.find(std::string("\x48\x00", 2)), std::string::npos);  // field 9, varint 0
}

}  // namespace
}  // namespace snr::chakra
