// snr infra translate FILE --backend NAME -o DIR — the backend's own input
// files for one InfraGraph description.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cli/command.h"
#include "common/error.h"
#include "common/file_io.h"
#include "infra/load.h"
#include "infra/translate/translator.h"

namespace {

struct TranslateArgs {
  std::string input;
  std::string backend;
  std::string output_dir;
  std::string annotations;
};

void setup_infra_translate(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<TranslateArgs>();
  auto* sub = parent.add_subcommand("translate", "Translate an InfraGraph description into a network backend's files");
  sub->add_option("file", args->input, "InfraGraph YAML or JSON")->required();
  sub->add_option("--backend", args->backend, "translator name (analytical, noc, ns3)")->required();
  sub->add_option("-o,--output", args->output_dir, "output directory")->required();
  sub->add_option("--annotations", args->annotations, "annotation file (rank attributes pick and order the NPUs)");
  snr::cli::set_examples(sub, {"snr infra translate examples/infragraph/analytical/ring-8npus.yaml --backend analytical -o ring8"});
  sub->callback([args, &ctx] {
    const auto* translator = snr::infra::find_translator(args->backend);
    const auto loaded = snr::infra::load(args->input, args->annotations);
    const auto files = translator->translate(loaded.graph, loaded.annotations);
    std::error_code ec;
    std::filesystem::create_directories(args->output_dir, ec);
    if (ec) throw snr::Error(fmt::format("{}: cannot create directory: {}", args->output_dir, ec.message()));
    for (const auto& f : files) {
      const auto path = std::filesystem::path(args->output_dir) / f.name;
      snr::write_file_atomic(path, f.content);
      fmt::print("{}\n", path.string());
    }
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(infra, "InfraGraph infrastructure descriptions", translate, setup_infra_translate);
