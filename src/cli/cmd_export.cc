// `snr export run.db --perfetto out.json`: a replay's run data as a
// timeline the Perfetto UI (or chrome://tracing) loads.
#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "export/perfetto_export.h"
#include "formats/rundb/reader.h"

namespace {

struct ExportArgs {
  std::string run_db;
  std::string perfetto;
  uint64_t bucket_cycles = 0;
};

int export_run(const ExportArgs& args) {
  if (args.perfetto.empty()) throw snr::Error("nothing to export: give --perfetto out.json");
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
  auto* cmd = app.add_subcommand("export", "Export a run database (timeline for Perfetto)");
  cmd->add_option("run_db", args->run_db, "run database from snr replay")->required();
  cmd->add_option("--perfetto", args->perfetto, "Chrome trace-event JSON to write");
  cmd->add_option("--utilization-bucket", args->bucket_cycles,
                  "cycles per utilization counter sample (default: run length / 200)");
  cmd->callback([args, &ctx] { ctx.exit_code = export_run(*args); });
}

}  // namespace

SNR_REGISTER_COMMAND(export, setup_export);
