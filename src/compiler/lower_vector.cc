// Vector-unit lowering: RMSNorm, rotary embedding, gated activations and
// residual adds, one 8x128 f32 tile (one vector register) at a time.
// Vector registers: v0-v7 operands, v8-v15 row statistics and constants.
#include <fmt/format.h>

#include <cmath>

#include "common/error.h"
#include "compiler/lowering.h"

namespace snr::compiler {

using isa::Opcode;

void emit_rmsnorm(LoweringContext& ctx, const std::string& name, const ActBuffer& x, uint64_t gamma_hbm,
                  const ActBuffer& y) {
  Emitter& e = ctx.e;
  const uint64_t col_tiles = x.cols / 128, row_groups = x.rows / 8;
  const uint64_t gamma_bytes = 8 * x.cols * 4;
  e.begin_op(name, "rmsnorm", 4 * ctx.real_rows * x.cols, gamma_bytes, fmt::format("[{}x{}] f32", ctx.real_rows, x.cols));
  const uint64_t gamma = ctx.vmem.allocate(gamma_bytes, name + " gamma");
  ctx.load_to_vmem(gamma, gamma_hbm, gamma_bytes);
  e.vbcast_f32(9, 1.0f / static_cast<float>(x.cols));
  e.vbcast_f32(10, static_cast<float>(ctx.spec.model.norm_eps));
  for (uint64_t rg = 0; rg < row_groups; ++rg) {
    e.vop(Opcode::kVxor, 8, 8, 8);  // sum of squares = 0
    for (uint64_t ct = 0; ct < col_tiles; ++ct) {
      e.vld(0, x.tile(rg, ct), x.stride_bytes());
      e.vop(Opcode::kVfmaF32, 8, 0, 0, 8);
    }
    e.vop(Opcode::kVredsumLaneF32, 8, 8);
    e.vop(Opcode::kVfmaF32, 8, 8, 9, 10);  // mean + eps
    e.vop(Opcode::kVrsqrtF32, 8, 8);
    for (uint64_t ct = 0; ct < col_tiles; ++ct) {
      e.vld(0, x.tile(rg, ct), x.stride_bytes());
      e.vld(1, gamma + ct * 512, x.stride_bytes());
      e.vop(Opcode::kVmulF32, 0, 0, 8);
      e.vop(Opcode::kVmulF32, 0, 0, 1);
      e.vst(0, y.tile(rg, ct), y.stride_bytes());
    }
  }
  ctx.vmem.release(gamma);
  e.end_op();
}

void emit_rope(LoweringContext& ctx, const std::string& name, const ActBuffer& qkv, uint64_t heads_to_rotate,
               uint64_t q_heads, uint64_t cos_hbm, uint64_t sin_hbm, uint64_t rotate_half_hbm) {
  Emitter& e = ctx.e;
  const uint64_t row_groups = qkv.rows / 8;
  const uint64_t table_bytes = qkv.rows * 512;
  e.begin_op(name, "rope", ctx.real_rows * heads_to_rotate * 128 * (2 * 128 + 3), 2 * table_bytes + kTileBytes,
             fmt::format("{} heads x [{}x128]", heads_to_rotate, ctx.real_rows));
  const uint64_t cos = ctx.vmem.allocate(table_bytes, name + " cos");
  const uint64_t sin = ctx.vmem.allocate(table_bytes, name + " sin");
  const uint64_t rot = ctx.vmem.allocate(kTileBytes, name + " rotate-half matrix");
  e.dma(cos, cos_hbm, table_bytes, sem::kLoad);
  e.dma(sin, sin_hbm, table_bytes, sem::kLoad);
  e.dma(rot, rotate_half_hbm, kTileBytes, sem::kLoad);
  e.wait(sem::kLoad, 3);
  // The rotate-half permutation has no vector instruction: it is a matmul
  // with a constant +-1 matrix on matrix unit 0.
  e.mxu_ldw(0, rot);
  // Queries are also scaled by 1/sqrt(head_dim) here, so the scores need
  // no extra pass.
  e.vbcast_f32(11, 1.0f / std::sqrt(128.0f));
  for (uint64_t rg = 0; rg < row_groups; ++rg) {
    e.vld(8, cos + rg * 4096, 512);
    e.vld(9, sin + rg * 4096, 512);
    for (uint64_t h = 0; h < heads_to_rotate; ++h) {
      e.vld(0, qkv.tile(rg, h), qkv.stride_bytes());
      e.mxu_mul(0, 0);
      e.mxu_pop(1, 0);
      e.vop(Opcode::kVmulF32, 1, 1, 9);
      e.vop(Opcode::kVfmaF32, 0, 0, 8, 1);
      if (h < q_heads) e.vop(Opcode::kVmulF32, 0, 0, 11);
      e.vst(0, qkv.tile(rg, h), qkv.stride_bytes());
    }
  }
  ctx.vmem.release(rot);
  ctx.vmem.release(sin);
  ctx.vmem.release(cos);
  e.end_op();
}

void emit_gated_activation(LoweringContext& ctx, const std::string& name, const ActBuffer& gate,
                           const ActBuffer& up, Activation activation) {
  Emitter& e = ctx.e;
  const uint64_t col_tiles = gate.cols / 128, row_groups = gate.rows / 8;
  e.begin_op(name, activation == Activation::kSilu ? "silu_mul" : "gelu_mul", 8 * ctx.real_rows * gate.cols, 0,
             fmt::format("[{}x{}] f32", ctx.real_rows, gate.cols));
  e.vbcast_f32(8, 1.0f);
  if (activation == Activation::kSilu) {
    e.vbcast_f32(9, -1.0f);
  } else {
    e.vbcast_f32(9, 0.5f);
    e.vbcast_f32(10, 0.044715f);
    e.vbcast_f32(11, 2.0f * 0.7978845608f);  // 2 * sqrt(2/pi): exp(2y) form of tanh
    e.vbcast_f32(12, -2.0f);
  }
  for (uint64_t rg = 0; rg < row_groups; ++rg) {
    for (uint64_t ct = 0; ct < col_tiles; ++ct) {
      e.vld(0, gate.tile(rg, ct), gate.stride_bytes());
      e.vld(1, up.tile(rg, ct), up.stride_bytes());
      if (activation == Activation::kSilu) {
        // silu(g) = g / (1 + exp(-g))
        e.vop(Opcode::kVmulF32, 2, 0, 9);
        e.vop(Opcode::kVexpF32, 2, 2);
        e.vop(Opcode::kVaddF32, 2, 2, 8);
        e.vop(Opcode::kVrcpF32, 2, 2);
        e.vop(Opcode::kVmulF32, 2, 2, 0);
      } else {
        // gelu(g) = 0.5 g (1 + tanh(y)), y = sqrt(2/pi)(g + 0.044715 g^3),
        // tanh(y) = 1 - 2 / (exp(2y) + 1)
        e.vop(Opcode::kVmulF32, 2, 0, 0);
        e.vop(Opcode::kVfmaF32, 2, 2, 10, 8);  // 1 + 0.044715 g^2
        e.vop(Opcode::kVmulF32, 2, 2, 0);
        e.vop(Opcode::kVmulF32, 2, 2, 11);     // 2y
        e.vop(Opcode::kVexpF32, 2, 2);
        e.vop(Opcode::kVaddF32, 2, 2, 8);
        e.vop(Opcode::kVrcpF32, 2, 2);
        e.vop(Opcode::kVfmaF32, 2, 2, 12, 8);  // tanh
        e.vop(Opcode::kVaddF32, 2, 2, 8);
        e.vop(Opcode::kVmulF32, 2, 2, 9);
        e.vop(Opcode::kVmulF32, 2, 2, 0);
      }
      e.vop(Opcode::kVmulF32, 2, 2, 1);
      e.vst(2, gate.tile(rg, ct), gate.stride_bytes());
    }
  }
  e.end_op();
}

void emit_residual_add(LoweringContext& ctx, const std::string& name, const ActBuffer& x, uint64_t y_address) {
  Emitter& e = ctx.e;
  const uint64_t col_tiles = x.cols / 128, row_groups = x.rows / 8;
  e.begin_op(name, "residual_add", ctx.real_rows * x.cols, 0, fmt::format("[{}x{}] f32", ctx.real_rows, x.cols));
  const ActBuffer y{y_address, x.rows, x.cols};
  const uint64_t unroll = ctx.spec.schedule.vector_unroll;
  for (uint64_t rg = 0; rg < row_groups; ++rg) {
    uint64_t first_straight = 0;
    if (unroll > 0 && col_tiles >= unroll) {
      // A loop over column tiles, `unroll` tiles per iteration; pointers
      // advance by one 512-byte tile column each.
      const uint64_t iterations = col_tiles / unroll;
      first_straight = iterations * unroll;
      e.li(reg::kLoopA, static_cast<int64_t>(x.tile(rg, 0)));
      e.li(reg::kLoopB, static_cast<int64_t>(y.tile(rg, 0)));
      e.li(reg::kLoopEnd, static_cast<int64_t>(x.tile(rg, first_straight)));
      e.stride(reg::kStride, x.stride_bytes());
      const std::string loop = fmt::format("{}.loop{}", name, rg);
      e.loop_label(loop);
      for (uint64_t j = 0; j < unroll; ++j) {
        e.emit({.opcode = Opcode::kVld, .rs1 = reg::kLoopA, .rs2 = reg::kStride, .vd = 0});
        e.emit({.opcode = Opcode::kVld, .rs1 = reg::kLoopB, .rs2 = reg::kStride, .vd = 1});
        e.vop(Opcode::kVaddF32, 0, 0, 1);
        e.emit({.opcode = Opcode::kVst, .rs1 = reg::kLoopA, .rs2 = reg::kStride, .vs1 = 0});
        e.emit({.opcode = Opcode::kAddi, .rd = reg::kLoopA, .rs1 = reg::kLoopA, .imm = 512});
        e.emit({.opcode = Opcode::kAddi, .rd = reg::kLoopB, .rs1 = reg::kLoopB, .imm = 512});
      }
      e.branch_not_equal(reg::kLoopA, reg::kLoopEnd, loop);
    }
    for (uint64_t ct = first_straight; ct < col_tiles; ++ct) {
      e.vld(0, x.tile(rg, ct), x.stride_bytes());
      e.vld(1, y.tile(rg, ct), y.stride_bytes());
      e.vop(Opcode::kVaddF32, 0, 0, 1);
      e.vst(0, x.tile(rg, ct), x.stride_bytes());
    }
  }
  e.end_op();
}

}  // namespace snr::compiler
