// The symptoms the default schedule knobs must produce (seed 000 §5.2.1,
// §5.3.1) and the effect of changing each knob, measured in timing mode.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "compiler/compiler.h"
#include "metrics/model_profile.h"
#include "compiler/lowering.h"
#include "compiler/test_specs.h"
#include "isa/access.h"

namespace snr::compiler {
namespace {

using metrics::DmaRecord;
using metrics::layer_window;
using metrics::profile_model;
using metrics::RunProfile;

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
    base += d->base_stall_cycles;
    transfer += d->transfer_stall_cycles;
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


// Instructions of chip 0's text in [begin, end) (addresses).
std::vector<isa::DecodedInstruction> text_between(const ModelImage& image, uint64_t begin, uint64_t end) {
  const elf::Section& text = image.programs.at(0).sections.at(0);
  std::vector<isa::DecodedInstruction> out;
  for (uint64_t pc = begin; pc < end; pc += 4) {
    uint32_t word = 0;
    std::memcpy(&word, &text.data.at(pc - text.address), 4);
    out.push_back(isa::decode(word));
  }
  return out;
}

std::vector<isa::DecodedInstruction> setup_phase(const CompiledModel& model) {
  const elf::Image& program = model.image.programs.at(0);
  const elf::Symbol* setup = program.find_symbol("all_gather.setup");
  const elf::Symbol* transfer = program.find_symbol("all_gather.transfer");
  EXPECT_NE(setup, nullptr);
  EXPECT_NE(transfer, nullptr);
  if (setup == nullptr || transfer == nullptr) return {};
  return text_between(model.image, setup->value, transfer->value);
}

isa::Accesses accesses_of(const isa::DecodedInstruction& d) {
  isa::Accesses a;
  const std::array<uint64_t, 32> zero{};
  isa::compute_accesses(d, std::span<const uint64_t, 32>(zero), a);
  return a;
}

TEST(AllGatherSetup, ChainsShareNoRegisterOrSemaphoreSoParallelIsAReordering) {
  const std::vector<isa::DecodedInstruction> chained = setup_phase(compile(all_gather(SetupMode::kChained)));
  ASSERT_FALSE(chained.empty());
  // The base register is set first (auipc + addi); then chain g is the
  // instructions up to its third WAIT.
  ASSERT_EQ(chained[0].opcode, isa::Opcode::kAuipc);
  const uint8_t base = chained[0].rd;
  std::array<std::set<int>, 3> written, sems;
  int chain = 0, waits = 0;
  for (size_t i = 2; i < chained.size(); ++i) {
    const isa::Accesses a = accesses_of(chained[i]);
    for (const isa::StateRef& w : a.writes()) {
      if (w.kind == isa::StateKind::kX) written[chain].insert(w.index);
      if (w.kind == isa::StateKind::kSemaphore) sems[chain].insert(w.index);
    }
    if (chained[i].opcode == isa::Opcode::kSemWait && ++waits % 3 == 0) ++chain;
  }
  ASSERT_EQ(chain, 3);
  for (int g = 0; g < 3; ++g) {
    EXPECT_FALSE(written[g].contains(base)) << "chain " << g << " writes the base register";
    EXPECT_EQ(sems[g].size(), 1u) << "chain " << g;
    for (int h = g + 1; h < 3; ++h) {
      for (int r : written[g]) EXPECT_FALSE(written[h].contains(r)) << "chains " << g << ", " << h << " write x" << r;
      for (int s : sems[g]) EXPECT_FALSE(sems[h].contains(s)) << "chains " << g << ", " << h << " use sem " << s;
    }
  }
  // `parallel` is the same instructions in another order.
  const std::vector<isa::DecodedInstruction> parallel = setup_phase(compile(all_gather(SetupMode::kParallel)));
  std::vector<uint32_t> a, b;
  for (const auto& d : chained) a.push_back(d.word);
  for (const auto& d : parallel) b.push_back(d.word);
  EXPECT_NE(a, b);
  EXPECT_EQ(std::multiset<uint32_t>(a.begin(), a.end()), std::multiset<uint32_t>(b.begin(), b.end()));
}

// The attention's K/V-cache reads are the late-DMA case of seed 000 §5.3.1:
// each head group's reads are issued right before their WAIT, each ISSUE
// set up by its own li's into registers nothing else uses, so moving an
// ISSUE earlier (what `kv_prefetch: ahead` does) is legal, and faster.
TEST(KvPrefetch, LateKvReadsAreSelfContainedAndHoistingThemIsFaster) {
  const CompiledModel late = compile(small_decode(2));
  size_t attention = 0;
  for (size_t i = 0; i < late.image.ops.size(); ++i) {
    if (late.image.ops[i].name == "layer0.attn.attention") attention = i;
  }
  const OpInfo& op = late.image.ops.at(attention);
  const std::vector<isa::DecodedInstruction> code = text_between(late.image, op.pc_begin, op.pc_end);
  // Keys and values each have their own three registers.
  const std::array<std::set<int>, 2> stage = {std::set<int>(std::begin(reg::kStageK), std::end(reg::kStageK)),
                                              std::set<int>(std::begin(reg::kStageV), std::end(reg::kStageV))};
  std::array<std::set<int>, 2> defined;  // stage registers written since that kind's last ISSUE
  int kv_issues = 0, kv_waits = 0;
  for (const isa::DecodedInstruction& d : code) {
    const isa::Accesses a = accesses_of(d);
    const bool kv_sem = d.sem >= sem::kKvBase && d.sem < sem::kKvBase + 4;
    const bool kv_issue = d.opcode == isa::Opcode::kDmaIssue && kv_sem;
    if (d.opcode == isa::Opcode::kSemWait && kv_sem) ++kv_waits;
    const int kind = d.sem >= sem::kKvBase + 2 ? 1 : 0;  // values : keys
    for (const isa::StateRef& r : a.reads()) {
      if (r.kind != isa::StateKind::kX || !(stage[0].contains(r.index) || stage[1].contains(r.index))) continue;
      // Only the constant chain itself and the ISSUE read them.
      const bool chain = d.rd == r.index && (d.opcode == isa::Opcode::kAddi || d.opcode == isa::Opcode::kAddiw ||
                                             d.opcode == isa::Opcode::kSlli);
      EXPECT_TRUE((kv_issue && stage[kind].contains(r.index)) || chain)
          << "x" << r.index << " read by opcode " << static_cast<int>(d.opcode);
    }
    for (const isa::StateRef& w : a.writes()) {
      if (w.kind != isa::StateKind::kX) continue;
      for (int k = 0; k < 2; ++k) {
        if (!stage[k].contains(w.index)) continue;
        EXPECT_TRUE(d.opcode == isa::Opcode::kLui || d.opcode == isa::Opcode::kAddi ||
                    d.opcode == isa::Opcode::kAddiw || d.opcode == isa::Opcode::kSlli);
        defined[k].insert(w.index);
      }
    }
    if (kv_issue) {
      ++kv_issues;
      const uint8_t* regs = kind == 0 ? reg::kStageK : reg::kStageV;  // {dst, src, bytes}
      EXPECT_EQ(d.rs2, regs[0]);
      EXPECT_EQ(d.rs1, regs[1]);
      EXPECT_EQ(d.rs3, regs[2]);
      EXPECT_EQ(defined[kind], stage[kind]) << "ISSUE " << kv_issues << " uses a register set before its last ISSUE";
      defined[kind].clear();
    }
  }
  // 8 head groups, each one DMA and one WAIT for its keys and its values.
  EXPECT_EQ(kv_issues, 8 * 2);
  EXPECT_EQ(kv_waits, 8 * 2);

  Spec ahead_spec = small_decode(2);
  ahead_spec.schedule.kv_prefetch = KvPrefetch::kAhead;
  const RunProfile p_late = profile_model(late.image, 100'000'000);
  const RunProfile p_ahead = profile_model(compile(ahead_spec).image, 100'000'000);
  RecordProperty("attention_cycles", fmt::format("late {:.0f} ahead {:.0f}", p_late.ops[attention].cycles,
                                                 p_ahead.ops[attention].cycles));
  EXPECT_LT(p_ahead.ops[attention].cycles, 0.85 * p_late.ops[attention].cycles);
  EXPECT_GT(p_ahead.op_matrix_utilization(attention), 1.15 * p_late.op_matrix_utilization(attention));
}

// seed 000 §5.3.2: in one layer of the default decode step, the largest
// run of unused VMEM pages is well below all unused pages, measured from
// the simulator's page events the way a replay sees them; allocating the
// K/V staging per attention instead of for the step removes most of it.
TEST(DefaultDecode, VmemFragmentsAndPerOpStagingReducesIt) {
  const char* source = std::getenv("SNR_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "SNR_SOURCE_DIR is not set";
  Spec spec = load_spec_file(std::string(source) + "/examples/llm-decode.yaml");
  auto measure = [](const Spec& s) {
    const CompiledModel model = compile(s);
    return *profile_model(model.image, 50'000'000'000ull, layer_window(model.image)).vmem_liveness;
  };
  const VmemLiveness step = measure(spec);
  spec.schedule.kv_staging = KvStaging::kOp;
  const VmemLiveness op = measure(spec);
  const double ratio_step = step.median_largest_unused_fraction() / step.median_unused_fraction();
  const double ratio_op = op.median_largest_unused_fraction() / op.median_unused_fraction();
  RecordProperty("largest_over_unused", fmt::format("step {:.3f} op {:.3f}", ratio_step, ratio_op));
  // VMEM has room (the matrix units idle on late DMAs while it does) ...
  EXPECT_GT(step.median_unused_fraction(), 0.5);
  // ... but not in one piece.
  EXPECT_LE(ratio_step, 0.7);
  EXPECT_GT(ratio_op, ratio_step + 0.15);
}

}  // namespace
}  // namespace snr::compiler
