#include "formats/snapshot/shared_snapshot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "common/file_io.h"
#include "common/hash.h"
#include "formats/snapshot/snapshot_writer.h"
#include "isa/isa.h"

namespace snr::snapshot {
namespace {

// Two chips; chip 1's regions sit between other fields so the split keeps
// field order.
Snapshot sample() {
  Snapshot s;
  s.header.set_isa_hash(isa::isa_table_hash());
  s.header.set_chip_count(2);
  for (uint32_t c = 0; c < 2; ++c) {
    pb::Chip& chip = s.chips.emplace_back();
    chip.set_chip(c);
    pb::RegisterValue* reg = chip.add_registers();
    reg->set_kind(pb::STATE_X);
    reg->set_index(5);
    reg->set_value(std::string(8, static_cast<char>(c + 1)));
    for (int r = 0; r < 3; ++r) {
      pb::MemoryRegion* region = chip.add_memory();
      region->set_space(pb::SPACE_HBM);
      region->set_address(0x100000000 + 0x1000 * static_cast<uint64_t>(r));
      region->set_data(std::string(100 + static_cast<size_t>(r), static_cast<char>('a' + r + c)));
    }
    chip.add_symbols()->set_name("op" + std::to_string(c));
  }
  return s;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

TEST(SharedSnapshot, DecodesLikeTheMessageDecoderWithMemoryAsViews) {
  const std::vector<uint8_t> encoded = bytes_of(encode_snapshot(sample()));
  const Snapshot full = decode_snapshot(encoded, "t.snr").value();
  const SharedSnapshot shared = decode_snapshot_shared(encoded, "t.snr").value();
  ASSERT_EQ(shared.snapshot.chips.size(), 2u);
  ASSERT_EQ(shared.memory.size(), 2u);
  EXPECT_TRUE(shared.snapshot.header.SerializeAsString() == full.header.SerializeAsString());
  for (size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(shared.snapshot.chips[c].memory_size(), 0);
    pb::Chip without_memory = full.chips[c];
    without_memory.clear_memory();
    EXPECT_TRUE(shared.snapshot.chips[c].SerializeAsString() == without_memory.SerializeAsString()) << c;
    ASSERT_EQ(shared.memory[c].size(), 3u);
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(shared.memory[c][r].space, full.chips[c].memory(r).space());
      EXPECT_EQ(shared.memory[c][r].address, full.chips[c].memory(r).address());
      EXPECT_EQ(shared.memory[c][r].data, full.chips[c].memory(r).data());
    }
  }
  // The identity is the whole file's FNV-1a, as other tools compute it.
  EXPECT_EQ(shared.identity_hash,
            fnv1a64(std::string_view(reinterpret_cast<const char*>(encoded.data()), encoded.size())));
}

TEST(SharedSnapshot, RejectsDamageLikeTheMessageDecoder) {
  const std::string good = encode_snapshot(sample());
  for (const std::string& bad : {good.substr(0, 10), good.substr(0, good.size() - 5), good + "xx"}) {
    const Result<Snapshot> full = decode_snapshot(bytes_of(bad), "t.snr");
    const Result<SharedSnapshot> shared = decode_snapshot_shared(bytes_of(bad), "t.snr");
    ASSERT_FALSE(full.ok());
    ASSERT_FALSE(shared.ok());
    EXPECT_EQ(std::string(shared.error().what()), std::string(full.error().what()));
  }
  std::string flipped = good;
  flipped[flipped.size() - 3] ^= 0x40;
  const Result<SharedSnapshot> shared = decode_snapshot_shared(bytes_of(flipped), "t.snr");
  ASSERT_FALSE(shared.ok());
  EXPECT_NE(std::string(shared.error().what()).find("checksum"), std::string::npos);
  EXPECT_FALSE(read_snapshot_shared("/nonexistent/x.snr").ok());
}

TEST(SharedSnapshot, ValidationChecksTheSharedRegions) {
  Snapshot s = sample();
  s.chips[0].mutable_memory(1)->set_space(pb::SPACE_VMEM);
  const SharedSnapshot shared = decode_snapshot_shared(bytes_of(encode_snapshot(s)), "t.snr").value();
  std::string all;
  for (const std::string& p : validate_shared_snapshot(shared)) all += p + "\n";
  EXPECT_NE(all.find("chip 0 memory region 1: address 0x100001000 is in SPACE_HBM, but the region says SPACE_VMEM"),
            std::string::npos)
      << all;
}

TEST(SharedSnapshot, ReadsTheGoldenRecording) {
  const std::string path = std::string(SNR_SNAPSHOT_TESTDATA) + "/ring_2chips.snr";
  const Snapshot full = decode_snapshot(read_file_bytes(path), path).value();
  const SharedSnapshot shared = read_snapshot_shared(path).value();
  ASSERT_EQ(shared.memory.size(), full.chips.size());
  for (size_t c = 0; c < full.chips.size(); ++c) {
    ASSERT_EQ(shared.memory[c].size(), static_cast<size_t>(full.chips[c].memory_size()));
    for (size_t r = 0; r < shared.memory[c].size(); ++r) {
      EXPECT_EQ(shared.memory[c][r].data, full.chips[c].memory(static_cast<int>(r)).data());
    }
  }
}

// The streaming writer: the file is encode_snapshot's byte for byte, also
// when a section's compressed payload spans several of its 4 MiB write
// pieces (10 MiB of incompressible memory here), and what it keeps equals
// reading that file back.
TEST(SharedSnapshot, WrittenStreamingEqualsEncodedAndReadBack) {
  Snapshot big = sample();
  std::mt19937_64 random(17);
  std::string noise(10 << 20, '\0');
  for (size_t i = 0; i + 8 <= noise.size(); i += 8) {
    const uint64_t word = random();
    std::memcpy(noise.data() + i, &word, 8);
  }
  big.chips[1].mutable_memory(1)->set_data(noise);
  for (int level : {1, 3}) {
    const std::string expected = encode_snapshot(big, level);
    const auto path = std::filesystem::temp_directory_path() / fmt::format("snr-shared-{}-{}.snr", ::getpid(), level);
    Snapshot moved = big;
    const WrittenSnapshot written = write_snapshot_shared(path, std::move(moved), level);
    const std::string bytes = read_file(path);
    const SharedSnapshot back = read_snapshot_shared(path.string()).value();
    std::filesystem::remove(path);
    EXPECT_EQ(written.file_bytes, expected.size());
    EXPECT_TRUE(bytes == expected) << "level " << level;
    EXPECT_EQ(written.shared.identity_hash, back.identity_hash);
    EXPECT_TRUE(written.shared.snapshot.header.SerializeAsString() == back.snapshot.header.SerializeAsString());
    ASSERT_EQ(written.shared.snapshot.chips.size(), back.snapshot.chips.size());
    ASSERT_EQ(written.shared.memory.size(), back.memory.size());
    for (size_t c = 0; c < back.memory.size(); ++c) {
      EXPECT_TRUE(written.shared.snapshot.chips[c].SerializeAsString() == back.snapshot.chips[c].SerializeAsString());
      ASSERT_EQ(written.shared.memory[c].size(), back.memory[c].size());
      for (size_t r = 0; r < back.memory[c].size(); ++r) {
        EXPECT_EQ(written.shared.memory[c][r].space, back.memory[c][r].space);
        EXPECT_EQ(written.shared.memory[c][r].address, back.memory[c][r].address);
        EXPECT_TRUE(written.shared.memory[c][r].data == back.memory[c][r].data) << c << " " << r;
      }
    }
  }
}

}  // namespace
}  // namespace snr::snapshot
