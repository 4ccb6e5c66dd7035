// Attention lowering. Scores are computed one 8-row block of queries at a
// time against 128-position key tiles on the matrix units, kept in a VMEM
// scratch, normalized with a two-pass softmax on the vector unit, and
// multiplied by the value tiles accumulating in matrix unit 0.
//
// Decode: a block is the (up to 8) query heads that share one KV head, for
// one sequence. Prefill: a block is 8 consecutive tokens of one head.
//
// A block's keys and values each arrive in one DMA into staging sized by
// the context length, alternating between two buffers per kind. With the
// default `kv_prefetch: late` each DMA is issued right before its WAIT -
// the schedule of a compiler that places a DMA inside the loop nest that
// consumes it - so the matrix units wait for the base latency and a 1 MB
// transfer twice per block although the other buffer is free: the late-DMA
// case of seed 000 §5.3.1. Each ISSUE is self-contained (its operands set
// by li's right before it in registers nothing else uses, its own
// semaphore, a buffer untouched since two blocks before), so moving it one
// block earlier is a legal reordering; `ahead` is that move.
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

KvStagingBuffers reserve_kv_staging(LoweringContext& ctx, const AttentionShape& s) {
  KvStagingBuffers staging;
  staging.tiles = s.cache_capacity / 128;
  for (int p = 0; p < 2; ++p) {
    staging.keys[p] = ctx.vmem.allocate(staging.tiles * kTileBytes, fmt::format("key staging {}", p));
    staging.values[p] = ctx.vmem.allocate(staging.tiles * kTileBytes, fmt::format("value staging {}", p));
  }
  return staging;
}

void release_kv_staging(LoweringContext& ctx, const KvStagingBuffers& staging) {
  for (int p = 1; p >= 0; --p) {
    ctx.vmem.release(staging.values[p]);
    ctx.vmem.release(staging.keys[p]);
  }
}

void emit_attention(LoweringContext& ctx, const std::string& name, const ActBuffer& qkv,
                    const AttentionShape& s, const KvStagingBuffers& staging, uint64_t k_cache_hbm, uint64_t v_cache_hbm,
                    const ActBuffer& out) {
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
  if (max_tiles > staging.tiles) {
    throw Error(fmt::format("compiler: {} needs {} staged tiles per head group, the staging holds {}", name,
                            max_tiles, staging.tiles));
  }
  const uint64_t* k_stage = staging.keys;
  const uint64_t* v_stage = staging.values;
  const uint64_t group = std::min<uint64_t>(ctx.hw.mxu_count, max_tiles);
  auto tiles_of = [](const QueryBlock& q) { return (q.keys() + 127) / 128; };
  auto k_sem = [](size_t block) { return static_cast<uint8_t>(sem::kKvBase + (block & 1)); };
  auto v_sem = [](size_t block) { return static_cast<uint8_t>(sem::kKvBase + 2 + (block & 1)); };
  // A head group's keys (values) are contiguous in the cache: one DMA
  // brings all its tiles into the staging buffer. Every operand is set
  // right before the ISSUE (Emitter::dma_staged).
  auto issue_keys = [&](size_t j) {
    e.dma_staged(reg::kStageK, k_stage[j & 1], k_cache_hbm + s.tile_offset(blocks[j].b, blocks[j].kvh, 0),
                 tiles_of(blocks[j]) * kTileBytes, k_sem(j));
  };
  auto issue_values = [&](size_t j) {
    e.dma_staged(reg::kStageV, v_stage[j & 1], v_cache_hbm + s.tile_offset(blocks[j].b, blocks[j].kvh, 0),
                 tiles_of(blocks[j]) * kTileBytes, v_sem(j));
  };
  const bool ahead = ctx.spec.schedule.kv_prefetch == KvPrefetch::kAhead;
  e.vbcast_f32(12, -1e30f);
  e.emit({.opcode = Opcode::kVlaneid, .vd = 13});
  e.emit({.opcode = Opcode::kVsublaneid, .vd = 14});
  if (ahead && !blocks.empty()) issue_keys(0);
  for (size_t j = 0; j < blocks.size(); ++j) {
    const QueryBlock& q = blocks[j];
    const uint64_t tiles = tiles_of(q);
    const uint64_t keys = k_stage[j & 1], values = v_stage[j & 1];
    if (ahead) {
      // The other staging buffer was last read by the previous head group,
      // which is done: the next keys can land there while this one computes.
      issue_values(j);
      if (j + 1 < blocks.size()) issue_keys(j + 1);
    } else {
      issue_keys(j);
    }
    e.wait(k_sem(j), 1);
    e.vld(0, q.lhs, q.lhs_stride);
    // Key tiles in chunks of one per matrix unit: stage all, push all, pop all.
    for (uint64_t p0 = 0; p0 < tiles; p0 += group) {
      const uint64_t p1 = std::min(tiles, p0 + group);
      for (uint64_t pt = p0; pt < p1; ++pt) e.mxu_ldw(static_cast<uint8_t>(pt - p0), keys + pt * kTileBytes);
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
    // The late schedule reaches the values only here, after the scores.
    if (!ahead) issue_values(j);
    e.wait(v_sem(j), 1);
    // P.V: value tile pt accumulates in matrix unit pt mod group; the
    // units' partial sums are added at the end.
    for (uint64_t pt = 0; pt < tiles; ++pt) {
      const auto mxu = static_cast<uint8_t>(pt % group);
      e.mxu_ldw(mxu, values + pt * kTileBytes);
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
  ctx.vmem.release(scratch);
  e.end_op();
}

}  // namespace snr::compiler
