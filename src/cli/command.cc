#include "cli/command.h"

#include <map>
#include <string>

namespace snr::cli {
namespace {
std::map<std::string, CommandSetup>& registry() {
  static std::map<std::string, CommandSetup> commands;
  return commands;
}
}  // namespace

bool register_command(std::string_view name, CommandSetup setup) {
  registry().emplace(std::string(name), setup);
  return true;
}

void setup_all_commands(CLI::App& app, CommandContext& ctx) {
  for (const auto& [name, setup] : registry()) setup(app, ctx);
}

}  // namespace snr::cli
