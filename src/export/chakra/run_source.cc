#include "export/chakra/run_source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "common/hash.h"
#include "compiler/artifacts.h"
#include "metrics/model_run.h"
#include "formats/rundb/load.h"
#include "sim/timing.h"
#include "tracker/tracker.h"

namespace snr::exporter {
namespace {

// "4", or "2 of 4 (1 3)" for a recording of a chip subset.
std::string recorded_chips_text(const rundb::RunData& data) {
  const auto chips = static_cast<uint32_t>(data.chips.size());
  const std::optional<std::vector<uint32_t>> recorded = rundb::recorded_chips(data, chips);
  if (!recorded || recorded->size() == chips) return std::to_string(chips);
  return fmt::format("{} of {} ({})", recorded->size(), chips, fmt::join(*recorded, " "));
}

}  // namespace

ExportSource load_run_db_for_export(const std::string& path) {
  ExportSource source;
  source.data = rundb::load_run_data(path, {.dependencies = false,
                                            .instruction_details = false,
                                            .unit_busy = false,
                                            .vmem_runs = false,
                                            .semaphores = false});
  const rundb::RunData& data = source.data;
  const auto meta = [&data](std::string_view key) {
    for (const auto& [name, value] : data.meta) {
      if (name == key) return value;
    }
    return std::string();
  };
  source.provenance = {
      {"source", "snr replay run.db"},
      {"run_db_source", meta("source")},
      {"hw_preset", meta("hw_preset")},
      {"hw_overrides", meta("hw_overrides")},
      {"window", fmt::format("recorded window: {} chips, {} instructions, {} cycles", recorded_chips_text(data),
                             data.instructions.size(), data.total_cycles)},
      {"clock_hz", meta("clock_hz")},
  };
  return source;
}

ExportSource run_compiled_model_for_export(const std::string& directory, const std::vector<std::string>& overrides,
                                           uint64_t max_cycles) {
  compiler::ModelImage image = compiler::read_compiled_model(directory);
  hw::apply_overrides(image.hw, overrides);
  sim::System system(metrics::system_config(image));
  metrics::install(image, system);
  sim::TimingSimulator timing(system);
  tracker::TrackerHooks hooks;
  hooks.op_of_pc = [&image](uint64_t pc) {
    const int op = image.op_at(pc);
    return op < 0 ? std::string() : image.ops[static_cast<size_t>(op)].name;
  };
  hooks.link_name = [&timing](uint32_t link) { return timing.dma().link_name(link); };
  hooks.vmem_page_bytes = system.config().vmem_page_bytes.count;
  tracker::PerformanceTracker tracker(system.bus(), system.chip_count(), hooks);
  const sim::RunOutcome outcome = timing.run(max_cycles);
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    if (system.chip(c).exit_code != 0) {
      throw Error(fmt::format("{}: chip {} exited with code {}", directory, c, system.chip(c).exit_code));
    }
  }
  ExportSource source;
  source.data = tracker.finish();
  const double clock_hz = system.config().clock.hertz;
  source.data.meta.emplace_back("clock_hz", fmt::format("{:.0f}", clock_hz));
  // The spec text in the manifest identifies the model (same spec, same bytes).
  const auto manifest_path = std::filesystem::path(directory) / "manifest.json";
  const auto manifest = parse_json_input(read_file(manifest_path), manifest_path.string());
  const std::string spec = manifest.contains("spec") ? manifest["spec"].dump() : std::string();
  std::string overrides_text;
  for (const auto& o : overrides) overrides_text += (overrides_text.empty() ? "" : " ") + o;
  source.provenance = {
      {"source", "snr run compiled model"},
      {"model", image.name},
      {"model_spec_fnv1a64", fmt::format("{:016x}", fnv1a64(spec))},
      {"hw_preset", system.config().preset_name},
      {"hw_overrides", overrides_text},
      {"window", fmt::format("whole step: {} chips, {} cycles", system.chip_count(), outcome.cycles)},
      {"clock_hz", fmt::format("{:.0f}", clock_hz)},
  };
  return source;
}

}  // namespace snr::exporter
