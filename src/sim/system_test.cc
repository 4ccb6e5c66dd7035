// Multi-chip functional behaviour, errors, and determinism.
#include <gtest/gtest.h>

#include <span>
#include <sstream>
#include <vector>

#include "isa/address_map.h"
#include "sim/demo_program.h"
#include "sim/paged_memory.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"
#include "sim/sim_test_util.h"
#include "sim/timing.h"

namespace snr::sim {

using assembler::ProgramBuilder;
namespace {

using Op = isa::Opcode;
constexpr uint64_t kText = isa::kDefaultTextBase;

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(System, ChipsKnowTheirIdAndCount) {
  ProgramBuilder b;
  b.csr_read(5, isa::kCsrMhartid);
  b.csr_read(6, isa::kCsrNchips);
  b.i(Op::kSlli, 5, 5, 8);
  b.r(Op::kAdd, 5, 5, 6);
  b.exit(5);
  System system(testing::round_number_config(3));
  system.load(sim::program_from_builder(b, "ids"));
  run_functional(system, 1000);
  for (uint32_t c = 0; c < 3; ++c) EXPECT_EQ(system.chip(c).exit_code, static_cast<int64_t>(c * 256 + 3));
}

TEST(System, RemoteSignalUnblocksWaitingChip) {
  // Chip 0 waits on sem4; chip 1 signals it remotely. Chip 0 runs first and
  // must yield rather than spin.
  ProgramBuilder b;
  auto chip1 = b.new_label(), end = b.new_label();
  b.csr_read(5, isa::kCsrMhartid);
  b.branch(Op::kBne, 5, 0, chip1);
  b.sem_wait(4, 1);
  b.li(6, 7);
  b.jump(end);
  b.bind(chip1);
  b.li(7, 0);
  b.sem_signal_remote(4, 7, 1);
  b.li(6, 9);
  b.bind(end);
  b.exit(6);
  for (bool timing : {false, true}) {
    System system(testing::round_number_config(2));
    system.load(sim::program_from_builder(b, "signal"));
    if (timing) {
      TimingSimulator(system).run(10'000);
    } else {
      run_functional(system, 10'000);
    }
    EXPECT_EQ(system.chip(0).exit_code, 7);
    EXPECT_EQ(system.chip(1).exit_code, 9);
    EXPECT_EQ(system.chip(0).semaphore[4], 0u);
  }
}

TEST(System, DeadlockNamesChipsAndSemaphores) {
  ProgramBuilder b;
  b.sem_wait(3, 2);
  b.exit(0);
  System functional(testing::round_number_config(2));
  functional.load(sim::program_from_builder(b, "deadlock"));
  std::string msg = error_of([&] { run_functional(functional, 1000); });
  EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
  EXPECT_NE(msg.find("chip 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sem3 >= 2, has 0"), std::string::npos) << msg;
  System timed(testing::round_number_config(2));
  timed.load(sim::program_from_builder(b, "deadlock"));
  msg = error_of([&] { TimingSimulator(timed).run(1000); });
  EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sem3 >= 2"), std::string::npos) << msg;
}

TEST(System, AccessFaultsNamePcInstructionAndAddress) {
  ProgramBuilder b;
  b.li(5, static_cast<int64_t>(isa::kVmemBase));
  b.i(Op::kLd, 6, 5, 0);  // scalar load from VMEM: not allowed
  b.exit(0);
  System system(testing::round_number_config());
  system.load(sim::program_from_builder(b, "fault"));
  std::string msg = error_of([&] { run_functional(system, 100); });
  EXPECT_NE(msg.find("chip 0 pc 0x10004"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ld"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x10000000"), std::string::npos) << msg;
}

TEST(System, StoreIntoTextAndBadDmaAreFaults) {
  ProgramBuilder store;
  store.li(5, static_cast<int64_t>(kText));
  store.s(Op::kSw, 0, 5, 0);
  System a(testing::round_number_config());
  a.load(sim::program_from_builder(store, "store"));
  EXPECT_NE(error_of([&] { run_functional(a, 100); }).find("instruction memory"), std::string::npos);

  ProgramBuilder dma;
  dma.li(5, static_cast<int64_t>(isa::make_remote_address(5, isa::kHbmBase)));  // chip 5 of 2
  dma.li(6, static_cast<int64_t>(isa::kVmemBase));
  dma.li(7, 64);
  dma.dma(6, 5, 7, 0);
  System b(testing::round_number_config(2));
  b.load(sim::program_from_builder(dma, "dma"));
  std::string msg = error_of([&] { run_functional(b, 100); });
  EXPECT_NE(msg.find("chip 5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dma.issue"), std::string::npos) << msg;
}

TEST(System, RemoteDmaCopiesAndSignalsBothChips) {
  ProgramBuilder b;
  auto chip1 = b.new_label(), end = b.new_label();
  b.csr_read(5, isa::kCsrMhartid);
  b.branch(Op::kBne, 5, 0, chip1);
  b.li(6, static_cast<int64_t>(isa::kHbmBase));
  b.li(7, static_cast<int64_t>(isa::make_remote_address(1, isa::kVmemBase + 0x100)));
  b.li(8, 8);
  b.dma(7, 6, 8, 2);
  b.sem_wait(2, 1);
  b.jump(end);
  b.bind(chip1);
  b.sem_wait(2, 1);  // arrives from chip 0
  b.bind(end);
  b.exit(0);
  for (bool timing : {false, true}) {
    System system(testing::round_number_config(2));
    system.load(sim::program_from_builder(b, "remote"));
    system.chip(0).hbm.store<uint64_t>(0, 0x1122334455667788ull);
    RunOutcome out = timing ? TimingSimulator(system).run(100'000) : run_functional(system, 1000);
    EXPECT_EQ(system.chip(1).vmem.load<uint64_t>(0x100), 0x1122334455667788ull);
    EXPECT_EQ(system.chip(0).semaphore[2], 0u);
    EXPECT_EQ(system.chip(1).semaphore[2], 0u);
    if (timing) {
      EXPECT_EQ(out.chips[0].dma_count, 1u);
      EXPECT_GT(out.cycles, 110u);  // base latency + one ICI hop
    }
  }
}

TEST(System, DemoRunsAndMatchesHostReference) {
  hw::HwConfig config = hw::preset("tpu-v4-like");
  config.set("chips", "2");
  EventBus bus;
  uint64_t chip0_matrix_slices = 0;
  bus.unit_busy.subscribe([&](const UnitBusy& e) { chip0_matrix_slices += e.chip == 0 && e.unit == isa::Unit::kMatrix; });
  System two(config, &bus);
  two.load(demo::build_program());
  demo::seed_inputs(two);
  RunOutcome out = TimingSimulator(two).run(10'000'000);
  EXPECT_LT(demo::max_relative_error(two), 1e-5);
  EXPECT_EQ(two.chip(1).console, "chip 1: done\n");
  EXPECT_GT(chip0_matrix_slices, 0u);
  EXPECT_EQ(out.chips[0].dma_count, 4u);
}

// Every event of a run, rendered as text: two runs must give the same bytes.
std::string event_log_of_demo() {
  std::ostringstream log;
  EventBus bus;
  bus.instruction_issued.subscribe([&](const InstructionIssued& e) {
    log << "I " << e.chip << ' ' << e.cycle << ' ' << e.pc << ' ' << e.stall_cycles << '\n';
  });
  bus.instruction_retired.subscribe([&](const InstructionRetired& e) { log << "R " << e.chip << ' ' << e.complete_cycle << '\n'; });
  bus.unit_busy.subscribe([&](const UnitBusy& e) { log << "U " << e.chip << ' ' << e.start_cycle << ' ' << e.end_cycle << '\n'; });
  bus.dma.subscribe([&](const DmaEvent& e) {
    log << "D " << e.dma_id << ' ' << static_cast<int>(e.phase) << ' ' << e.cycle << ' ' << e.bytes << '\n';
  });
  bus.memory.subscribe([&](const MemoryAccess& e) {
    log << "M " << e.chip << ' ' << e.cycle << ' ' << static_cast<int>(e.memory) << ' ' << e.offset << ' ' << e.row_bytes
        << 'x' << e.rows << '\n';
  });
  bus.register_access.subscribe([&](const RegisterAccess& e) {
    log << "G " << e.chip << ' ' << e.cycle << ' ' << static_cast<int>(e.index) << e.is_write << '\n';
  });
  bus.semaphore.subscribe([&](const SemaphoreEvent& e) { log << "S " << e.chip << ' ' << e.cycle << ' ' << e.value_after << '\n'; });
  hw::HwConfig config = hw::preset("tpu-v5e-like");
  config.set("chips", "4");
  System system(config, &bus);
  system.load(demo::build_program());
  demo::seed_inputs(system);
  RunOutcome out = TimingSimulator(system).run(10'000'000);
  log << "cycles " << out.cycles << '\n';
  for (uint32_t c = 0; c < 4; ++c) {
    for (int i = 0; i < kVectorElements; ++i) log << system.chip(c).v[7].element[i] << ',';
  }
  return log.str();
}

TEST(System, SameInputsGiveByteIdenticalEvents) {
  const std::string first = event_log_of_demo();
  const std::string second = event_log_of_demo();
  EXPECT_GT(first.size(), 10'000u);
  EXPECT_TRUE(first == second) << "event streams differ between two identical runs";
}


// An initializer answers reads of memory no write has materialized, without
// a page; a write materializes its page (initializer, then the write).
// Pages written before it was set, and clear(), are not affected.
TEST(PagedMemory, InitializerAnswersReadsAndMaterializesOnWrite) {
  PagedMemory memory(1 << 20, 4096);
  memory.store<uint32_t>(0, 0xdeadbeef);  // present before the initializer: kept
  EXPECT_EQ(memory.materialized_page_count(), 1u);
  auto expected = [](uint64_t at) { return static_cast<uint8_t>(at * 7); };
  int calls = 0;
  memory.set_initializer([&](uint64_t offset, std::span<uint8_t> out) {
    ++calls;
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i], 0) << "the initializer gets zeros";
      out[i] = expected(offset + i);
    }
  });
  EXPECT_EQ(memory.load<uint32_t>(0), 0xdeadbeefu);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(memory.load<uint8_t>(8192 + 5), expected(8192 + 5));
  EXPECT_EQ(memory.load<uint8_t>(8192 + 5), expected(8192 + 5));  // read twice, answered twice
  EXPECT_EQ(calls, 2);
  std::vector<uint8_t> out(3 * 4096);
  memory.read(4 * 4096 - 2, out);  // spans four pages never written: one call
  EXPECT_EQ(calls, 3);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], expected(4 * 4096 - 2 + i)) << i;
  EXPECT_EQ(memory.materialized_page_count(), 1u) << "reads materialize nothing";
  memory.store<uint8_t>(8192 + 6, 1);  // the write wins, the rest of its page is the initializer's
  EXPECT_EQ(memory.materialized_page_count(), 2u);
  EXPECT_EQ(memory.load<uint8_t>(8192 + 6), 1);
  EXPECT_EQ(memory.load<uint8_t>(8192 + 7), expected(8192 + 7));
  memory.write(5 * 4096, std::vector<uint8_t>{9});
  EXPECT_EQ(memory.load<uint8_t>(5 * 4096 + 1), expected(5 * 4096 + 1));
  // A read across written and unwritten pages sees both.
  std::vector<uint8_t> mixed(4096 + 2);
  memory.read(5 * 4096 - 1, mixed);
  EXPECT_EQ(mixed[0], expected(5 * 4096 - 1));
  EXPECT_EQ(mixed[1], 9);
  EXPECT_EQ(mixed[4097], expected(6 * 4096));
  EXPECT_EQ(memory.touched_page_offsets(), (std::vector<uint64_t>{0, 8192, 5 * 4096}));
  memory.clear();
  EXPECT_EQ(memory.materialized_page_count(), 0u);
  EXPECT_EQ(memory.load<uint8_t>(8192 + 5), 0);
}

// A write covering a whole page never written replaces the page's initial
// contents, so they are not generated; a moved-from memory owns nothing;
// a large, mostly untouched memory costs its pages only.
TEST(PagedMemory, WholePageWritesSkipTheInitializerAndMovesTransferPages) {
  PagedMemory memory(uint64_t{32} << 30, 65536);
  EXPECT_EQ(memory.page_bytes(), 65536u);
  int calls = 0;
  memory.set_initializer([&](uint64_t, std::span<uint8_t> out) {
    ++calls;
    std::fill(out.begin(), out.end(), uint8_t{7});
  });
  std::vector<uint8_t> page(65536 + 10, 3);
  memory.write(65536, page);  // one whole page, then 10 bytes of the next
  EXPECT_EQ(calls, 1) << "only the partly written page is generated";
  EXPECT_EQ(memory.load<uint8_t>(65536), 3);
  EXPECT_EQ(memory.load<uint8_t>(2 * 65536 + 9), 3);
  EXPECT_EQ(memory.load<uint8_t>(2 * 65536 + 10), 7);
  EXPECT_EQ(memory.materialized_page_count(), 2u);

  PagedMemory moved(std::move(memory));
  EXPECT_EQ(moved.materialized_page_count(), 2u);
  EXPECT_EQ(moved.load<uint8_t>(65536 + 100), 3);
  EXPECT_EQ(memory.materialized_page_count(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state is defined
  PagedMemory assigned(4096, 4096);
  assigned.store<uint8_t>(0, 1);
  assigned = std::move(moved);
  EXPECT_EQ(assigned.size_bytes(), uint64_t{32} << 30);
  EXPECT_EQ(assigned.touched_page_offsets(), (std::vector<uint64_t>{65536, 2 * 65536}));
}

}  // namespace
}  // namespace snr::sim
