#include "sim/demo_program.h"

#include <cmath>

#include "isa/address_map.h"
#include "sim/npu_math.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"

namespace snr::sim::demo {

using assembler::ProgramBuilder;
namespace {

using Op = isa::Opcode;
constexpr uint64_t kActivationsVmem = 0x0;
constexpr uint64_t kWeightsVmem = 0x10000;
constexpr uint64_t kSendVmem = 0x20000;
constexpr uint64_t kReceivedVmem = 0x30000;
constexpr uint64_t kMessageSmem = 0x8000;
constexpr uint64_t kActivationBytes = isa::kVectorRegisterBytes;
constexpr uint64_t kWeightBytes = isa::kMxuWeightTileBytes;

// Deterministic inputs: small values that differ per chip.
float activation(uint32_t chip, int i) { return static_cast<float>(((i * 7 + chip * 13) % 17) - 8) / 8.0f; }
float weight(uint32_t chip, int i) { return static_cast<float>(((i * 5 + chip * 3) % 11) - 5) / 16.0f; }

// Host reference for one chip: relu(bf16(x) . W) with f64 accumulation.
std::vector<double> reference(uint32_t chip) {
  std::vector<double> out(kVectorElements);
  for (int r = 0; r < isa::kSublanes; ++r) {
    for (int n = 0; n < isa::kLanes; ++n) {
      double sum = 0;
      for (int k = 0; k < isa::kMxuTileDim; ++k) {
        sum += static_cast<double>(f32_from_bf16(bf16_from_f32(activation(chip, r * 128 + k)))) *
               f32_from_bf16(bf16_from_f32(weight(chip, k * 128 + n)));
      }
      out[r * 128 + n] = std::max(sum, 0.0);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> describe_steps() {
  return {
      "every chip reads its id (mhartid) and the chip count (nchips)",
      "2 DMAs HBM -> VMEM issued back to back: activations (8x128 f32, 4 KiB) and a weight tile (128x128 bf16, 32 KiB); their base latencies overlap",
      "matrix unit: load the weight tile, push the activations, pop the 8x128 f32 product",
      "vector unit: relu (max with a broadcast 0) and a lane reduction",
      "remote DMA VMEM -> next chip's HBM over ICI; the completion semaphore counts on both chips",
      "wait for the neighbour's result, DMA it HBM -> VMEM, add, store, and print a line",
  };
}

ProgramImage build_program() {
  ProgramBuilder b;
  const auto vmem = [](uint64_t offset) { return static_cast<int64_t>(isa::kVmemBase + offset); };
  const auto hbm = [](uint64_t offset) { return static_cast<int64_t>(isa::kHbmBase + offset); };
  // x8 = chip id, x9 = chip count, x18 = next chip id
  b.csr_read(8, isa::kCsrMhartid);
  b.csr_read(9, isa::kCsrNchips);
  b.i(Op::kAddi, 18, 8, 1);
  b.r(Op::kRemu, 18, 18, 9);
  // Two loads from HBM in flight at once, both completing on sem0.
  b.li(5, hbm(kActivationsHbmOffset));
  b.li(6, vmem(kActivationsVmem));
  b.li(7, static_cast<int64_t>(kActivationBytes));
  b.dma(6, 5, 7, 0);
  b.li(5, hbm(kWeightsHbmOffset));
  b.li(6, vmem(kWeightsVmem));
  b.li(7, static_cast<int64_t>(kWeightBytes));
  b.dma(6, 5, 7, 0);
  b.sem_wait(0, 2);
  // Matrix unit: product of activations and weights.
  b.li(5, vmem(kActivationsVmem));
  b.vld(1, 5, 0);
  b.li(5, vmem(kWeightsVmem));
  b.mxu_ldw(0, 5, 0);
  b.mxu_mul(0, 1);
  b.mxu_pop(2, 0);
  // Vector unit: relu, then a lane reduction kept for the console line.
  b.vbcast(3, 0);
  b.vector(Op::kVmaxF32, 4, 2, 3);
  b.vector(Op::kVredsumLaneF32, 5, 4);
  b.li(5, vmem(kSendVmem));
  b.vst(4, 5, 0);
  // Remote DMA of the result into the next chip's HBM; sem1 counts on both ends.
  b.i(Op::kSlli, 19, 18, isa::kGlobalChipShift);
  b.li(20, static_cast<int64_t>(isa::kGlobalRemoteBit | (isa::kHbmBase + kReceivedHbmOffset)));
  b.r(Op::kOr, 6, 19, 20);
  b.li(5, vmem(kSendVmem));
  b.li(7, static_cast<int64_t>(kActivationBytes));
  b.dma(6, 5, 7, 1);
  // Own completion plus the neighbour's arrival (one signal when alone).
  auto alone = b.new_label(), received = b.new_label();
  b.li(21, 1);
  b.branch(Op::kBeq, 9, 21, alone);
  b.sem_wait(1, 2);
  b.jump(received);
  b.bind(alone);
  b.sem_wait(1, 1);
  b.bind(received);
  // Bring the neighbour's result into VMEM and add it to our own.
  b.li(5, hbm(kReceivedHbmOffset));
  b.li(6, vmem(kReceivedVmem));
  b.dma(6, 5, 7, 2);
  b.sem_wait(2, 1);
  b.vld(6, 6, 0);
  b.vector(Op::kVaddF32, 7, 4, 6);
  b.li(5, vmem(kResultVmemOffset));
  b.vst(7, 5, 0);
  // Console line "chip N: done\n" built in SMEM (N = chip id digit).
  const std::string message = "chip ?: done\n";
  b.li(12, static_cast<int64_t>(kMessageSmem));
  for (size_t i = 0; i < message.size(); ++i) {
    if (message[i] == '?') {
      b.i(Op::kAddi, 11, 8, '0');
    } else {
      b.li(11, message[i]);
    }
    b.s(Op::kSb, 11, 12, static_cast<int64_t>(i));
  }
  b.li(13, static_cast<int64_t>(message.size()));
  b.write_console(12, 13);
  b.exit(0);
  return sim::program_from_builder(b, "built-in demo");
}

void seed_inputs(System& system) {
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    std::vector<float> act(kVectorElements);
    for (int i = 0; i < kVectorElements; ++i) act[i] = activation(c, i);
    std::vector<uint16_t> w(isa::kMxuTileDim * isa::kMxuTileDim);
    for (size_t i = 0; i < w.size(); ++i) w[i] = bf16_from_f32(weight(c, static_cast<int>(i)));
    PagedMemory& hbm = system.chip(c).hbm;
    hbm.write(kActivationsHbmOffset, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(act.data()), act.size() * 4));
    hbm.write(kWeightsHbmOffset, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(w.data()), w.size() * 2));
  }
}

double max_relative_error(const System& system) {
  double worst = 0;
  const uint32_t n = system.chip_count();
  for (uint32_t c = 0; c < n; ++c) {
    const std::vector<double> own = reference(c);
    const std::vector<double> neighbour = reference((c + n - 1) % n);
    std::vector<float> got(kVectorElements);
    system.chip(c).vmem.read(kResultVmemOffset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(got.data()), got.size() * 4));
    for (int i = 0; i < kVectorElements; ++i) {
      const double expected = own[i] + neighbour[i];
      worst = std::max(worst, std::fabs(got[i] - expected) / std::max(1.0, std::fabs(expected)));
    }
  }
  return worst;
}

}  // namespace snr::sim::demo
