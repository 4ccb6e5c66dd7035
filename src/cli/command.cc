#include "cli/command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/cli_numbers.h"
#include "common/error.h"
#include "common/spelling.h"
#include "common/units.h"

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

namespace {

// CLI11 converts "-1" for an unsigned option with strtoull, which wraps it
// to 18446744073709551615; this check runs on the text first.
void reject_signs(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_name().rfind("UINT", 0) != 0) continue;
    option->check(CLI::Validator(
        [](std::string& text) -> std::string {
          const auto parsed = snr::parse_unsigned(text);
          return parsed.ok() ? std::string() : parsed.error().what();
        },
        "", "unsigned"));
  }
  for (CLI::App* sub : app.get_subcommands({})) reject_signs(*sub);
}

// No verb reads "-" as stdout, so -o - would create a file or directory
// named "-" where the user asked for stdout. Checked on every --output, after
// the verb's own checks (not_dash_for_stdout words it for the verbs whose
// absent -o means stdout).
void refuse_dash_outputs(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_lnames() != std::vector<std::string>{"output"}) continue;
    option->check(CLI::Validator(
        [](std::string& text) -> std::string {
          return text == "-" ? "'-' is not stdout here: -o names the file or directory to write" : std::string();
        },
        "", "not_dash"));
  }
  for (CLI::App* sub : app.get_subcommands({})) refuse_dash_outputs(*sub);
}

}  // namespace

CLI::Validator in_range(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const auto parsed = snr::parse_unsigned(text, min, max);
        return parsed.ok() ? std::string() : parsed.error().what();
      },
      max == UINT64_MAX ? "" : fmt::format("{}..{}", min, max), "in_range");
}

CLI::Validator bytes_in_range(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        // Decimal or 0x hex as in_range reads them; anything else is a size with a unit.
        const auto all_of = [&](size_t from, int (*is)(int)) {
          return text.size() > from &&
                 std::all_of(text.begin() + static_cast<std::ptrdiff_t>(from), text.end(),
                             [is](char c) { return is(static_cast<unsigned char>(c)) != 0; });
        };
        const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
        const bool plain = hex ? all_of(2, std::isxdigit) : all_of(0, std::isdigit);
        if (plain) {
          const auto parsed = snr::parse_unsigned(text, min, max);
          return parsed.ok() ? std::string() : parsed.error().what();
        }
        const auto bytes = snr::parse_bytes(text);
        if (!bytes.ok()) return bytes.error().what();
        if (bytes.value().count < min || bytes.value().count > max) {
          return fmt::format("'{}' is {} bytes, out of range: expected {} to {} bytes", text, bytes.value().count,
                             min, max);
        }
        text = std::to_string(bytes.value().count);
        return std::string();
      },
      fmt::format("BYTES {}..{}", min, max), "bytes_in_range");
}

CLI::Validator not_dash_for_stdout() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text == "-" ? "'-' is not a file name here: leave -o out to write to stdout" : std::string();
      },
      "", "not_dash_for_stdout");
}

CLI::Validator in_real_range(double min, double max, bool above_min) {
  const std::string range = fmt::format("{} {:g} .. {:g}", above_min ? "above" : "in", min, max);
  return CLI::Validator(
      [min, max, above_min, range](std::string& text) -> std::string {
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool ok = ec == std::errc() && end == text.data() + text.size() && std::isfinite(value) &&
                        (above_min ? value > min : value >= min) && value <= max;
        return ok ? std::string() : fmt::format("{} is not a number {}", text, range);
      },
      fmt::format("FLOAT {}", range), "in_real_range");
}

void check_input_file(const std::string& path, InputKind kind) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw snr::Error(fmt::format("'{}': no such file", path));
  if (std::filesystem::is_directory(status)) {
    throw snr::Error(fmt::format("'{}' is a directory; expected a file", path));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw snr::Error(fmt::format("'{}' is not a regular file", path));
  }
  if (std::filesystem::file_size(path, ec) == 0 && !ec) throw snr::Error(fmt::format("'{}' is empty", path));
  if (kind == InputKind::kAny) return;
  // The head is enough to tell JSON from protobuf, and a Kineto trace from a
  // host execution trace (both put their marker keys first).
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  const size_t first = head.find_first_not_of(" \t\r\n");
  // JSON text starts with '{' or '[' and has no control bytes; a Chakra
  // .et can start with those bytes too (a first message of 91 or 123
  // bytes), followed by protobuf tags and lengths, control bytes mostly.
  const auto text_byte = [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\r' || c == '\n';
  };
  const std::string_view lead = std::string_view(head).substr(0, 64);
  const bool json = first != std::string::npos && (head[first] == '{' || head[first] == '[') &&
                    std::all_of(lead.begin(), lead.end(), text_byte);
  if (kind == InputKind::kChakraTrace && json) {
    throw snr::Error(fmt::format("'{}' is not a Chakra .et trace: this looks like JSON; did you mean "
                                 "`snr et unjsonize {} -o trace.et`?",
                                 path, path));
  }
  if (kind == InputKind::kPytorchTrace && json && head.find("\"traceEvents\"") != std::string::npos &&
      head.find("\"nodes\"") == std::string::npos) {
    throw snr::Error(fmt::format("'{}' looks like a Kineto (profiler) trace, not a PyTorch execution trace; join it "
                                 "with the host execution trace of the same run first: `snr et link --host ET.json "
                                 "--device {} -o linked.json`, then convert linked.json",
                                 path, path));
  }
}

void set_examples(CLI::App* sub, std::initializer_list<std::string_view> examples) {
  std::string footer = "\nExamples:";
  for (std::string_view example : examples) footer += fmt::format("\n  {}", example);
  sub->footer(footer);
}

std::string nearest_verb(const CLI::App& app, std::string_view typed) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string& name = sub->get_name();
    size_t distance = edit_distance(typed, name);
    // A prefix ("snap" for "snapshot") is as good as one typo.
    if (name.rfind(typed, 0) == 0 && !typed.empty()) distance = std::min<size_t>(distance, 1);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  // At most a third of the word wrong, so "x" does not suggest "et".
  return best_distance <= std::max<size_t>(1, typed.size() / 3) ? best : std::string();
}

void setup_commands(CLI::App& app, CommandContext& ctx, std::string_view verb) {
  // Merge both kinds so the help lists all verbs in one sorted order.
  std::map<std::string, bool> names;
  for (const auto& [name, setup] : top_level()) names[name] = false;
  for (const auto& [name, group] : groups()) names[name] = true;
  if (const auto named = names.find(std::string(verb)); named != names.end()) {
    const std::pair<const std::string, bool> only = *named;
    names = {only};
  }
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
  reject_signs(app);
  refuse_dash_outputs(app);
}

void keep_pointer_until_exit(const void* object) {
  static std::mutex mutex;
  // Never freed, like what it holds: a static vector's destructor would run
  // before a leak checker looks, and leave the objects unreachable.
  static auto* const kept = new std::vector<const void*>();
  const std::lock_guard lock(mutex);
  kept->push_back(object);
}

}  // namespace snr::cli
