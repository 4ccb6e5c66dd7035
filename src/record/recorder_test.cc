#include "record/recorder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <thread>

#include "asm/assembler.h"
#include "common/file_io.h"
#include "device/npu_device.h"
#include "device/serve.h"
#include "isa/address_map.h"
#include "record/reexecute.h"
#include "sim/elf_loader.h"

namespace snr::record {
namespace {

struct Program {
  sim::ProgramImage image;
  elf::Image elf;
};

Program ring_exchange() {
  const std::string source = read_file(std::string(SNR_RECORD_TESTDATA) + "/ring_exchange.s");
  const std::vector<uint8_t> bytes = assembler::assemble_to_elf(source, {.source_name = "ring_exchange.s"}).value();
  elf::Image image = elf::read_elf(bytes, "ring_exchange.s").value();
  return {sim::program_from_elf(image, "ring_exchange"), image};
}

hw::HwConfig config_with_chips(uint64_t chips) {
  hw::HwConfig config = hw::preset("tpu-v4-like");
  hw::apply_overrides(config, {fmt::format("chips={}", chips)});
  return config;
}

// Serves `device` for one session on a loopback port and records through it.
snapshot::Snapshot record_from(device::NpuDevice& device, RecordOptions options, bool binary_reads = true) {
  rsp::Listener listener("127.0.0.1", 0);
  std::thread server([&] { device::serve(device, listener, {.once = true, .log = {}}); });
  snapshot::Snapshot snapshot;
  try {
    rsp::Client client(rsp::connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000)),
                       std::chrono::milliseconds(20000));
    RemoteTarget target(client, std::chrono::milliseconds(20000));
    target.use_binary_reads(binary_reads);
    EXPECT_EQ(target.binary_reads(), binary_reads);
    snapshot = record_window(target, options);
  } catch (...) {
    server.join();
    throw;
  }
  server.join();
  return snapshot;
}

std::string problems_text(const CheckResult& result) {
  std::string text;
  for (const std::string& p : result.problems) text += p + "\n";
  return text;
}

TEST(Recorder, RecordsEveryChipOfAMultiChipDmaProgramAndReexecutes) {
  Program program = ring_exchange();
  device::NpuDevice device(config_with_chips(4), program.image);
  RecordOptions options;
  options.breakpoint_address = program.elf.find_symbol("window_start")->value;
  options.breakpoint_text = "window_start";
  options.count_per_chip = 1000;
  snapshot::Snapshot snapshot = record_from(device, options);
  ASSERT_EQ(snapshot.header.recorded_chips_size(), 4);
  EXPECT_TRUE(snapshot::validate_snapshot(snapshot).empty());
  for (const auto& chip : snapshot.chips) {
    EXPECT_EQ(chip.final_state().end(), "exit") << chip.chip();
    EXPECT_GT(chip.instruction_count(), 100u);
    // The window starts after the fill loop: the buffer the first DMA
    // reads was written before the window, so it is saved.
    bool has_smem = false;
    for (const auto& region : chip.memory()) has_smem |= region.space() == snapshot::pb::SPACE_SMEM;
    EXPECT_TRUE(has_smem) << chip.chip();
  }
  EXPECT_GT(snapshot.header.stats().naive_full_state_bytes(), 1000 * snapshot.header.stats().captured_bytes());
  const CheckResult result = check_snapshot(snapshot);
  EXPECT_TRUE(result.matched) << problems_text(result);
  EXPECT_EQ(result.instructions, snapshot.header.stats().instructions());

  // Damage one saved input: re-execution must notice.
  snapshot::Snapshot damaged = snapshot;
  for (auto& chip : damaged.chips) {
    for (auto& region : *chip.mutable_memory()) {
      if (region.space() == snapshot::pb::SPACE_SMEM) (*region.mutable_data())[0] ^= 1;
    }
  }
  EXPECT_FALSE(check_snapshot(damaged).matched);
}

// Pipelined steps with binary reads and one-at-a-time steps with hex reads
// must save exactly the same snapshot, with fewer round trips.
TEST(Recorder, PipelinedBinaryRecordingEqualsOneAtATimeHexRecording) {
  Program program = ring_exchange();
  RecordOptions options;
  options.breakpoint_address = program.elf.find_symbol("window_start")->value;
  options.count_per_chip = 5000;
  device::NpuDevice fast_device(config_with_chips(4), program.image);
  const snapshot::Snapshot fast = record_from(fast_device, options, true);
  options.pipeline_steps = false;
  device::NpuDevice slow_device(config_with_chips(4), program.image);
  const snapshot::Snapshot slow = record_from(slow_device, options, false);
  ASSERT_EQ(fast.chips.size(), slow.chips.size());
  for (size_t i = 0; i < fast.chips.size(); ++i) {
    EXPECT_EQ(fast.chips[i].SerializeAsString(), slow.chips[i].SerializeAsString()) << "chip " << i;
  }
  EXPECT_EQ(fast.header.schedule(), slow.header.schedule());
  EXPECT_EQ(fast.header.stats().instructions(), slow.header.stats().instructions());
  EXPECT_EQ(fast.header.stats().captured_bytes(), slow.header.stats().captured_bytes());
  EXPECT_LT(fast.header.stats().round_trips() * 2, slow.header.stats().round_trips());
  EXPECT_TRUE(check_snapshot(fast).matched);
}

TEST(Recorder, ShortWindowOnOneChipSavesOnlyReadBeforeWrite) {
  Program program = ring_exchange();
  device::NpuDevice device(config_with_chips(2), program.image);
  RecordOptions options;
  options.count_per_chip = 12;
  options.chips = std::vector<uint32_t>{1};
  snapshot::Snapshot snapshot = record_from(device, options);
  ASSERT_EQ(snapshot.header.recorded_chips_size(), 1);
  const snapshot::pb::Chip& chip = snapshot.chips.at(0);
  EXPECT_EQ(chip.chip(), 1u);
  EXPECT_EQ(chip.instruction_count(), 12u);
  // csrr s0, mhartid reads a CSR; no x register is read before it is written
  // in the first instructions except sp-free ones: the saved set is small.
  for (const auto& value : chip.registers()) EXPECT_NE(value.kind(), snapshot::pb::STATE_V);
  const CheckResult result = check_snapshot(snapshot);
  EXPECT_TRUE(result.matched) << problems_text(result);
}

TEST(Recorder, DamagedPcSequenceReportsTheFirstDivergence) {
  Program program = ring_exchange();
  device::NpuDevice device(config_with_chips(1), program.image);
  RecordOptions options;
  options.count_per_chip = 20;
  snapshot::Snapshot snapshot = record_from(device, options);
  snapshot::pb::Chip& chip = snapshot.chips.at(0);
  std::vector<uint64_t> pcs = snapshot::decode_pcs(chip);
  pcs[5] += 4;
  chip.set_pc_deltas(snapshot::encode_pc_deltas(pcs));
  const CheckResult result = check_snapshot(snapshot);
  ASSERT_FALSE(result.matched);
  EXPECT_NE(result.problems.at(0).find("step 5 (chip 0 instruction 5): expected pc"), std::string::npos)
      << result.problems.at(0);
}

// Reads that switch chips take the thread switch along in the same round
// trip, and a read as large as one reply comes back whole.
TEST(RemoteTarget, ChipSwitchingReadsReturnEachChipsBytesInOneRoundTrip) {
  Program program = ring_exchange();
  device::NpuDevice device(config_with_chips(2), program.image);
  constexpr uint64_t kAddress = isa::kHbmBase + 0x10000;
  constexpr uint64_t kBytes = 5 << 20;  // more than one 4 MiB reply
  std::array<std::string, 2> pattern;
  for (uint32_t chip = 0; chip < 2; ++chip) {
    pattern[chip].resize(kBytes);
    // Framing characters included, so escapes are exercised.
    for (uint64_t i = 0; i < kBytes; ++i) pattern[chip][i] = static_cast<char>((i * 7 + chip * 131 + i / 4099) & 0xFF);
    ASSERT_TRUE(device.write_memory(chip + 1, kAddress, pattern[chip]).ok());
  }
  rsp::Listener listener("127.0.0.1", 0);
  std::thread server([&] { device::serve(device, listener, {.once = true, .log = {}}); });
  try {
    rsp::Client client(rsp::connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000)),
                       std::chrono::milliseconds(20000));
    RemoteTarget target(client, std::chrono::milliseconds(20000));
    ASSERT_TRUE(target.binary_reads());
    for (int round = 0; round < 3; ++round) {
      for (uint32_t chip = 0; chip < 2; ++chip) {
        const uint64_t before = target.round_trips();
        const std::string small = target.read_memory(chip + 1, kAddress + 1000, 4096);
        EXPECT_EQ(target.round_trips() - before, 1u) << "chip " << chip;
        EXPECT_EQ(small, pattern[chip].substr(1000, 4096)) << "chip " << chip;
        EXPECT_EQ(target.read_general(chip + 1).pc, device.system().chip(chip).pc) << "chip " << chip;
      }
    }
    EXPECT_EQ(target.read_memory(1, kAddress, kBytes), pattern[0]);
    EXPECT_EQ(target.read_memory(2, kAddress, kBytes), pattern[1]);
    // An error reply after a pipelined thread switch leaves the session in step.
    EXPECT_FALSE(target.try_read_memory(1, 0x7000000000000000, 16).has_value());
    EXPECT_EQ(target.read_memory(2, kAddress, 64), pattern[1].substr(0, 64));
    target.detach();
  } catch (...) {
    server.join();
    throw;
  }
  server.join();
}

TEST(SnapshotHardware, TheHeadersConfigMustBeValidForItsChipCount) {
  hw::HwConfig config = hw::preset("tpu-v4-like");
  config.chip_count = 2;
  snapshot::pb::Header header;
  header.set_hw_config_yaml(config.to_yaml());
  header.set_chip_count(2);
  EXPECT_EQ(snapshot_hardware(header).chip_count, 2u);
  header.set_chip_count(4);
  EXPECT_THROW((void)snapshot_hardware(header), Error);  // 4 chips on a 2-chip config
  header.set_chip_count(2);
  config.mxu_count = 0;  // a chip without its matrix unit
  header.set_hw_config_yaml(config.to_yaml());
  EXPECT_THROW((void)snapshot_hardware(header), Error);
}

}  // namespace
}  // namespace snr::record

