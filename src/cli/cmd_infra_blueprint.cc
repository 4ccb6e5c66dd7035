// snr infra blueprint NAME --set k=v ... -o FILE — a parameterized
// blueprint written as InfraGraph (YAML, or JSON for a .json file).
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "common/file_io.h"
#include "formats/infragraph/infragraph.h"
#include "infra/blueprints/blueprint.h"
#include "infra/graph.h"

namespace {

struct BlueprintArgs {
  std::string name;
  std::vector<std::string> sets;
  std::string output;
  bool list = false;
};

void setup_infra_blueprint(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<BlueprintArgs>();
  auto* sub = parent.add_subcommand("blueprint", "Write a parameterized device or fabric blueprint as InfraGraph");
  sub->add_option("name", args->name, "blueprint name (--list shows them)");
  sub->add_option("--set", args->sets, "parameter as key=value (repeatable)");
  sub->add_option("-o,--output", args->output, "output file (.yaml/.yml or .json); stdout when absent")
      ->check(snr::cli::not_dash_for_stdout());
  sub->add_flag("--list", args->list, "list the blueprints and their parameters");
  snr::cli::set_examples(sub, {"snr infra blueprint clos-fat-tree --set k=8 --set levels=3 -o clos.yaml",
                               "snr infra blueprint --list"});
  sub->callback([args, &ctx] {
    if (args->list) {
      for (const auto* bp : snr::infra::all_blueprints()) {
        fmt::print("{} — {}\n", bp->name(), bp->description());
        for (const auto& p : bp->parameters()) fmt::print("  {}={}  {}\n", p.name, p.default_value, p.description);
      }
      ctx.exit_code = 0;
      return;
    }
    if (args->name.empty()) throw snr::Error("infra blueprint: name a blueprint (or --list)");
    std::vector<std::pair<std::string, std::string>> settings;
    for (const auto& s : args->sets) {
      const size_t eq = s.find('=');
      if (eq == std::string::npos || eq == 0) throw snr::Error(fmt::format("--set '{}': expected key=value", s));
      settings.emplace_back(s.substr(0, eq), s.substr(eq + 1));
    }
    const auto infra = snr::infra::build_blueprint(args->name, settings);
    // A blueprint whose graph no other verb could expand (more nodes or
    // edges than one graph holds) is refused here rather than written.
    if (!snr::infra::find_blueprint(args->name)->is_device()) {
      snr::with_error_context(fmt::format("blueprint '{}'", args->name), [&] { (void)snr::infra::expand(infra); });
    }
    if (args->output.empty()) {
      fmt::print("{}", snr::infragraph::to_yaml(infra));
    } else {
      snr::write_file_atomic(args->output,
                             snr::infragraph::write_document(infra, snr::infragraph::format_for_path(args->output)));
      fmt::print("{}: blueprint {}\n", args->output, args->name);
    }
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(infra, "InfraGraph infrastructure descriptions", blueprint, setup_infra_blueprint);
