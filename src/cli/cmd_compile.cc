// `snr compile spec.yaml -o outdir/`: lowers an LLM decode/prefill step or a
// standalone collective to per-chip NPU programs (see docs/compiler.md).
#include <fmt/format.h>

#include "cli/command.h"
#include "common/output.h"
#include "compiler/artifacts.h"
#include "compiler/compiler.h"
#include "compiler/spec.h"

namespace {

struct CompileOptions {
  std::string spec_path;
  std::string output;
  std::vector<std::string> overrides;
};

void run_compile(const CompileOptions& options) {
  using namespace snr::compiler;
  snr::cli::check_input_file(options.spec_path);
  snr::output::StagedDirectory output(options.output);
  Spec spec = load_spec_file(options.spec_path);
  apply_spec_overrides(spec, options.overrides);
  const CompiledModel model = compile(spec);
  write_compiled_model(model, output.path());
  output.commit();
  const ModelImage& image = model.image;
  uint64_t text_instructions = 0;
  for (const auto& s : image.programs[0].sections) {
    if (s.execute) text_instructions = s.size_bytes / 4;
  }
  fmt::print("compiled {} for {} chips ({}): {} ops, {} instructions per chip\n", options.spec_path, image.chips(),
             image.hw.preset_name, image.ops.size(), text_instructions);
  if (image.layer_instructions > 0) {
    fmt::print("one layer's window: {} instructions per chip\n", image.layer_instructions);
  }
  const VmemStats& v = model.vmem;
  fmt::print("VMEM ({}): peak {} of {} bytes, then {} free in extents of at most {}; "
             "median over allocations: {:.1f}% free, largest free extent {:.1f}% of free\n",
             allocator_policy_name(spec.schedule.allocator), v.peak_used_bytes, v.capacity_bytes,
             v.free_at_peak_bytes, v.largest_free_at_peak_bytes, 100.0 * v.median_free_fraction(),
             100.0 * v.median_contiguous_fraction());
  fmt::print("wrote {}\n", options.output);
}

void setup_compile(CLI::App& app, snr::cli::CommandContext& /*ctx*/) {
  auto options = std::make_shared<CompileOptions>();
  auto* sub = app.add_subcommand("compile", "Compile an LLM step or a collective (YAML spec) to multi-chip NPU programs");
  sub->add_option("spec", options->spec_path, "workload spec (YAML, see docs/compiler.md)")->required();
  sub->add_option("-o,--output", options->output, "output directory (manifest.json, chip<N>.elf, ...)")->required();
  sub->add_option("--set", options->overrides, "override one spec key, e.g. --set schedule.prefetch_distance=8")
      ->take_all();
  snr::cli::set_examples(sub, {"snr compile examples/llm-decode.yaml -o model/",
                               "snr compile examples/llm-decode.yaml -o model/ --set schedule.prefetch_distance=8"});
  sub->callback([options] { run_compile(*options); });
}

}  // namespace

SNR_REGISTER_COMMAND(compile, setup_compile);
