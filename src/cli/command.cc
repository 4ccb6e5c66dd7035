#include "cli/command.h"

#include <map>
#include <string>

namespace snr::cli {
namespace {

struct Group {
  std::string description;
  std::map<std::string, CommandSetup> children;
};

std::map<std::string, CommandSetup>& top_level() {
  static std::map<std::string, CommandSetup> commands;
  return commands;
}

std::map<std::string, Group>& groups() {
  static std::map<std::string, Group> parents;
  return parents;
}

}  // namespace

bool register_command(std::string_view name, CommandSetup setup) {
  top_level().emplace(std::string(name), setup);
  return true;
}

bool register_subcommand(std::string_view parent, std::string_view parent_description,
                         std::string_view name, CommandSetup setup) {
  Group& group = groups()[std::string(parent)];
  if (group.description.empty()) group.description = std::string(parent_description);
  group.children.emplace(std::string(name), setup);
  return true;
}

void setup_all_commands(CLI::App& app, CommandContext& ctx) {
  // Merge both kinds so the help lists all verbs in one sorted order.
  std::map<std::string, bool> names;
  for (const auto& [name, setup] : top_level()) names[name] = false;
  for (const auto& [name, group] : groups()) names[name] = true;
  for (const auto& [name, is_group] : names) {
    if (!is_group) {
      top_level().at(name)(app, ctx);
      continue;
    }
    const Group& group = groups().at(name);
    CLI::App* parent = app.add_subcommand(name, group.description);
    parent->require_subcommand(1);
    for (const auto& [child, setup] : group.children) setup(*parent, ctx);
  }
}

}  // namespace snr::cli
