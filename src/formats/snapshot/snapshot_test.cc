#include "formats/snapshot/snapshot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/file_io.h"
#include "isa/isa.h"

namespace snr::snapshot {
namespace {

Snapshot sample() {
  Snapshot s;
  s.header.set_isa_hash(isa::isa_table_hash());
  s.header.set_hw_config_yaml("chips: 1\n");
  s.header.set_chip_count(1);
  s.header.add_recorded_chips(0);
  s.header.mutable_stats()->set_instructions(3);
  std::string schedule;
  append_varint(schedule, 0);
  append_varint(schedule, 3);
  s.header.set_schedule(schedule);
  pb::Chip& chip = s.chips.emplace_back();
  chip.set_chip(0);
  chip.set_recorded(true);
  const std::vector<uint64_t> pcs = {0x10000, 0x10004, 0x10000};
  chip.set_first_pc(pcs[0]);
  chip.set_instruction_count(pcs.size());
  chip.set_pc_deltas(encode_pc_deltas(pcs));
  pb::CodeRange* code = chip.add_code();
  code->set_address(0x10000);
  code->set_data(std::string(8, '\x13'));
  pb::RegisterValue* reg = chip.add_registers();
  reg->set_kind(pb::STATE_X);
  reg->set_index(10);
  reg->set_value(std::string(8, '\x01'));
  pb::MemoryRegion* region = chip.add_memory();
  region->set_space(pb::SPACE_HBM);
  region->set_address(0x100000000);
  region->set_data("abcd");
  for (int i = 0; i < 32; ++i) chip.mutable_final_state()->add_x(static_cast<uint64_t>(i));
  return s;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

TEST(Snapshot, RoundTripsAndIsDeterministic) {
  const std::string encoded = encode_snapshot(sample());
  EXPECT_EQ(encoded, encode_snapshot(sample()));
  Snapshot back = decode_snapshot(bytes_of(encoded), "t.snr").value();
  ASSERT_EQ(back.chips.size(), 1u);
  EXPECT_EQ(decode_pcs(back.chips[0]), (std::vector<uint64_t>{0x10000, 0x10004, 0x10000}));
  EXPECT_EQ(back.chips[0].memory(0).data(), "abcd");
  EXPECT_TRUE(validate_snapshot(back).empty());
}

TEST(Snapshot, StreamingWriteIsByteIdenticalToEncode) {
  Snapshot two_chips = sample();
  two_chips.chips.push_back(two_chips.chips[0]);
  two_chips.chips[1].set_chip(1);
  const std::string expected = encode_snapshot(two_chips, 1);
  const auto path = std::filesystem::temp_directory_path() / fmt::format("snr-stream-{}.snr", ::getpid());
  const uint64_t written = write_snapshot_streaming(path, std::move(two_chips), 1);
  const std::string bytes = read_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(written, expected.size());
  EXPECT_EQ(bytes, expected);
}

TEST(Snapshot, RejectsDamageWithSectionOffsetAndExpectation) {
  const std::string good = encode_snapshot(sample());
  auto error_of = [](const std::string& bytes) {
    Result<Snapshot> r = decode_snapshot(bytes_of(bytes), "t.snr");
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : std::string(r.error().what());
  };
  EXPECT_NE(error_of(good.substr(0, 10)).find("file header: truncated"), std::string::npos);
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  EXPECT_NE(error_of(bad_magic).find("bad magic"), std::string::npos);
  std::string bad_version = good;
  bad_version[8] = 9;
  EXPECT_NE(error_of(bad_version).find("format version: expected 1, found 9"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() - 5)).find("(truncated)"), std::string::npos);
  std::string flipped = good;
  flipped[flipped.size() - 3] ^= 0x40;
  const std::string flipped_error = error_of(flipped);
  EXPECT_NE(flipped_error.find("section 1 (chip record 0)"), std::string::npos) << flipped_error;
  EXPECT_NE(flipped_error.find("checksum"), std::string::npos) << flipped_error;
  EXPECT_NE(error_of(good + "xx").find("file header at byte 16"), std::string::npos);
}

TEST(Snapshot, ValidationFindsSemanticProblems) {
  Snapshot s = sample();
  s.header.set_isa_hash(1);
  s.chips[0].mutable_registers(0)->set_value("short");
  s.chips[0].set_first_pc(0x20000);
  s.chips[0].mutable_memory(0)->set_space(pb::SPACE_VMEM);
  const std::vector<std::string> problems = validate_snapshot(s);
  std::string all;
  for (const std::string& p : problems) all += p + "\n";
  EXPECT_NE(all.find("ISA table hash"), std::string::npos) << all;
  EXPECT_NE(all.find("expected 8 bytes, found 5"), std::string::npos) << all;
  EXPECT_NE(all.find("not in any saved code range"), std::string::npos) << all;
  EXPECT_NE(all.find("is in SPACE_HBM, but the region says SPACE_VMEM"), std::string::npos) << all;
}

TEST(Snapshot, PcDeltasAreCheckedAgainstTheCount) {
  pb::Chip chip;
  chip.set_instruction_count(3);
  chip.set_first_pc(0x1000);
  chip.set_pc_deltas(std::string("\x80", 1));
  EXPECT_THROW(decode_pcs(chip), Error);
  chip.set_pc_deltas(std::string("\x00\x00\x00", 3));
  EXPECT_THROW(decode_pcs(chip), Error);  // a trailing byte
  EXPECT_EQ(zigzag(-1), 1u);
  EXPECT_EQ(unzigzag(zigzag(-123456789)), -123456789);
}

}  // namespace
}  // namespace snr::snapshot

namespace snr::snapshot {
namespace {

// A snapshot recorded by `snr record` from a 2-chip device (40 instructions
// of src/record/testdata/ring_exchange.s per chip): the reader keeps
// reading files written earlier, and re-encoding reproduces them byte for byte.
TEST(SnapshotGolden, RecordedFileDecodesAndReencodesIdentically) {
  const std::string path = std::string(SNR_SNAPSHOT_TESTDATA) + "/ring_2chips.snr";
  const std::vector<uint8_t> bytes = read_file_bytes(path);
  Snapshot snapshot = decode_snapshot(bytes, path).value();
  EXPECT_EQ(snapshot.header.chip_count(), 2u);
  EXPECT_EQ(snapshot.header.breakpoint(), "window_start");
  ASSERT_EQ(snapshot.chips.size(), 2u);
  for (const pb::Chip& chip : snapshot.chips) {
    EXPECT_EQ(chip.instruction_count(), 40u);
    EXPECT_EQ(decode_pcs(chip).size(), 40u);
    EXPECT_EQ(chip.symbols(0).name(), "window_start");
  }
  const std::string again = encode_snapshot(snapshot);
  EXPECT_TRUE(again == std::string(bytes.begin(), bytes.end()));
}

}  // namespace
}  // namespace snr::snapshot
