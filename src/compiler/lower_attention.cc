// Attention lowering. Scores are computed one 8-row block of queries at a
// time against 128-position key tiles on the matrix units, kept in a VMEM
// scratch, normalized with a two-pass softmax on the vector unit, and
// multiplied by the value tiles accumulating in matrix unit 0.
//
// Decode: a block is the (up to 8) query heads that share one KV head, for
// one sequence. Prefill: a block is 8 consecutive tokens of one head.
#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "compiler/lowering.h"

namespace snr::compiler {
namespace {

using isa::Opcode;

struct QueryBlock {
  uint64_t b = 0, kvh = 0;
  uint64_t lhs = 0, lhs_stride = 0;  // where the 8 query rows are
  uint64_t out = 0, out_stride = 0;
  uint64_t first_position = 0;       // query position of row 0
  bool rows_are_tokens = false;      // prefill: row r is position first + r
  uint64_t valid_rows = 8;
  [[nodiscard]] uint64_t keys() const { return first_position + (rows_are_tokens ? 8 : 1); }
};

std::vector<QueryBlock> query_blocks(const ActBuffer& qkv, const AttentionShape& s, const ActBuffer& out) {
  std::vector<QueryBlock> blocks;
  const uint64_t g = s.group();
  if (s.tokens_per_sequence == 1) {
    for (uint64_t b = 0; b < s.batch; ++b) {
      for (uint64_t kvh = 0; kvh < s.kv_heads; ++kvh) {
        for (uint64_t c = 0; c < g; c += 8) {
          const uint64_t head = kvh * g + c;
          // Rows past the group read the next heads and write garbage
          // into them; blocks run in head order, so those are rewritten.
          blocks.push_back({b, kvh, qkv.address + b * qkv.stride_bytes() + head * 512, 512,
                            out.address + b * out.stride_bytes() + head * 512, 512, s.context, false,
                            std::min<uint64_t>(8, g - c)});
        }
      }
    }
    return blocks;
  }
  for (uint64_t b = 0; b < s.batch; ++b) {
    for (uint64_t h = 0; h < s.heads; ++h) {
      for (uint64_t t = 0; t < s.tokens_per_sequence; t += 8) {
        const uint64_t row = b * s.tokens_per_sequence + t;
        blocks.push_back({b, h / g, qkv.tile(row / 8, h), qkv.stride_bytes(), out.tile(row / 8, h),
                          out.stride_bytes(), s.context + t, true, 8});
      }
    }
  }
  return blocks;
}

}  // namespace

void emit_kv_write(LoweringContext& ctx, const std::string& name, const ActBuffer& qkv, const AttentionShape& s,
                   uint64_t k_cache_hbm, uint64_t v_cache_hbm) {
  Emitter& e = ctx.e;
  const uint64_t tokens = s.batch * s.tokens_per_sequence;
  e.begin_op(name, "kv_cache_write", 0, tokens * s.kv_heads * 2 * 256,
             fmt::format("{} tokens x {} kv heads", tokens, s.kv_heads));
  // bf16 staging copy of the new keys and values (one bf16 in the low half
  // of each 32-bit element), which 2-D DMAs then scatter into the cache.
  const ActBuffer stage = ctx.alloc_act(qkv.rows, 2 * s.kv_heads * 128, name + " staging");
  for (uint64_t rg = 0; rg < qkv.rows / 8; ++rg) {
    for (uint64_t h = 0; h < 2 * s.kv_heads; ++h) {
      e.vld(0, qkv.tile(rg, s.heads + h), qkv.stride_bytes());
      e.vop(Opcode::kVcvtBf16F32, 0, 0);
      e.vst(0, stage.tile(rg, h), stage.stride_bytes());
    }
  }
  e.emit({.opcode = Opcode::kFenceVec});
  uint32_t pending = 0;
  for (uint64_t b = 0; b < s.batch; ++b) {
    for (uint64_t t = 0; t < s.tokens_per_sequence; ++t) {
      const uint64_t row = b * s.tokens_per_sequence + t;
      const uint64_t pos = s.context + t;
      for (uint64_t kvh = 0; kvh < s.kv_heads; ++kvh) {
        const uint64_t src_k = stage.address + row * stage.stride_bytes() + kvh * 512;
        const uint64_t src_v = src_k + s.kv_heads * 512;
        // Key: a column of the transposed tile (128 rows of 2 bytes, 256 apart).
        e.dma_2d(k_cache_hbm + s.tile_offset(b, kvh, pos / 128) + (pos % 128) * 2, src_k, 128, 2, 4, 256,
                 sem::kStore);
        // Value: one 256-byte row of the [position][dim] tile.
        e.dma_2d(v_cache_hbm + s.tile_offset(b, kvh, pos / 128) + (pos % 128) * 256, src_v, 128, 2, 4, 2,
                 sem::kStore);
        pending += 2;
        if (pending >= 2048) {
          e.wait(sem::kStore, pending);
          pending = 0;
        }
      }
    }
  }
  e.wait(sem::kStore, pending);
  ctx.free_act(stage);
  e.end_op();
}

void emit_attention(LoweringContext& ctx, const std::string& name, const ActBuffer& qkv,
                    const AttentionShape& s, uint64_t k_cache_hbm, uint64_t v_cache_hbm, const ActBuffer& out) {
  Emitter& e = ctx.e;
  const std::vector<QueryBlock> blocks = query_blocks(qkv, s, out);
  uint64_t flops = 0, bytes = 0, max_tiles = 0;
  for (const QueryBlock& q : blocks) {
    const uint64_t tiles = (q.keys() + 127) / 128;
    max_tiles = std::max(max_tiles, tiles);
    flops += 4 * q.valid_rows * q.keys() * 128;
    bytes += 2 * tiles * kTileBytes;
  }
  e.begin_op(name, "attention", flops, bytes,
             fmt::format("{} query blocks, {} heads / {} kv heads", blocks.size(), s.heads, s.kv_heads));
  const uint64_t scratch = ctx.vmem.allocate(max_tiles * kVregBytes, name + " scores");
  const uint64_t ring = ctx.vmem.allocate(ctx.spec.schedule.buffers * kTileBytes, name + " kv slots");
  const uint64_t group = std::min<uint64_t>(ctx.hw.mxu_count, max_tiles);
  e.vbcast_f32(12, -1e30f);
  e.emit({.opcode = Opcode::kVlaneid, .vd = 13});
  e.emit({.opcode = Opcode::kVsublaneid, .vd = 14});
  for (const QueryBlock& q : blocks) {
    const uint64_t tiles = (q.keys() + 127) / 128;
    std::vector<uint64_t> hbm_tiles;
    for (uint64_t pt = 0; pt < tiles; ++pt) hbm_tiles.push_back(k_cache_hbm + s.tile_offset(q.b, q.kvh, pt));
    for (uint64_t pt = 0; pt < tiles; ++pt) hbm_tiles.push_back(v_cache_hbm + s.tile_offset(q.b, q.kvh, pt));
    TileStream stream(ctx, ring, std::move(hbm_tiles));
    e.vld(0, q.lhs, q.lhs_stride);
    // Key tiles in chunks of one per matrix unit: stage all, push all, pop all.
    for (uint64_t p0 = 0; p0 < tiles; p0 += group) {
      const uint64_t p1 = std::min(tiles, p0 + group);
      for (uint64_t pt = p0; pt < p1; ++pt) e.mxu_ldw(static_cast<uint8_t>(pt - p0), stream.acquire(pt));
      for (uint64_t pt = p0; pt < p1; ++pt) e.mxu_mul(static_cast<uint8_t>(pt - p0), 0);
      for (uint64_t pt = p0; pt < p1; ++pt) {
        e.mxu_pop(1, static_cast<uint8_t>(pt - p0));
        if (pt * 128 + 127 > q.first_position) {
          // Causal mask: key position > query position gets -1e30.
          e.vbcast_i32(2, static_cast<int32_t>(pt * 128));
          e.vop(Opcode::kVaddI32, 2, 2, 13);
          e.vbcast_i32(3, static_cast<int32_t>(q.first_position));
          if (q.rows_are_tokens) e.vop(Opcode::kVaddI32, 3, 3, 14);
          e.vop(Opcode::kVcmpLtI32, 3, 3, 2);
          e.vop(Opcode::kVsel, 1, 3, 12, 1);
        }
        e.vst(1, scratch + pt * kVregBytes, 512);
      }
    }
    // Softmax over the key tiles, row by row.
    e.vld(6, scratch, 512);
    for (uint64_t pt = 1; pt < tiles; ++pt) {
      e.vld(1, scratch + pt * kVregBytes, 512);
      e.vop(Opcode::kVmaxF32, 6, 6, 1);
    }
    e.vop(Opcode::kVredmaxLaneF32, 6, 6);
    e.vop(Opcode::kVxor, 7, 7, 7);
    for (uint64_t pt = 0; pt < tiles; ++pt) {
      e.vld(1, scratch + pt * kVregBytes, 512);
      e.vop(Opcode::kVsubF32, 1, 1, 6);
      e.vop(Opcode::kVexpF32, 1, 1);
      e.vop(Opcode::kVaddF32, 7, 7, 1);
      e.vst(1, scratch + pt * kVregBytes, 512);
    }
    e.vop(Opcode::kVredsumLaneF32, 7, 7);
    e.vop(Opcode::kVrcpF32, 7, 7);
    // P.V: value tile pt accumulates in matrix unit pt mod group; the
    // units' partial sums are added at the end.
    for (uint64_t pt = 0; pt < tiles; ++pt) {
      const auto mxu = static_cast<uint8_t>(pt % group);
      e.mxu_ldw(mxu, stream.acquire(tiles + pt));
      e.vld(1, scratch + pt * kVregBytes, 512);
      e.mxu_mul(mxu, 1);
    }
    e.mxu_pop(2, 0);
    for (uint64_t m = 1; m < std::min(group, tiles); ++m) {
      e.mxu_pop(1, static_cast<uint8_t>(m));
      e.vop(Opcode::kVaddF32, 2, 2, 1);
    }
    e.vop(Opcode::kVmulF32, 2, 2, 7);
    e.vst(2, q.out, q.out_stride);
  }
  ctx.vmem.release(ring);
  ctx.vmem.release(scratch);
  e.end_op();
}

}  // namespace snr::compiler
