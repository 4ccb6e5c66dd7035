// `snr export run.db --perfetto out.json`: a replay's run data as a
// timeline the Perfetto UI (or chrome://tracing) loads.
// `snr export run.db --chakra PREFIX`: the same run data as Chakra traces,
// one PREFIX.<chip>.et rank per chip (docs/formats/chakra-from-npu.md).
#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "common/output.h"
#include "export/chakra/chakra_export.h"
#include "export/chakra/run_source.h"
#include "export/perfetto_export.h"
#include "formats/rundb/reader.h"

namespace {

struct ExportArgs {
  std::string run_db;
  std::string perfetto;
  std::string chakra;
  uint64_t bucket_cycles = 0;
};

int export_chakra(const ExportArgs& args) {
  snr::exporter::ExportSource source = snr::exporter::load_run_db_for_export(args.run_db);
  const auto timeline = snr::exporter::build_op_timeline(std::move(source.data));
  const auto trace = snr::exporter::build_chakra_trace(timeline, source.provenance);
  const auto files = snr::exporter::write_chakra_trace(trace, args.chakra);
  fmt::print("{}", snr::exporter::describe_export(trace, files, args.chakra));
  return 0;
}

int export_run(const ExportArgs& args) {
  if (args.perfetto.empty() && args.chakra.empty()) {
    throw snr::Error("nothing to export: give --perfetto out.json or --chakra PREFIX");
  }
  if (!args.chakra.empty()) snr::output::check_output_prefix(args.chakra, "--chakra");
  if (!args.perfetto.empty()) {
    snr::output::check_output_file(args.perfetto, "--perfetto");
    snr::output::check_output_is_not_input(args.perfetto, args.run_db, "--perfetto");
  }
  if (!args.chakra.empty()) {
    export_chakra(args);
    if (args.perfetto.empty()) return 0;
  }
  snr::rundb::RunDbReader reader(args.run_db);
  snr::exporter::TimelineOptions options;
  options.utilization_bucket_cycles = args.bucket_cycles;
  const snr::perfetto::TraceWriter trace = snr::exporter::build_timeline(reader, options);
  trace.write_file(args.perfetto);
  fmt::print("{}: {} slices\n", args.perfetto, trace.slice_count());
  return 0;
}

void setup_export(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Export a run database (timeline for Perfetto, Chakra traces)");
  cmd->add_option("run_db", args->run_db, "run database from snr replay")->required();
  cmd->add_option("--perfetto", args->perfetto, "Chrome trace-event JSON to write");
  cmd->add_option("--chakra", args->chakra, "Chakra trace prefix: writes PREFIX.<chip>.et, one rank per chip");
  cmd->add_option("--utilization-bucket", args->bucket_cycles,
                  "cycles per utilization counter sample (default: run length / 200)")
      ->check(snr::cli::in_range(1, 1ull << 40));
  snr::cli::set_examples(cmd, {"snr export run.db --perfetto timeline.json"});
  cmd->callback([args, &ctx] { ctx.exit_code = export_run(*args); });
}

}  // namespace

SNR_REGISTER_COMMAND(export, setup_export);
