#include "device/npu_device.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "asm/assembler.h"
#include "device/memory_windows.h"
#include "hw/config.h"
#include "rsp/packet.h"
#include "rsp/server.h"
#include "sim/elf_loader.h"

namespace snr::device {
namespace {

const std::function<bool()> kNever = [] { return false; };

sim::ProgramImage assemble_program(std::string_view source) {
  const std::vector<uint8_t> bytes = assembler::assemble_to_elf(source, {.source_name = "t.s"}).value();
  return sim::program_from_elf(elf::read_elf(bytes, "t.s").value(), "t.s");
}

hw::HwConfig small_config(uint64_t chips) {
  hw::HwConfig config = hw::preset("tpu-v4-like");
  hw::apply_overrides(config, {fmt::format("chips={}", chips)});
  return config;
}

constexpr std::string_view kCounter = R"(
  .globl _start
_start:
  csrr a0, mhartid
  li t0, 0
loop:
  addi t0, t0, 1
  li t1, 5
  blt t0, t1, loop
  .globl done
done:
  li a7, 93
  ecall
)";

TEST(NpuDevice, StepsReportExpeditedWrittenRegisters) {
  NpuDevice device(small_config(2), assemble_program(kCounter));
  rsp::PacketHandler handler(device);
  const std::string reply = handler.handle("vCont;s:2", kNever).reply;  // csrr a0, mhartid on chip 1
  EXPECT_NE(reply.find("thread:2;"), std::string::npos) << reply;
  EXPECT_NE(reply.find("0a:0100000000000000;"), std::string::npos) << reply;  // a0 = 1
  EXPECT_NE(reply.find("20:0400010000000000;"), std::string::npos) << reply;  // pc = 0x10004
  EXPECT_EQ(handler.handle("Hg1", kNever).reply, "OK");
  EXPECT_EQ(handler.handle("p20", kNever).reply, "0000010000000000");  // chip 0 has not moved
  EXPECT_EQ(handler.handle("p23", kNever).reply, "0000000000000000");  // mhartid of chip 0
  EXPECT_EQ(handler.handle("Hg2", kNever).reply, "OK");
  EXPECT_EQ(handler.handle("p23", kNever).reply, "0100000000000000");
  EXPECT_EQ(handler.handle("p24", kNever).reply, "0200000000000000");  // nchips
}

TEST(NpuDevice, ContinueStopsAtBreakpointAndRunsToExit) {
  NpuDevice device(small_config(2), assemble_program(kCounter));
  rsp::PacketHandler handler(device);
  const uint64_t done = 0x10000 + 6 * 4;
  EXPECT_EQ(handler.handle(fmt::format("Z0,{:x},4", done), kNever).reply, "OK");
  const std::string hit = handler.handle("c", kNever).reply;
  EXPECT_EQ(hit.substr(0, 3), "T05");
  EXPECT_NE(hit.find(fmt::format("20:{};", rsp::hex_encode(rsp::le_bytes(done, 8)))), std::string::npos) << hit;
  EXPECT_EQ(handler.handle(fmt::format("z0,{:x},4", done), kNever).reply, "OK");
  EXPECT_EQ(handler.handle("c", kNever).reply, "W00");
  EXPECT_EQ(handler.handle("Z0,3,4", kNever).reply, "E03");  // not an instruction
}

TEST(NpuDevice, MemoryWindowsExposeVectorRegistersAndSemaphores) {
  NpuDevice device(small_config(1), assemble_program(kCounter));
  rsp::PacketHandler handler(device);
  device.system().chip(0).v[3].element[1] = 0xdeadbeef;
  device.system().chip(0).semaphore[2] = 7;
  EXPECT_EQ(handler.handle(fmt::format("m{:x},8", vector_window_address(3)), kNever).reply, "00000000efbeadde");
  EXPECT_EQ(handler.handle(fmt::format("m{:x},4", kSemaphoreWindowBase + 8), kNever).reply, "07000000");
  EXPECT_EQ(handler.handle(fmt::format("p{:x}", kRegSemaphore0 + 2), kNever).reply, "07000000");
  // A read across two vector registers walks both.
  EXPECT_EQ(handler.handle(fmt::format("m{:x},8", vector_window_address(4) - 4), kNever).reply.size(), 16u);
  EXPECT_EQ(handler.handle(fmt::format("M{:x},4:01020304", vector_window_address(0)), kNever).reply, "OK");
  EXPECT_EQ(device.system().chip(0).v[0].element[0], 0x04030201u);
  EXPECT_EQ(handler.handle("mf8000000,4", kNever).reply, "E03");  // window gap
  EXPECT_EQ(handler.handle("m10000000,4", kNever).reply, "00000000");  // VMEM
  EXPECT_EQ(handler.handle("M10000,4:00000000", kNever).reply, "E03");  // text is read-only
  EXPECT_NE(device.feature_document("target.xml")->find("org.gnu.gdb.riscv.cpu"), std::string::npos);
}

TEST(NpuDevice, BlockedChipReportsItAndDeadlockStops) {
  NpuDevice device(small_config(1), assemble_program("_start:\n sem.wait sem1, 1\n li a7, 93\n ecall\n"));
  rsp::PacketHandler handler(device);
  const std::string reply = handler.handle("vCont;s:1", kNever).reply;
  EXPECT_NE(reply.find("snr-chip:blocked"), std::string::npos) << reply;
  EXPECT_NE(handler.handle("c", kNever).reply.find("snr-stop:deadlock"), std::string::npos);
  EXPECT_EQ(handler.handle(fmt::format("P{:x}=01000000", kRegSemaphore0 + 1), kNever).reply, "OK");
  EXPECT_EQ(handler.handle("c", kNever).reply, "W00");
}

}  // namespace
}  // namespace snr::device
