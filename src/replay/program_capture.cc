#include "replay/program_capture.h"

#include <cstring>
#include <fmt/format.h>

#include "common/error.h"
#include "common/hash.h"
#include "isa/isa.h"
#include "sim/executor.h"

namespace snr::replay {

CapturedRun capture_program_run(const sim::ProgramImage& program, const hw::HwConfig& config,
                                const CaptureOptions& options) {
  CapturedRun run;
  run.system = std::make_unique<sim::System>(config);
  sim::System& system = *run.system;
  system.load(program);
  ReplayInput& input = run.input;
  input.identity = fmt::format("program {}", program.name);
  input.hw_config_yaml = config.to_yaml();
  input.chip_count = system.chip_count();
  input.isa_hash = isa::isa_table_hash();
  for (const sim::ProgramSegment& segment : program.segments) {
    if (segment.executable) {
      CodeRange code{segment.address, std::vector<uint32_t>(segment.bytes.size() / 4)};
      std::memcpy(code.words.data(), segment.bytes.data(), code.words.size() * 4);
      input.code.push_back(std::move(code));
    }
  }
  input.chips.resize(system.chip_count());
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    sim::ChipState& chip = system.chip(c);
    if (options.initialize) options.initialize(chip);
    ReplayChip& saved = input.chips[c];
    saved.chip = c;
    saved.recorded = true;
    for (uint32_t i = 1; i < 32; ++i) {
      std::string bytes(8, '\0');
      std::memcpy(bytes.data(), &chip.x[i], 8);
      saved.registers.push_back({snapshot::pb::STATE_X, i, std::move(bytes)});
    }
    for (const sim::ProgramSegment& segment : program.segments) {
      if (!segment.executable && !segment.bytes.empty()) {
        saved.memory.push_back({segment.address, std::string(segment.bytes.begin(), segment.bytes.end())});
      }
    }
  }
  sim::Executor executor(system);
  uint64_t total = 0;
  while (true) {
    bool progressed = false, all_finished = true;
    for (uint32_t c = 0; c < system.chip_count(); ++c) {
      sim::ChipState& chip = system.chip(c);
      if (chip.status == sim::ChipStatus::kExited || chip.status == sim::ChipStatus::kBreak) continue;
      all_finished = false;
      const uint64_t pc = chip.pc;
      if (executor.step(chip) == sim::StepResult::kBlocked) continue;
      input.chips[c].pcs.push_back(pc);
      progressed = true;
      ++total;
    }
    if (all_finished) break;
    if (!progressed) throw Error("program capture: every running chip is blocked on a semaphore");
    if (total > options.max_instructions) {
      throw Error(fmt::format("program capture: stopped after {} instructions (limit)", total));
    }
  }
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    ExpectedEnd& end = input.chips[c].end;
    end.known = true;
    end.pc = system.chip(c).pc;
    end.x.assign(system.chip(c).x.begin(), system.chip(c).x.end());
    end.written_memory_hash = kFnvOffsetBasis;
  }
  return run;
}

}  // namespace snr::replay
