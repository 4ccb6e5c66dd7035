// The symptoms the default schedule knobs must produce (seed 000 §5.2.1,
// §5.3.1) and the effect of changing each knob, measured in timing mode.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "compiler/compiler.h"
#include "compiler/profile.h"
#include "compiler/test_specs.h"

namespace snr::compiler {
namespace {

Spec all_gather(SetupMode mode) { return testing::small_collective(CollectiveOp::kAllGather, mode, 4 * 4096); }

size_t op_index(const ModelImage& image, const std::string& name) {
  for (size_t i = 0; i < image.ops.size(); ++i) {
    if (image.ops[i].name == name) return i;
  }
  ADD_FAILURE() << "no op " << name;
  return 0;
}

std::vector<const DmaRecord*> setup_dmas(const RunProfile& p, int op) {
  std::vector<const DmaRecord*> out;
  for (const DmaRecord& d : p.dmas) {
    if (d.op == op && d.src_memory == sim::MemoryKind::kHbm && d.dst_memory == sim::MemoryKind::kSmem) out.push_back(&d);
  }
  return out;
}

TEST(AllGatherSetup, ChainedDefaultStallsOnBaseLatencyInThreeChains) {
  ASSERT_EQ(Spec{}.schedule.allgather_setup, SetupMode::kChained);
  const CompiledModel model = compile(all_gather(SetupMode::kChained));
  const RunProfile p = profile_model(model.image, 10'000'000);
  const int op = static_cast<int>(op_index(model.image, "all_gather"));
  const auto setup = setup_dmas(p, op);
  ASSERT_EQ(setup.size(), 9u);
  uint64_t base = 0, transfer = 0;
  for (const DmaRecord* d : setup) {
    base += d->base_latency_stall();
    transfer += d->transfer_stall();
  }
  EXPECT_GT(base, 4 * transfer) << "base " << base << " transfer " << transfer;
  // Three chains: a head whose source is a constant, then two DMAs whose
  // source address was loaded from the previous DMA's destination.
  int heads = 0;
  for (const DmaRecord* d : setup) {
    if (d->address_from < 0) {
      ++heads;
      int length = 1;
      const DmaRecord* cur = d;
      for (bool extended = true; extended;) {
        extended = false;
        for (const DmaRecord* next : setup) {
          if (next->address_from >= 0 && &p.dmas[static_cast<size_t>(next->address_from)] == cur) {
            cur = next;
            ++length;
            extended = true;
            break;
          }
        }
      }
      EXPECT_EQ(length, 3);
    }
  }
  EXPECT_EQ(heads, 3);
}

TEST(AllGatherSetup, ParallelAndPinnedShortenTheCollective) {
  std::map<SetupMode, double> cycles;
  for (SetupMode mode : {SetupMode::kChained, SetupMode::kParallel, SetupMode::kPinned}) {
    const CompiledModel model = compile(all_gather(mode));
    const RunProfile p = profile_model(model.image, 10'000'000);
    const size_t op = op_index(model.image, "all_gather");
    cycles[mode] = p.ops[op].cycles;
    if (mode == SetupMode::kPinned) {
      EXPECT_TRUE(setup_dmas(p, static_cast<int>(op)).empty());
    }
  }
  EXPECT_LT(cycles[SetupMode::kParallel], cycles[SetupMode::kChained]);
  EXPECT_LT(cycles[SetupMode::kPinned], cycles[SetupMode::kParallel]);
}

Spec small_decode(uint64_t distance) {
  Spec s;
  s.source_name = "test";
  s.model.hidden = 1024;
  s.model.heads = 8;
  s.model.kv_heads = 2;
  s.model.ffn = 2048;
  s.model.layers = 1;
  s.batch = 8;
  s.context = 256;
  s.tensor_parallel = 2;
  s.schedule.prefetch_distance = distance;
  s.schedule.buffers = std::max<uint64_t>(s.schedule.buffers, distance + 1);
  return s;
}

TEST(Prefetch, LongerDistanceRaisesMatrixUtilization) {
  const Spec defaults;
  const RunProfile near = profile_model(compile(small_decode(defaults.schedule.prefetch_distance)).image, 100'000'000);
  const RunProfile far = profile_model(compile(small_decode(16)).image, 100'000'000);
  EXPECT_GT(far.matrix_utilization(), 1.2 * near.matrix_utilization());
  EXPECT_LT(far.cycles, near.cycles);
}

TEST(DefaultDecode, OneLayerIsARecordingWindow) {
  // seed 000 §4.4: recorded windows are 100k-600k instructions, a couple
  // of layers; the default example's layer must land in that range.
  const char* source = std::getenv("SNR_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "SNR_SOURCE_DIR is not set";
  const Spec spec = load_spec_file(std::string(source) + "/examples/llm-decode.yaml");
  EXPECT_EQ(spec.tensor_parallel, 4u);
  const CompiledModel model = compile(spec);
  RecordProperty("layer_instructions", std::to_string(model.image.layer_instructions));
  EXPECT_GE(model.image.layer_instructions, 100'000u);
  EXPECT_LE(model.image.layer_instructions, 600'000u);
}

}  // namespace
}  // namespace snr::compiler
