#include "rsp/packet.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "rsp/client.h"

namespace snr::rsp {
namespace {

std::vector<Incoming> decode_all(std::string_view bytes, size_t limit = kMaxPayloadBytes) {
  PacketDecoder decoder(limit);
  std::vector<Incoming> out;
  decoder.feed(bytes, out);
  return out;
}

TEST(Packet, FrameMatchesTheProtocolExample) {
  // The checksum is the modulo-256 sum of the body.
  EXPECT_EQ(frame_packet("OK"), "$OK#9a");
  EXPECT_EQ(frame_packet(""), "$#00");
}

TEST(Packet, EscapesSurviveARoundTrip) {
  const std::string payload = std::string("a$b#c}d*e") + '\0' + "\x03";
  std::vector<Incoming> out = decode_all(frame_packet(payload));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Incoming::Kind::kPacket);
  EXPECT_EQ(out[0].payload, payload);
}

TEST(Packet, DecodesAcksInterruptsAndSplitInput) {
  PacketDecoder decoder;
  std::vector<Incoming> out;
  const std::string stream = "+-\x03junk" + frame_packet("qSupported") + frame_packet("g");
  for (char c : stream) decoder.feed(std::string_view(&c, 1), out);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].kind, Incoming::Kind::kAck);
  EXPECT_EQ(out[1].kind, Incoming::Kind::kNack);
  EXPECT_EQ(out[2].kind, Incoming::Kind::kInterrupt);
  EXPECT_EQ(out[3].payload, "qSupported");
  EXPECT_EQ(out[4].payload, "g");
  EXPECT_EQ(decoder.noise_bytes(), 4u);
}

TEST(Packet, RunLengthExpands) {
  // "0* " = '0' followed by (' ' - 29) = 3 more zeros.
  std::string body = "0* ";
  uint8_t sum = 0;
  for (char c : body) sum = static_cast<uint8_t>(sum + c);
  std::vector<Incoming> out = decode_all(fmt::format("${}#{:02x}", body, sum));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, "0000");
}

TEST(Packet, BadChecksumAndBadDigitsAreReported) {
  std::vector<Incoming> out = decode_all("$OK#00$OK#zz");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, Incoming::Kind::kBadChecksum);
  EXPECT_EQ(out[1].kind, Incoming::Kind::kMalformed);
}

TEST(Packet, OversizedPacketIsConsumedNotBuffered) {
  const std::string big(1000, 'a');
  std::vector<Incoming> out = decode_all(frame_packet(big) + frame_packet("g"), 100);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, Incoming::Kind::kMalformed);
  EXPECT_NE(out[0].payload.find("limit"), std::string::npos);
  EXPECT_EQ(out[1].payload, "g");
}

TEST(Packet, DanglingEscapeAndBadRunLengthAreMalformed) {
  std::string why;
  EXPECT_FALSE(decode_body("ab}", 100, &why));
  EXPECT_NE(why.find("escape"), std::string::npos);
  EXPECT_FALSE(decode_body("*5", 100, &why));
  EXPECT_FALSE(decode_body("a*\x01", 100, &why));
  EXPECT_FALSE(decode_body("a*~a*~", 100, &why));  // expansion beyond the limit
}

TEST(Packet, BinaryPayloadWithEverySpecialByteRoundTrips) {
  // Every byte value, the four the framing escapes ('}', '#', '$', '*')
  // repeated back to back, and a payload that ends in one of them.
  std::string payload = "b";
  for (int i = 0; i < 256; ++i) payload.push_back(static_cast<char>(i));
  payload += "}}##$$**}#$*";
  payload += std::string(100, '*');
  const std::string framed = frame_packet(payload);
  // No unescaped specials inside the body.
  const std::string_view body = std::string_view(framed).substr(1, framed.size() - 4);
  for (size_t i = 0; i < body.size(); ++i) {
    EXPECT_TRUE(body[i] != '$' && body[i] != '#' && body[i] != '*') << "offset " << i;
    if (body[i] == '}') ++i;
  }
  std::vector<Incoming> out = decode_all(framed);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].kind, Incoming::Kind::kPacket) << out[0].payload;
  EXPECT_EQ(out[0].payload, payload);
  // Fed one byte at a time and in odd-sized pieces, the result is the same.
  for (size_t piece : {size_t{1}, size_t{3}, size_t{7}, size_t{64}}) {
    PacketDecoder decoder;
    std::vector<Incoming> items;
    for (size_t at = 0; at < framed.size(); at += piece) decoder.feed(std::string_view(framed).substr(at, piece), items);
    ASSERT_EQ(items.size(), 1u) << piece;
    EXPECT_EQ(items[0].payload, payload) << piece;
  }
}

TEST(Packet, LargeRandomBinaryPayloadRoundTrips) {
  std::string payload(kMaxPayloadBytes, '\0');
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (char& c : payload) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<char>(state >> 56);
  }
  std::vector<Incoming> out = decode_all(frame_packet(payload));
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].kind, Incoming::Kind::kPacket) << out[0].payload;
  EXPECT_TRUE(out[0].payload == payload);
  // One byte over the limit is reported, not buffered.
  out = decode_all(frame_packet(payload + "x"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Incoming::Kind::kMalformed);
}

TEST(Packet, ChecksumMatchesAPlainSum) {
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes.push_back(static_cast<char>(i * 7 + i / 13));
  for (size_t length : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{2047}, size_t{2048}, size_t{2049},
                        size_t{5000}}) {
    uint8_t expected = 0;
    for (size_t i = 0; i < length; ++i) expected = static_cast<uint8_t>(expected + static_cast<uint8_t>(bytes[i]));
    EXPECT_EQ(byte_sum(std::string_view(bytes).substr(0, length)), expected) << length;
  }
}

TEST(Packet, NewStartInsideABodyDropsTheOldPacket) {
  std::vector<Incoming> out = decode_all("$abc$" + frame_packet("g").substr(1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, "g");
}

TEST(Packet, HexHelpers) {
  EXPECT_EQ(hex_encode(std::string("\x01\xab", 2)), "01ab");
  EXPECT_EQ(hex_decode("01AB").value(), (std::vector<uint8_t>{1, 0xab}));
  EXPECT_FALSE(hex_decode("0"));
  EXPECT_FALSE(hex_decode("zz"));
  EXPECT_EQ(parse_hex_u64("ffffffffffffffff").value(), UINT64_MAX);
  EXPECT_FALSE(parse_hex_u64("10000000000000000"));
  EXPECT_FALSE(parse_hex_u64(""));
  EXPECT_EQ(le_bytes(0x0102, 4), std::string("\x02\x01\x00\x00", 4));
}

TEST(StopReplyParse, ReadsExpeditedRegistersThreadAndExtras) {
  StopReply stop = parse_stop_reply("T0520:1000000000000000;02:f0ff000000000000;thread:p1.3;snr-chip:blocked;");
  EXPECT_EQ(stop.signal, 5);
  ASSERT_EQ(stop.registers.size(), 2u);
  EXPECT_EQ(stop.registers[0].first, 0x20u);
  EXPECT_EQ(stop.registers[0].second[0], 0x10);
  EXPECT_EQ(stop.thread.value(), 3u);
  EXPECT_EQ(stop.extra.at("snr-chip"), "blocked");
  EXPECT_EQ(parse_stop_reply("W2a").exit_code, 42);
  EXPECT_THROW(parse_stop_reply("Q05"), Error);
  EXPECT_THROW(parse_stop_reply("T0520:zz;"), Error);
  EXPECT_THROW(parse_stop_reply("T"), Error);
}

TEST(FeatureDocument, NumbersRegistersAndFindsIncludes) {
  DocumentParts parts = parse_feature_document(
      "<target><architecture>riscv:rv64</architecture><!-- a <comment> -->"
      "<xi:include href=\"cpu.xml\"/><feature name='f'><reg name=\"a\" bitsize=\"32\" regnum=\"40\" group=\"g\"/>"
      "</feature></target>",
      "t.xml");
  EXPECT_EQ(parts.architecture, "riscv:rv64");
  ASSERT_EQ(parts.items.size(), 2u);
  EXPECT_EQ(std::get<std::string>(parts.items[0]), "cpu.xml");
  const auto& reg = std::get<RegisterInfo>(parts.items[1]);
  EXPECT_EQ(reg.regnum, 40u);
  EXPECT_EQ(reg.feature, "f");
  EXPECT_EQ(reg.group, "g");
  EXPECT_THROW(parse_feature_document("<reg name=\"a\" bitsize=\"7\"/>", "t.xml"), Error);
  EXPECT_THROW(parse_feature_document("<reg name=\"a\" bitsize=\"64", "t.xml"), Error);
  EXPECT_THROW(parse_feature_document("<reg name=a bitsize=\"64\"/>", "t.xml"), Error);
}

}  // namespace
}  // namespace snr::rsp
