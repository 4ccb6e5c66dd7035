#include <gtest/gtest.h>

#include <array>

#include "isa/access.h"
#include "isa/isa.h"

namespace snr::isa {
namespace {

std::string accesses_of(const DecodedInstruction& fields, const std::array<uint64_t, 32>& x) {
  DecodedInstruction d = decode(encode(fields).value());
  Accesses a;
  compute_accesses(d, std::span<const uint64_t, 32>(x), a);
  return format_accesses(a);
}

std::array<uint64_t, 32> registers() {
  std::array<uint64_t, 32> x{};
  for (unsigned i = 1; i < 32; ++i) x[i] = 0x1000 * i;
  return x;
}

TEST(Access, ScalarAluAndX0) {
  auto x = registers();
  EXPECT_EQ(accesses_of({.opcode = Opcode::kAdd, .rd = 10, .rs1 = 11, .rs2 = 0}, x),
            "reads x11 | writes x10");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kAddi, .rd = 0, .rs1 = 0}, x), "reads | writes");
}

TEST(Access, ScalarLoadStore) {
  auto x = registers();
  x[2] = 0x8000;
  EXPECT_EQ(accesses_of({.opcode = Opcode::kLd, .rd = 10, .rs1 = 2, .imm = -8}, x),
            "reads x2 | writes x10 | mem r smem 0x7ff8 8");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kSh, .rs1 = 2, .rs2 = 5, .imm = 4}, x),
            "reads x5 x2 | writes | mem w smem 0x8004 2");
}

TEST(Access, ControlFlowAndCsr) {
  auto x = registers();
  EXPECT_EQ(accesses_of({.opcode = Opcode::kJal, .rd = 1, .imm = 8}, x), "reads pc | writes x1 pc");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kCsrrs, .rd = 10, .rs1 = 0, .csr = kCsrCycle}, x),
            "reads csr0xc00 | writes x10");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kCsrrw, .rd = 0, .rs1 = 5, .csr = 0x340}, x),
            "reads x5 | writes csr0x340");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kCsrrsi, .rd = 3, .csr = 0x340, .imm = 1}, x),
            "reads csr0x340 | writes x3 csr0x340");
}

TEST(Access, EcallDependsOnA7) {
  auto x = registers();
  x[17] = kSyscallWrite;
  x[11] = 0x2000;
  x[12] = 13;
  EXPECT_EQ(accesses_of({.opcode = Opcode::kEcall}, x),
            "reads x17 x10 x11 x12 | writes x10 | mem r smem 0x2000 13");
  x[17] = kSyscallExit;
  EXPECT_EQ(accesses_of({.opcode = Opcode::kEcall}, x), "reads x17 x10 | writes");
}

TEST(Access, VectorLoadStoreRows) {
  auto x = registers();
  x[10] = 0x1000'0000;
  x[11] = 0;
  EXPECT_EQ(accesses_of({.opcode = Opcode::kVld, .rs1 = 10, .rs2 = 11, .vd = 4}, x),
            "reads x10 x11 | writes v4 | mem r vmem 0x10000000 512x8 stride 512");
  x[11] = 2048;
  EXPECT_EQ(accesses_of({.opcode = Opcode::kVst, .rs1 = 10, .rs2 = 11, .vs1 = 7}, x),
            "reads v7 x10 x11 | writes | mem w vmem 0x10000000 512x8 stride 2048");
}

TEST(Access, MatrixUnitState) {
  auto x = registers();
  x[10] = 0x1000'4000;
  EXPECT_EQ(accesses_of({.opcode = Opcode::kMxuLdw, .rs1 = 10, .rs2 = 0, .mxu = 1}, x),
            "reads x10 | writes mxuw1 | mem r vmem 0x10004000 256x128 stride 256");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kMxuMul, .vs1 = 3, .mxu = 1}, x),
            "reads v3 mxuw1 mxuacc1 | writes mxuacc1");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kMxuPop, .vd = 5, .mxu = 1}, x),
            "reads mxuacc1 | writes v5 mxuacc1");
}

TEST(Access, DmaLocalRemoteAnd2d) {
  auto x = registers();
  x[10] = 0x1'0000'0000;                          // local HBM source
  x[11] = make_remote_address(3, 0x1000'0200);    // chip 3 VMEM
  x[12] = 4096;
  EXPECT_EQ(accesses_of({.opcode = Opcode::kDmaIssue, .rs1 = 10, .rs2 = 11, .rs3 = 12, .sem = 2}, x),
            "reads x11 x10 x12 sem2 sem2@chip3 | writes sem2 sem2@chip3 | mem r hbm 0x100000000 4096"
            " | mem w vmem@chip3 0x10000200 4096");
  x[11] = 0x1000'0000;
  x[12] = (uint64_t{4} << 32) | 256;               // 4 rows x 256 B
  x[13] = (uint64_t{1024} << 32) | 512;            // src stride 1024, dst stride 512
  EXPECT_EQ(accesses_of({.opcode = Opcode::kDmaIssue2d, .rs1 = 10, .rs2 = 11, .rs3 = 12, .sem = 0}, x),
            "reads x11 x10 x12 x13 sem0 | writes sem0 | mem r hbm 0x100000000 256x4 stride 1024"
            " | mem w vmem 0x10000000 256x4 stride 512");
}

TEST(Access, Semaphores) {
  auto x = registers();
  x[5] = 7;
  EXPECT_EQ(accesses_of({.opcode = Opcode::kSemSignalRemote, .rs1 = 5, .sem = 9, .imm = 1}, x),
            "reads x5 sem9@chip7 | writes sem9@chip7");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kSemWait, .sem = 9, .imm = 3}, x), "reads sem9 | writes sem9");
  EXPECT_EQ(accesses_of({.opcode = Opcode::kSemRead, .rd = 4, .sem = 9}, x), "reads sem9 | writes x4");
}

TEST(Access, AcceptsCallableReader) {
  DecodedInstruction d = decode(encode({.opcode = Opcode::kLw, .rd = 1, .rs1 = 2, .imm = 4}).value());
  Accesses a;
  compute_accesses(d, [](unsigned i) { return uint64_t{100} * i; }, a);
  ASSERT_EQ(a.memory().size(), 1u);
  EXPECT_EQ(a.memory()[0].address, 204u);
}

TEST(AddressMap, GlobalAddresses) {
  const uint64_t remote = make_remote_address(5, kHbmBase + 64);
  GlobalAddress g = split_global_address(remote);
  EXPECT_TRUE(g.remote);
  EXPECT_EQ(g.chip, 5u);
  EXPECT_EQ(g.local_address, kHbmBase + 64);
  EXPECT_EQ(memory_space_of(g.local_address), MemorySpace::kHbm);
  EXPECT_FALSE(split_global_address(kVmemBase).remote);
  EXPECT_EQ(memory_space_of(0xF000'0000), MemorySpace::kDebugWindow);
}

}  // namespace
}  // namespace snr::isa
