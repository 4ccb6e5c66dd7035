// Throughput of decode, compute_accesses, disassemble, assemble and ELF
// write/read over a mix of every table row with random operands.
#include <benchmark/benchmark.h>

#include <random>

#include "asm/assembler.h"
#include "elf/elf.h"
#include "isa/access.h"
#include "isa/disasm.h"
#include "isa/isa.h"
#include "isa/random_operands.h"

namespace {

std::vector<uint32_t> instruction_mix(size_t count) {
  std::mt19937_64 rng(1);
  std::vector<uint32_t> words;
  const auto table = snr::isa::instruction_table();
  while (words.size() < count) {
    for (const auto& row : table) words.push_back(snr::isa::encode(snr::isa::random_operands(row, rng)).value());
  }
  words.resize(count);
  return words;
}

std::string program_text(size_t instructions) {
  std::string text = ".globl _start\n_start:\n";
  snr::isa::DisasmOptions options;
  options.assembler_targets = true;
  uint64_t pc = 0x10000 + 0;
  for (uint32_t w : instruction_mix(instructions)) {
    const auto d = snr::isa::decode(w);
    // Branch targets must stay inside the program; use plain ALU forms then.
    if (d.row->operands[2] == snr::isa::OperandKind::kImmB || d.row->operands[1] == snr::isa::OperandKind::kImmJ) {
      text += "addi a0, a0, 1\n";
    } else {
      text += snr::isa::disassemble(d, pc, options) + "\n";
    }
    pc += 4;
  }
  return text;
}

void BM_Decode(benchmark::State& state) {
  const auto words = instruction_mix(4096);
  for (auto _ : state) {
    for (uint32_t w : words) benchmark::DoNotOptimize(snr::isa::decode(w));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * words.size()));
}
BENCHMARK(BM_Decode);

void BM_ComputeAccesses(benchmark::State& state) {
  std::vector<snr::isa::DecodedInstruction> decoded;
  for (uint32_t w : instruction_mix(4096)) decoded.push_back(snr::isa::decode(w));
  std::array<uint64_t, 32> x{};
  for (unsigned i = 0; i < 32; ++i) x[i] = 0x1000'0000 + 4096 * i;
  snr::isa::Accesses out;
  for (auto _ : state) {
    for (const auto& d : decoded) {
      snr::isa::compute_accesses(d, std::span<const uint64_t, 32>(x), out);
      benchmark::DoNotOptimize(out.read_count);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * decoded.size()));
}
BENCHMARK(BM_ComputeAccesses);

void BM_Disassemble(benchmark::State& state) {
  std::vector<snr::isa::DecodedInstruction> decoded;
  for (uint32_t w : instruction_mix(4096)) decoded.push_back(snr::isa::decode(w));
  for (auto _ : state) {
    for (const auto& d : decoded) benchmark::DoNotOptimize(snr::isa::disassemble(d, 0x10000));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * decoded.size()));
}
BENCHMARK(BM_Disassemble);

void BM_AssembleToElf(benchmark::State& state) {
  const std::string text = program_text(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(snr::assembler::assemble_to_elf(text).value());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_AssembleToElf)->Arg(10000);

void BM_ReadElf(benchmark::State& state) {
  const auto bytes = snr::assembler::assemble_to_elf(program_text(10000)).value();
  for (auto _ : state) benchmark::DoNotOptimize(snr::elf::read_elf(bytes, "bench").value());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_ReadElf);

}  // namespace

BENCHMARK_MAIN();
