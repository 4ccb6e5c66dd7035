// Matmul lowering. Column tiles are processed in groups of up to mxu.count
// (one matrix unit per column tile, so their weight loads overlap); inside
// a group the K tiles stream in order. Weight tiles arrive by DMA into a
// ring of `buffers` VMEM slots; the DMA of tile i + prefetch_distance is
// issued right before tile i is consumed, so distance 0 issues each DMA just
// before its WAIT and the DMA's base latency is exposed in full.
#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "compiler/lowering.h"

namespace snr::compiler {

void emit_matmul(LoweringContext& ctx, const std::string& name, const ActBuffer& x, uint64_t weight_hbm,
                 uint64_t k, uint64_t n, const ActBuffer& y, uint64_t col_offset_tiles) {
  if (k % 128 != 0 || n % 128 != 0 || x.cols != k || x.rows != y.rows) {
    throw Error(fmt::format("compiler: matmul {} with X {}x{}, W {}x{}, Y {}x{} does not tile", name, x.rows, x.cols,
                            k, n, y.rows, y.cols));
  }
  Emitter& e = ctx.e;
  const uint64_t k_tiles = k / 128, n_tiles = n / 128, row_groups = x.rows / 8;
  const uint64_t group = std::min<uint64_t>(ctx.hw.mxu_count, n_tiles);
  e.begin_op(name, "matmul", 2 * ctx.real_rows * k * n, k * n * 2,
             fmt::format("[{}x{}] x [{}x{}] bf16", ctx.real_rows, k, k, n));

  // Tile order: for each group of column tiles, K steps; inside a K step
  // one tile per matrix unit. All of a step's weight loads are issued
  // before its pushes so the matrix units stage weights in parallel.
  std::vector<uint64_t> hbm_tiles;
  for (uint64_t g0 = 0; g0 < n_tiles; g0 += group) {
    for (uint64_t kt = 0; kt < k_tiles; ++kt) {
      for (uint64_t nt = g0; nt < std::min(n_tiles, g0 + group); ++nt) {
        hbm_tiles.push_back(weight_hbm + (kt * n_tiles + nt) * kTileBytes);
      }
    }
  }
  const uint64_t ring = ctx.vmem.allocate(ctx.spec.schedule.buffers * kTileBytes, name + " weight slots");
  TileStream stream(ctx, ring, std::move(hbm_tiles));
  size_t next_tile = 0;
  for (uint64_t g0 = 0; g0 < n_tiles; g0 += group) {
    const uint64_t g1 = std::min(n_tiles, g0 + group);
    for (uint64_t kt = 0; kt < k_tiles; ++kt) {
      for (uint64_t nt = g0; nt < g1; ++nt) e.mxu_ldw(static_cast<uint8_t>(nt - g0), stream.acquire(next_tile++));
      for (uint64_t rg = 0; rg < row_groups; ++rg) {
        e.vld(0, x.tile(rg, kt), x.stride_bytes());
        for (uint64_t nt = g0; nt < g1; ++nt) e.mxu_mul(static_cast<uint8_t>(nt - g0), 0);
        if (row_groups == 1) continue;  // accumulate across K in the matrix units
        // Several row groups share the staged weights, so each partial
        // product is popped and accumulated in VMEM.
        for (uint64_t nt = g0; nt < g1; ++nt) {
          const uint64_t out = y.tile(rg, nt + col_offset_tiles);
          e.mxu_pop(1, static_cast<uint8_t>(nt - g0));
          if (kt > 0) {
            e.vld(2, out, y.stride_bytes());
            e.vop(isa::Opcode::kVaddF32, 1, 1, 2);
          }
          e.vst(1, out, y.stride_bytes());
        }
      }
    }
    if (row_groups == 1) {
      for (uint64_t nt = g0; nt < g1; ++nt) {
        e.mxu_pop(1, static_cast<uint8_t>(nt - g0));
        e.vst(1, y.tile(0, nt + col_offset_tiles), y.stride_bytes());
      }
    }
  }
  ctx.vmem.release(ring);
  e.end_op();
}

TileStream::TileStream(LoweringContext& ctx, uint64_t ring_address, std::vector<uint64_t> hbm_tiles)
    : ctx_(ctx), ring_(ring_address), tiles_(std::move(hbm_tiles)) {}

uint64_t TileStream::acquire(size_t i) {
  const uint64_t slots = ctx_.spec.schedule.buffers;
  const size_t last = i + ctx_.spec.schedule.prefetch_distance;
  for (; issued_ <= last && issued_ < tiles_.size(); ++issued_) {
    ctx_.e.dma(ring_ + (issued_ % slots) * kTileBytes, tiles_[issued_], kTileBytes, sem::kWeights);
  }
  ctx_.e.wait(sem::kWeights, 1);
  return ring_ + (i % slots) * kTileBytes;
}

}  // namespace snr::compiler
