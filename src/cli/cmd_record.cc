// `snr record`: stops a running target at a breakpoint through its GDB
// stub and records a window of instructions into a snapshot (Algorithm 1 of
// seed 000; src/record).
#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>

#include "cli/command.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/cli_numbers.h"
#include "common/output.h"
#include "compiler/artifacts.h"
#include "elf/elf.h"
#include "formats/snapshot/snapshot.h"
#include "hw/config.h"
#include "record/program_check.h"
#include "record/recorder.h"
#include "record/remote_target.h"
#include "rsp/client.h"
#include "rsp/socket.h"

namespace {

constexpr int kSnapshotZstdLevel = 1;

// User + system CPU seconds of this process so far.
double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct RecordCliOptions {
  std::string target;
  std::string breakpoint;
  uint64_t count = 0;
  std::string chips = "all";
  std::string elf_path;
  std::string model_dir;
  std::string hardware = "tpu-v4-like";
  std::string output;
  uint64_t timeout_s = 60;
  bool quiet = false;
};

std::optional<uint64_t> parse_number(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<std::vector<uint32_t>> parse_chips(const std::string& text) {
  if (text == "all") return std::nullopt;
  // An empty list would record nothing and be refused later as a window in
  // which no instruction ran, which points at --break and --count instead.
  if (text.empty()) throw snr::Error("--chips '': expected 'all' or a list like 0,2,3");
  std::vector<uint32_t> chips;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t comma = std::min(rest.find(','), rest.size());
    std::optional<uint64_t> id = parse_number(rest.substr(0, comma));
    if (!id || *id > 0xFFFF) throw snr::Error(fmt::format("--chips '{}': expected 'all' or a list like 0,2,3", text));
    // A chip named twice would be recorded once: the list says something
    // else than what the window holds.
    if (std::find(chips.begin(), chips.end(), *id) != chips.end()) {
      throw snr::Error(fmt::format("--chips '{}': chip {} is listed twice", text, *id));
    }
    chips.push_back(static_cast<uint32_t>(*id));
    rest.remove_prefix(std::min(comma + 1, rest.size()));
  }
  return chips;
}

snr::record::ProgramCode program_code(const snr::elf::Image& image, const std::string& origin) {
  snr::record::ProgramCode code;
  code.origin = origin;
  for (const snr::elf::Segment& segment : image.segments) {
    if ((segment.flags & snr::elf::kSegmentExecute) == 0) continue;
    code.ranges.push_back({segment.vaddr, std::string(segment.data.begin(), segment.data.end())});
  }
  return code;
}

int record(const RecordCliOptions& options) {
  // Before connecting: a window can take minutes to record.
  snr::output::check_output_file(options.output);
  snr::record::RecordOptions record_options;
  record_options.count_per_chip = options.count;
  record_options.chips = parse_chips(options.chips);
  record_options.breakpoint_text = options.breakpoint;
  std::optional<snr::elf::Image> elf;
  std::vector<snr::record::ProgramCode> programs;  // what the window must have run
  std::string symbol_source = options.elf_path;
  uint64_t loadable_bytes = 0;
  if (!options.elf_path.empty() && !options.model_dir.empty()) throw snr::Error("give --elf or --model, not both");
  if (!options.model_dir.empty()) {
    // A compiled model: chip 0's program resolves --break; the op list
    // (pc ranges) is the pc -> op map.
    const snr::compiler::ModelImage image = snr::compiler::read_compiled_model(options.model_dir);
    elf = image.programs.at(0);
    symbol_source = options.model_dir;
    for (size_t chip = 0; chip < image.programs.size(); ++chip) {
      programs.push_back(program_code(image.programs[chip], fmt::format("{} (chip {})", options.model_dir, chip)));
    }
    for (const snr::compiler::OpInfo& op : image.ops) {
      snr::snapshot::pb::Symbol* out = &record_options.symbols.emplace_back();
      out->set_name(op.name);
      out->set_address(op.pc_begin);
      out->set_size_bytes(op.pc_end - op.pc_begin);
    }
  } else if (!options.elf_path.empty()) {
    elf = snr::elf::read_elf_file(options.elf_path).value();
    programs.push_back(program_code(*elf, options.elf_path));
    for (const snr::elf::Symbol& symbol : elf->symbols) {
      const bool in_text = symbol.section >= 0 && static_cast<size_t>(symbol.section) < elf->sections.size() &&
                           elf->sections[static_cast<size_t>(symbol.section)].execute;
      if (!in_text || symbol.name.empty() || symbol.type == snr::elf::SymbolType::kSection ||
          symbol.type == snr::elf::SymbolType::kFile) {
        continue;
      }
      snr::snapshot::pb::Symbol* out = &record_options.symbols.emplace_back();
      out->set_name(symbol.name);
      out->set_address(symbol.value);
      out->set_size_bytes(symbol.size_bytes);
    }
    for (const snr::elf::Segment& segment : elf->segments) loadable_bytes += segment.mem_bytes;
  }
  if (!options.breakpoint.empty()) {
    if (std::optional<uint64_t> address = parse_number(options.breakpoint)) {
      record_options.breakpoint_address = *address;
    } else if (!elf) {
      throw snr::Error(fmt::format("--break {}: a symbol needs --elf or --model to resolve it (or give an address)",
                                   options.breakpoint));
    } else if (const snr::elf::Symbol* symbol = elf->find_symbol(options.breakpoint)) {
      record_options.breakpoint_address = symbol->value;
    } else {
      throw snr::Error(fmt::format("--break {}: no such symbol in {}", options.breakpoint, symbol_source));
    }
  }
  const auto timeout = std::chrono::milliseconds(options.timeout_s * 1000);
  snr::rsp::Client client(snr::rsp::connect_tcp(snr::rsp::parse_host_port(options.target), std::chrono::milliseconds(10000)),
                          timeout);
  if (!options.quiet) {
    client.set_wait_progress([](std::string_view request, std::chrono::seconds waited,
                                std::chrono::milliseconds limit) {
      fmt::print(stderr, "snr record: waiting for the stub's reply to '{}': {} s of --timeout {} s\n",
                 request.substr(0, 40), waited.count(), limit.count() / 1000);
    });
  }
  snr::record::RemoteTarget target(client, timeout);
  // A stub that does not report a hardware config (e.g. QEMU) is recorded
  // as a system of that many chips of the chosen preset.
  snr::hw::HwConfig fallback = snr::hw::load_preset_or_file(options.hardware);
  snr::hw::apply_overrides(fallback, {fmt::format("chips={}", target.thread_ids().size())});
  record_options.fallback_hw_config_yaml = fallback.to_yaml();
  record_options.fallback_naive_state_bytes = loadable_bytes == 0 ? 0 : loadable_bytes + 33 * 8;
  if (!options.quiet) {
    record_options.progress = [](const std::string& line) { fmt::print(stderr, "snr record: {}\n", line); };
    fmt::print(stderr, "snr record: connected to {}: {}, {} thread(s){}\n", options.target,
               target.description_summary(), target.thread_ids().size(),
               record_options.breakpoint_address
                   ? fmt::format(", breaking at {:#x}", *record_options.breakpoint_address)
                   : std::string());
  }
  snr::snapshot::Snapshot snapshot = snr::record::record_window(target, record_options);
  snr::record::check_program_code(snapshot, programs);
  const double record_cpu_s = cpu_seconds();
  const auto write_start = std::chrono::steady_clock::now();
  // zstd level 1: the bulk of a large window is bf16 weight and KV tiles,
  // which level 3 shrinks no further (550.7 vs 551.1 MB on the default
  // decode window) for 60% more compression CPU.
  // What the summary needs, kept before the writer takes the chips over.
  const snr::snapshot::pb::RecorderStats stats = snapshot.header.stats();
  const int recorded_chips = snapshot.header.recorded_chips_size();
  std::string chip_lines;
  for (const auto& chip : snapshot.chips) {
    if (chip.recorded()) {
      chip_lines += fmt::format("chip {}: {} instructions, window ended by {}\n", chip.chip(), chip.instruction_count(),
                                chip.final_state().end());
    }
  }
  // A window without one executed instruction replays nothing: refused
  // here, where the reason is known, rather than by `snr replay` later.
  if (stats.instructions() == 0) {
    throw snr::Error(fmt::format("no instruction ran in the window, so {} is not written (a chip blocked or ended "
                                 "at the window's start: choose another --break or --count)\n{}",
                                 options.output, chip_lines));
  }
  // Section by section: one chip's serialized bytes at a time besides the
  // window, never the whole encoded file.
  snr::snapshot::write_snapshot_streaming(options.output, std::move(snapshot), kSnapshotZstdLevel);
  const double write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - write_start).count();
  const double write_cpu_s = cpu_seconds() - record_cpu_s;
  const double seconds = static_cast<double>(stats.wall_time_ns()) / 1e9;
  fmt::print("recorded {} instructions on {} chip(s) in {:.3f} s ({:.0f} instructions/s)\n", stats.instructions(),
             recorded_chips, seconds,
             seconds > 0 ? static_cast<double>(stats.instructions()) / seconds : 0.0);
  if (stats.naive_full_state_bytes() == 0) {
    fmt::print("captured {} bytes (naive full-state size unknown for this target)\n", stats.captured_bytes());
  } else {
    fmt::print("captured {} bytes, {:.3g} of a naive full-state dump of {} bytes\n", stats.captured_bytes(),
               static_cast<double>(stats.captured_bytes()) / static_cast<double>(stats.naive_full_state_bytes()),
               stats.naive_full_state_bytes());
  }
  fmt::print("{}", chip_lines);
  // CPU of this process: connecting and recording, then encoding and
  // writing the file (the two costs have different owners and fixes).
  fmt::print("recorder CPU {:.2f} s; snapshot written in {:.2f} s ({:.2f} s CPU)\n", record_cpu_s, write_s,
             write_cpu_s);
  fmt::print("wrote {}\n", options.output);
  return 0;
}

void setup_record(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto options = std::make_shared<RecordCliOptions>();
  auto* sub = app.add_subcommand("record", "Record a window of execution from a GDB stub into a snapshot");
  sub->add_option("--target", options->target, "the stub, HOST:PORT (snr device serve, qemu-riscv64 -g)")
      ->required();
  sub->add_option("--break", options->breakpoint, "symbol (needs --elf) or address to stop at before recording");
  sub->add_option("--count", options->count, "instructions to record per chip")
      ->required()
      ->check(snr::cli::in_range(1, 1ull << 40));
  sub->add_option("--chips", options->chips, "chips to record: all, or a list like 0,1")->capture_default_str();
  sub->add_option("--elf", options->elf_path, "the program, for symbols (--break and the pc -> op map)");
  sub->add_option("--model", options->model_dir, "the `snr compile` output served, for symbols and the op map");
  sub->add_option("--hw", options->hardware,
                  "hardware preset or YAML for stubs that do not report one (QEMU)")->capture_default_str();
  sub->add_option("-o,--output", options->output, "snapshot file to write")->required();
  sub->add_option("--timeout", options->timeout_s,
                  "seconds to wait for any one stub reply, including running to --break (progress every 5 s)")
      ->capture_default_str()
      ->check(snr::cli::in_range(1, 7 * 24 * 3600));
  sub->add_flag("--quiet", options->quiet, "no progress on stderr");
  snr::cli::set_examples(sub, {"snr record --target localhost:1234 --model model/ --count 100000 -o window.snr",
                               "snr record --target localhost:1234 --elf prog.elf --break main --count 5000 -o w.snr"});
  sub->callback([options, &ctx] { ctx.exit_code = record(*options); });
}

}  // namespace

SNR_REGISTER_COMMAND(record, setup_record);
