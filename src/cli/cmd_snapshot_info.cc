// `snr snapshot info snap.snr`: what a snapshot holds, per chip.
#include <fmt/format.h>

#include <map>

#include "cli/command.h"
#include "common/units.h"
#include "formats/snapshot/snapshot.h"

namespace {

int info(const std::string& path) {
  snr::cli::check_input_file(path);
  const snr::snapshot::Snapshot snapshot = snr::snapshot::read_snapshot_file(path).value();
  const auto& header = snapshot.header;
  const auto& stats = header.stats();
  fmt::print("{}: snapshot format {}, ISA hash {:#018x}\n", path, header.format_version(), header.isa_hash());
  fmt::print("target: {}; {} chips, recorded:", header.target(), header.chip_count());
  for (uint32_t chip : header.recorded_chips()) fmt::print(" {}", chip);
  fmt::print("\n");
  if (!header.breakpoint().empty()) {
    fmt::print("breakpoint: {} ({:#x}); requested {} instructions per chip\n", header.breakpoint(),
               header.breakpoint_address(), header.requested_count());
  }
  const double seconds = static_cast<double>(stats.wall_time_ns()) / 1e9;
  fmt::print("recorded {} instructions in {:.3f} s; {} steps did not retire (blocked)\n", stats.instructions(), seconds,
             stats.steps_not_retired());
  fmt::print("debugger requests: {} ({} memory reads, {} register reads)\n", stats.round_trips(), stats.memory_reads(),
             stats.register_reads());
  const double fraction = stats.naive_full_state_bytes() == 0
                              ? 0.0
                              : static_cast<double>(stats.captured_bytes()) /
                                    static_cast<double>(stats.naive_full_state_bytes());
  fmt::print("captured {} bytes; naive full state {} bytes; fraction {:.3g}\n", stats.captured_bytes(),
             stats.naive_full_state_bytes(), fraction);
  for (const auto& chip : snapshot.chips) {
    uint64_t register_bytes = 0, code_bytes = 0;
    std::map<std::string, std::pair<uint64_t, uint64_t>> memory;  // space -> regions, bytes
    for (const auto& value : chip.registers()) register_bytes += value.value().size();
    for (const auto& code : chip.code()) code_bytes += code.data().size();
    for (const auto& region : chip.memory()) {
      auto& entry = memory[snr::snapshot::pb::MemorySpace_Name(region.space())];
      ++entry.first;
      entry.second += region.data().size();
    }
    if (chip.recorded()) {
      fmt::print("chip {}: {} instructions from pc {:#x}, ended by {}; {} saved registers ({} bytes); code {} bytes; "
                 "{} symbols\n", chip.chip(), chip.instruction_count(), chip.first_pc(), chip.final_state().end(),
                 chip.registers_size(), register_bytes, code_bytes, chip.symbols_size());
    } else {
      fmt::print("chip {} (not recorded; the window touched its state): {} saved registers ({} bytes)\n", chip.chip(),
                 chip.registers_size(), register_bytes);
    }
    for (const auto& [space, entry] : memory) {
      fmt::print("  saved {}: {} regions, {} bytes\n", space, entry.first, entry.second);
    }
    uint64_t written = 0;
    for (const auto& interval : chip.final_state().written_memory()) written += interval.length();
    fmt::print("  written by the window: {} bytes of memory, {} pieces of accelerator state\n", written,
               chip.final_state().written_state_size());
  }
  return 0;
}

void setup_snapshot_info(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto path = std::make_shared<std::string>();
  auto* sub = parent.add_subcommand("info", "Summarize a snapshot: chips, instructions, saved state, statistics");
  sub->add_option("snapshot", *path, "snapshot file (.snr)")->required();
  snr::cli::set_examples(sub, {"snr snapshot info window.snr"});
  sub->callback([path, &ctx] { ctx.exit_code = info(*path); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(snapshot, "Inspect, validate and re-execute snapshots", info, setup_snapshot_info);
