// Collective lowering. Each chip i sends chunk traffic to peer p = (i + k)
// mod T for k = 0..T-1 (k = 0 is a local copy), with DMA operands read from
// per-chip tables: destination global addresses, source addresses and byte
// counts. The completion of a remote DMA is signalled on the same semaphore
// of both chips, so after 2T - 1 completions a chip has sent everything and
// received every peer's chunk.
//
// Why this is safe however the chips interleave (a peer may run far ahead):
// each chip issues all T sends of an instance before its WAIT, and the WAIT
// consumes exactly T own completions plus T - 1 arrivals, so a chip passes
// its k-th WAIT on a semaphore only after every peer has issued its k-th
// instance's sends. A receive region is therefore rewritten (by instance
// k + 2 of the same parity) only after every chip has issued the sends of
// the opposite-parity instance k + 1, which the program orders after its
// last read of the region. That holds only if the region belongs to no
// other buffer at any time: callers reserve receive regions for the whole
// program before anything else can use the space (compiler.cc).
//
// The all-gather reaches its tables the way seed 000 §5.2.1 describes: a
// setup phase of three dependent DMA chains (descriptor -> table ->
// addresses), one per table, before the data-transfer phase.
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "common/error.h"
#include "compiler/lowering.h"
#include "isa/address_map.h"

namespace snr::compiler {
namespace {

constexpr uint64_t kDescriptorBytes = 64;

std::vector<uint8_t> u64_bytes(const std::vector<uint64_t>& values, uint64_t min_bytes = 0) {
  std::vector<uint8_t> out(std::max<uint64_t>(values.size() * 8, min_bytes));
  for (size_t i = 0; i < values.size(); ++i) std::memcpy(&out[i * 8], &values[i], 8);
  return out;
}

std::string_view kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kAllToAll: return "all_to_all";
  }
  return "?";
}

// The three per-chip tables: [0] destinations, [1] sources, [2] bytes.
std::array<std::vector<std::vector<uint64_t>>, 3> peer_tables(uint32_t chips, CollectiveKind kind,
                                                              const CollectiveBuffers& b) {
  std::array<std::vector<std::vector<uint64_t>>, 3> tables;
  for (auto& t : tables) t.assign(chips, std::vector<uint64_t>(chips));
  for (uint32_t i = 0; i < chips; ++i) {
    for (uint32_t k = 0; k < chips; ++k) {
      const uint32_t p = (i + k) % chips;
      const uint64_t slot = b.receive + i * b.chunk_bytes;
      tables[0][i][k] = k == 0 ? slot : isa::make_remote_address(p, slot);
      tables[1][i][k] = kind == CollectiveKind::kAllGather ? b.source : b.source + p * b.chunk_bytes;
      tables[2][i][k] = b.chunk_bytes;
    }
  }
  return tables;
}

// Setup phase: three chains of (DMA descriptor, WAIT, load address) x 3
// levels; leaves the tables at `level3_labels`. Each chain has its own
// registers (reg::kSetupChain) and semaphore (sem::kSetup + chain), and
// addresses SMEM relative to one base register set before the chains, so
// the chains share nothing but that read-only base: issuing them level by
// level (`parallel`) is a pure reordering of the `chained` instructions.
void emit_setup_phase(LoweringContext& ctx, const std::string& name,
                      const std::array<std::vector<std::vector<uint64_t>>, 3>& tables,
                      const std::array<uint64_t, 3>& level3_offsets, uint64_t scratch_offset) {
  Emitter& e = ctx.e;
  const uint32_t t = ctx.chips;
  std::array<uint64_t, 3> level1{};
  for (int g = 0; g < 3; ++g) {
    std::vector<std::vector<uint8_t>> l3(t);
    for (uint32_t c = 0; c < t; ++c) l3[c] = u64_bytes(tables[g][c]);
    const uint64_t l3_addr = ctx.add_region_per_chip(fmt::format("{}.table{}", name, g), l3);
    const uint64_t l2_addr = ctx.add_region(fmt::format("{}.topology{}", name, g), u64_bytes({l3_addr}, kDescriptorBytes));
    level1[g] = ctx.add_region(fmt::format("{}.descriptor{}", name, g), u64_bytes({l2_addr}, kDescriptorBytes));
  }
  // SMEM offsets from the base register: scratch (g, level) for levels 1
  // and 2, the peer tables for level 3.
  auto scratch = [&](int g, int level) -> int64_t {
    return static_cast<int64_t>(scratch_offset + (2 * static_cast<uint64_t>(g) + (level - 1)) * kDescriptorBytes);
  };
  auto relative = [&](int g, int level) -> int64_t {
    return (level == 3 ? static_cast<int64_t>(level3_offsets[g]) : scratch(g, level)) - scratch(0, 1);
  };
  auto issue_level = [&](int g, int level) {
    const uint8_t dst = reg::kSetupChain[g][0], src = reg::kSetupChain[g][1], bytes = reg::kSetupChain[g][2];
    if (level == 1) {
      e.li(src, static_cast<int64_t>(level1[g]));
    } else {
      e.load_u64(src, reg::kTable, relative(g, level - 1));  // the address the previous level brought in
    }
    // Offsets stay below 2048 for T <= 64 (spec limit): one addi.
    e.emit({.opcode = isa::Opcode::kAddi, .rd = dst, .rs1 = reg::kTable, .imm = relative(g, level)});
    e.li(bytes, level == 3 ? 8 * t : kDescriptorBytes);
    e.dma_regs(dst, src, bytes, static_cast<uint8_t>(sem::kSetup + g));
  };
  e.mark("setup");
  e.la(reg::kTable, fmt::format("{}.setup_scratch", name));
  if (ctx.spec.schedule.allgather_setup == SetupMode::kChained) {
    for (int g = 0; g < 3; ++g) {
      for (int level = 1; level <= 3; ++level) {
        issue_level(g, level);
        e.wait(static_cast<uint8_t>(sem::kSetup + g), 1);
      }
    }
  } else {
    for (int level = 1; level <= 3; ++level) {
      for (int g = 0; g < 3; ++g) issue_level(g, level);
      for (int g = 0; g < 3; ++g) e.wait(static_cast<uint8_t>(sem::kSetup + g), 1);
    }
  }
}

}  // namespace

void emit_collective(LoweringContext& ctx, const std::string& name, CollectiveKind kind,
                     const CollectiveBuffers& b) {
  Emitter& e = ctx.e;
  const uint32_t t = ctx.chips;
  if (b.chunk_bytes % kVregBytes != 0) {
    throw Error(fmt::format("compiler: {} chunk of {} bytes is not a multiple of {}", name, b.chunk_bytes, kVregBytes));
  }
  const auto tables = peer_tables(t, kind, b);
  const bool setup = kind == CollectiveKind::kAllGather && ctx.spec.schedule.allgather_setup != SetupMode::kPinned;
  e.begin_op(name, std::string(kind_name(kind)),
             kind == CollectiveKind::kReduceScatter ? (t - 1) * b.chunk_bytes / 4 : 0,
             setup ? 3 * (2 * kDescriptorBytes + 8 * t) : 0,
             fmt::format("{} chips x {} bytes", t, b.chunk_bytes));
  e.current_op().network_bytes = (t - 1) * b.chunk_bytes;
  std::array<std::string, 3> labels;
  for (int g = 0; g < 3; ++g) labels[g] = fmt::format("{}.peers{}", name, g);
  if (setup) {
    // The chains' scratch descriptors and the tables they fill lie
    // together in .data, within reach of one base register.
    const uint64_t scratch = e.data_label(name + ".setup_scratch", 6 * kDescriptorBytes);
    std::array<uint64_t, 3> offsets{};
    for (int g = 0; g < 3; ++g) offsets[g] = e.data_label(labels[g], 8 * t);
    emit_setup_phase(ctx, name, tables, offsets, scratch);
  } else {
    for (int g = 0; g < 3; ++g) ctx.add_data_table(labels[g], tables[g]);
  }
  e.mark("transfer");
  e.la(reg::kTable, labels[0]);
  e.la(reg::kTable2, labels[1]);
  e.la(reg::kTable3, labels[2]);
  const auto coll_sem = static_cast<uint8_t>(sem::kCollectiveBase + 2 * static_cast<int>(kind) + (b.parity & 1));
  for (uint32_t k = 0; k < t; ++k) {
    e.load_u64(reg::kDmaDst, reg::kTable, 8 * k);
    e.load_u64(reg::kDmaSrc, reg::kTable2, 8 * k);
    e.load_u64(reg::kDmaShape, reg::kTable3, 8 * k);
    e.dma_regs(reg::kDmaDst, reg::kDmaSrc, reg::kDmaShape, coll_sem);
  }
  e.wait(coll_sem, 2 * t - 1);
  if (kind == CollectiveKind::kReduceScatter) {
    e.mark("reduce");
    // Slots are summed in chip order 0..T-1 on every chip, so the result
    // is the same bits everywhere.
    for (uint64_t q = 0; q < b.chunk_bytes / kVregBytes; ++q) {
      e.vld(0, b.receive + q * kVregBytes, 512);
      for (uint32_t j = 1; j < t; ++j) {
        e.vld(1, b.receive + j * b.chunk_bytes + q * kVregBytes, 512);
        e.vop(isa::Opcode::kVaddF32, 0, 0, 1);
      }
      e.vst(0, b.result + q * kVregBytes, 512);
    }
  }
  e.end_op();
}

}  // namespace snr::compiler
