// Accelerator semantics of the functional core: vector ALU, vector memory
// and the matrix unit. Element order in a vector register is sublane-major
// (element s*128 + l), the same order as 8 VMEM rows of 512 B.
#include <fmt/format.h>

#include <cstring>

#include "common/error.h"
#include "isa/address_map.h"
#include "sim/executor.h"
#include "sim/npu_math.h"
#include "sim/state_access.h"

namespace snr::sim {
namespace {

using isa::Opcode;
constexpr int kLanes = isa::kLanes;
constexpr int kSublanes = isa::kSublanes;
constexpr uint32_t kAllOnes = 0xffffffffu;

template <typename Fn>
void map_f32(VectorRegister& out, const VectorRegister& a, const VectorRegister& b, Fn fn) {
  for (int i = 0; i < kVectorElements; ++i) {
    out.element[i] = bits_from_f32(fn(f32_from_bits(a.element[i]), f32_from_bits(b.element[i])));
  }
}
template <typename Fn>
void map_bits(VectorRegister& out, const VectorRegister& a, const VectorRegister& b, Fn fn) {
  for (int i = 0; i < kVectorElements; ++i) out.element[i] = fn(a.element[i], b.element[i]);
}

// One row of mxu.mul: acc[n] += sum_k left[k] * weights[k][n], each sum
// adding its products in k order. Columns go in blocks whose partial sums
// stay in eight vector registers across the whole k loop (a plain loop over
// 128 columns spilled them at every k). Vec is 4 floats (SSE2, every
// x86-64) or 8 (AVX2); elementwise adds and multiplies without FMA, so both
// give the same bits.
template <typename Vec>
[[gnu::always_inline]] inline void mxu_mul_row(const float* left, const float* weights, float* acc) {
  constexpr int kWidth = sizeof(Vec) / sizeof(float);
  constexpr int kBlockVectors = 8, kBlock = kWidth * kBlockVectors;
  static_assert(isa::kMxuTileDim % kBlock == 0);
  for (int block = 0; block < isa::kMxuTileDim; block += kBlock) {
    Vec sums[kBlockVectors] = {};
    for (int k = 0; k < isa::kMxuTileDim; ++k) {
      Vec l;
      for (int n = 0; n < kWidth; ++n) l[n] = left[k];
      const float* w = &weights[k * isa::kMxuTileDim + block];
#pragma GCC unroll 8
      for (int j = 0; j < kBlockVectors; ++j) {
        Vec lane;
        std::memcpy(&lane, w + kWidth * j, sizeof(lane));
        sums[j] += l * lane;
      }
    }
    for (int j = 0; j < kBlockVectors; ++j) {
      for (int n = 0; n < kWidth; ++n) acc[block + kWidth * j + n] += sums[j][n];
    }
  }
}

using Float4 = float __attribute__((vector_size(16)));
using Float8 = float __attribute__((vector_size(32)));

void mxu_mul_rows_sse2(const float* left, const float* weights, float* acc, int rows) {
  for (int r = 0; r < rows; ++r) mxu_mul_row<Float4>(left + r * isa::kMxuTileDim, weights, acc + r * kLanes);
}

// No "fma" here: a fused multiply-add would round differently.
[[gnu::target("avx2")]] void mxu_mul_rows_avx2(const float* left, const float* weights, float* acc, int rows) {
  for (int r = 0; r < rows; ++r) mxu_mul_row<Float8>(left + r * isa::kMxuTileDim, weights, acc + r * kLanes);
}

using MxuMulRows = void (*)(const float*, const float*, float*, int);
const MxuMulRows kMxuMulRows = [] {
  __builtin_cpu_init();  // this runs during static initialization
  return __builtin_cpu_supports("avx2") ? mxu_mul_rows_avx2 : mxu_mul_rows_sse2;
}();

}  // namespace

void Executor::execute_vector(ChipState& chip, const isa::DecodedInstruction& d) {
  // Compute into a temporary so vd may alias any source.
  VectorRegister out;
  const VectorRegister& a = chip.v[d.vs1];
  const VectorRegister& b = chip.v[d.vs2];
  const VectorRegister& c = chip.v[d.vs3];
  switch (d.opcode) {
    case Opcode::kVaddF32: map_f32(out, a, b, [](float p, float q) { return p + q; }); break;
    case Opcode::kVsubF32: map_f32(out, a, b, [](float p, float q) { return p - q; }); break;
    case Opcode::kVmulF32: map_f32(out, a, b, [](float p, float q) { return p * q; }); break;
    case Opcode::kVmaxF32: map_f32(out, a, b, max_f32); break;
    case Opcode::kVminF32: map_f32(out, a, b, min_f32); break;
    case Opcode::kVcmpEqF32:
      map_bits(out, a, b, [](uint32_t p, uint32_t q) { return f32_from_bits(p) == f32_from_bits(q) ? kAllOnes : 0u; });
      break;
    case Opcode::kVcmpLtF32:
      map_bits(out, a, b, [](uint32_t p, uint32_t q) { return f32_from_bits(p) < f32_from_bits(q) ? kAllOnes : 0u; });
      break;
    case Opcode::kVcmpLeF32:
      map_bits(out, a, b, [](uint32_t p, uint32_t q) { return f32_from_bits(p) <= f32_from_bits(q) ? kAllOnes : 0u; });
      break;
    case Opcode::kVaddI32: map_bits(out, a, b, [](uint32_t p, uint32_t q) { return p + q; }); break;
    case Opcode::kVsubI32: map_bits(out, a, b, [](uint32_t p, uint32_t q) { return p - q; }); break;
    case Opcode::kVand: map_bits(out, a, b, [](uint32_t p, uint32_t q) { return p & q; }); break;
    case Opcode::kVor: map_bits(out, a, b, [](uint32_t p, uint32_t q) { return p | q; }); break;
    case Opcode::kVxor: map_bits(out, a, b, [](uint32_t p, uint32_t q) { return p ^ q; }); break;
    case Opcode::kVcmpEqI32: map_bits(out, a, b, [](uint32_t p, uint32_t q) { return p == q ? kAllOnes : 0u; }); break;
    case Opcode::kVcmpLtI32:
      map_bits(out, a, b, [](uint32_t p, uint32_t q) {
        return static_cast<int32_t>(p) < static_cast<int32_t>(q) ? kAllOnes : 0u;
      });
      break;
    case Opcode::kVmov: out = a; break;
    case Opcode::kVexpF32: map_f32(out, a, a, [](float p, float) { return exp_f32(p); }); break;
    case Opcode::kVrsqrtF32: map_f32(out, a, a, [](float p, float) { return rsqrt_f32(p); }); break;
    case Opcode::kVrcpF32: map_f32(out, a, a, [](float p, float) { return reciprocal_f32(p); }); break;
    case Opcode::kVcvtBf16F32:
      map_bits(out, a, a, [](uint32_t p, uint32_t) { return static_cast<uint32_t>(bf16_from_f32(f32_from_bits(p))); });
      break;
    case Opcode::kVcvtF32Bf16:
      map_bits(out, a, a, [](uint32_t p, uint32_t) { return bits_from_f32(f32_from_bf16(static_cast<uint16_t>(p))); });
      break;
    case Opcode::kVredsumLaneF32:
    case Opcode::kVredmaxLaneF32: {
      const bool sum = d.opcode == Opcode::kVredsumLaneF32;
      for (int s = 0; s < kSublanes; ++s) {
        float row[kLanes];
        std::memcpy(row, &a.element[s * kLanes], sizeof(row));
        const uint32_t bits = bits_from_f32(sum ? tree_sum_f32(row, kLanes) : tree_max_f32(row, kLanes));
        for (int l = 0; l < kLanes; ++l) out.element[s * kLanes + l] = bits;
      }
      break;
    }
    case Opcode::kVredsumSubF32:
    case Opcode::kVredmaxSubF32: {
      const bool sum = d.opcode == Opcode::kVredsumSubF32;
      for (int l = 0; l < kLanes; ++l) {
        float column[kSublanes];
        for (int s = 0; s < kSublanes; ++s) column[s] = f32_from_bits(a.element[s * kLanes + l]);
        const uint32_t bits = bits_from_f32(sum ? tree_sum_f32(column, kSublanes) : tree_max_f32(column, kSublanes));
        for (int s = 0; s < kSublanes; ++s) out.element[s * kLanes + l] = bits;
      }
      break;
    }
    case Opcode::kVfmaF32:
      for (int i = 0; i < kVectorElements; ++i) {
        out.element[i] = bits_from_f32(
            std::fma(f32_from_bits(a.element[i]), f32_from_bits(b.element[i]), f32_from_bits(c.element[i])));
      }
      break;
    case Opcode::kVsel:
      for (int i = 0; i < kVectorElements; ++i) out.element[i] = a.element[i] != 0 ? b.element[i] : c.element[i];
      break;
    case Opcode::kVbcast: out.element.fill(static_cast<uint32_t>(chip.x[d.rs1])); break;
    case Opcode::kVlaneid:
      for (int i = 0; i < kVectorElements; ++i) out.element[i] = static_cast<uint32_t>(i % kLanes);
      break;
    case Opcode::kVsublaneid:
      for (int i = 0; i < kVectorElements; ++i) out.element[i] = static_cast<uint32_t>(i / kLanes);
      break;
    default:
      fault(chip, d, "instruction has no functional semantics in this simulator");
  }
  chip.v[d.vd] = out;
}

MemoryTarget Executor::vmem_target(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address,
                                   uint64_t length, std::string_view what) {
  if (isa::memory_space_of(address) != isa::MemorySpace::kVmem || !chip.vmem.contains(address - isa::kVmemBase, length)) {
    fault(chip, d, fmt::format("{} of {} bytes at {:#x} is outside VMEM [{:#x}, {:#x})", what, length, address,
                               isa::kVmemBase, isa::kVmemBase + chip.vmem.size_bytes()));
  }
  return {&chip, MemoryKind::kVmem, &chip.vmem, address - isa::kVmemBase};
}

void Executor::execute_vector_memory(ChipState& chip, const isa::DecodedInstruction& d) {
  const uint64_t base = chip.x[d.rs1];
  const uint64_t stride = chip.x[d.rs2] == 0 ? isa::kVectorRowBytes : chip.x[d.rs2];
  const bool is_store = d.opcode == Opcode::kVst;
  VectorRegister& reg = chip.v[is_store ? d.vs1 : d.vd];  // vst names its source in the rd field (decoded as vs1)
  for (int s = 0; s < kSublanes; ++s) {
    MemoryTarget t = vmem_target(chip, d, base + static_cast<uint64_t>(s) * stride, isa::kVectorRowBytes,
                                 is_store ? "vector store" : "vector load");
    auto row = std::span<uint8_t>(reinterpret_cast<uint8_t*>(&reg.element[s * kLanes]), isa::kVectorRowBytes);
    if (is_store) {
      t.memory->write(t.offset, row);
    } else {
      t.memory->read(t.offset, row);
    }
  }
  publish_memory(chip, MemoryKind::kVmem, base - isa::kVmemBase, isa::kVectorRowBytes, kSublanes, stride, is_store);
}

void Executor::execute_matrix(ChipState& chip, const isa::DecodedInstruction& d) {
  if (d.mxu >= chip.mxu.size()) {
    fault(chip, d, fmt::format("matrix unit {} does not exist (mxu.count = {})", d.mxu, chip.mxu.size()));
  }
  MatrixUnitState& unit = chip.mxu[d.mxu];
  switch (d.opcode) {
    case Opcode::kMxuLdw: {
      const uint64_t base = chip.x[d.rs1];
      const uint64_t stride = chip.x[d.rs2] == 0 ? isa::kMxuWeightRowBytes : chip.x[d.rs2];
      for (int r = 0; r < isa::kMxuTileDim; ++r) {
        MemoryTarget t = vmem_target(chip, d, base + static_cast<uint64_t>(r) * stride, isa::kMxuWeightRowBytes,
                                     "weight load");
        t.memory->read(t.offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&unit.weights_bf16[r * isa::kMxuTileDim]),
                                                    isa::kMxuWeightRowBytes));
      }
      publish_memory(chip, MemoryKind::kVmem, base - isa::kVmemBase, isa::kMxuWeightRowBytes, isa::kMxuTileDim, stride,
                     false);
      refresh_weight_cache(unit);
      break;
    }
    case Opcode::kMxuMul: {
      // acc[r][n] += sum_k bf16(lhs[r][k]) * w[k][n], accumulated in f32 in
      // k order (products of two bf16 values are exact in f32).
      static_assert(kLanes == isa::kMxuTileDim);
      const VectorRegister& lhs = chip.v[d.vs1];
      float left[kSublanes * isa::kMxuTileDim];
      for (int i = 0; i < kSublanes * isa::kMxuTileDim; ++i) {
        left[i] = f32_from_bf16(bf16_from_f32(f32_from_bits(lhs.element[i])));
      }
      kMxuMulRows(left, unit.weights_f32.data(), unit.accumulator.data(), kSublanes);
      break;
    }
    default: {  // mxu.pop
      VectorRegister& out = chip.v[d.vd];
      for (int i = 0; i < kVectorElements; ++i) out.element[i] = bits_from_f32(unit.accumulator[i]);
      std::fill(unit.accumulator.begin(), unit.accumulator.end(), 0.0f);
      break;
    }
  }
}

}  // namespace snr::sim
