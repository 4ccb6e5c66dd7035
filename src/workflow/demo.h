// `snr demo`, the main job, as library code: compile an LLM decode step
// (the built-in default is examples/llm-decode.yaml), serve it on an
// in-process GDB remote-protocol server on 127.0.0.1 (ephemeral port),
// record a window at a layer of interest through that server, replay it
// cycle by cycle, analyze, verify the top suggestions and write the report.
// Every stage reports a progress line with its wall time.
//
//   <out>/model/      the compiled model (`snr device serve` can serve it)
//   <out>/window.snr  the recorded snapshot
//   <out>/run.db      the replay's run data
//   <out>/report/     index.html, tables/, timeline.json (analyze_run.h)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workflow/analyze_run.h"
#include "workflow/stages.h"

namespace snr::workflow {

// The built-in spec, byte for byte examples/llm-decode.yaml.
std::string_view default_spec_yaml();

struct DemoOptions {
  std::filesystem::path output_dir = "snr-demo";
  std::string spec_yaml;                 // empty: default_spec_yaml()
  std::string spec_name = "llm-decode.yaml (built in)";
  std::string break_at;                  // op (symbol) to stop at; empty: the first op of layer 1
  uint64_t count = 0;                    // instructions per chip; 0: one layer's window
  std::optional<std::vector<uint32_t>> chips;  // nullopt: all
  size_t verify_top = 3;
  analyze::AnalyzeOptions analyze;
};

struct DemoResult {
  std::string break_at;
  uint64_t count_per_chip = 0;
  uint64_t recorded_instructions = 0;
  uint32_t chips = 0;
  std::filesystem::path model_dir, snapshot_path, run_db_path;
  AnalyzeRunResult analysis;
  std::vector<StageTime> stages;  // every stage, analysis stages included
  double wall_s = 0;              // the whole run (some stages run beside others)
};

// Throws snr::Error when a stage fails (naming it); the output directory
// keeps whatever earlier stages wrote.
DemoResult run_demo(const DemoOptions& options, const Progress& progress);

}  // namespace snr::workflow
