#include "sweep/inputs.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "common/yaml_input.h"
#include "sweep/document.h"
#include "sweep/quantity.h"

namespace snr::sweep {

std::filesystem::path resolve_path(std::string_view text, const std::filesystem::path& grid_dir) {
  const std::filesystem::path path(text);
  return path.is_absolute() || grid_dir.empty() ? path : grid_dir / path;
}

InputText input_text(const YAML::Node& value, std::string_view key, const std::filesystem::path& grid_dir,
                     std::string_view section, bool json, const BuiltinLookup& builtin) {
  if (value.IsMap()) {
    YAML::Node document;
    if (section.empty()) {
      document = YAML::Clone(value);
    } else {
      document[std::string(section)] = YAML::Clone(value);
    }
    return {json ? yaml_to_json(document).dump(2) : emit_yaml(document), fmt::format("{} (inline)", key), grid_dir};
  }
  const std::string name = scalar_value(value, key);
  if (builtin) {
    if (auto text = builtin(name)) return {std::move(*text), name, grid_dir};
  }
  const std::filesystem::path path = resolve_path(name, grid_dir);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(fmt::format("{} '{}': no such file{}", key, path.string(),
                            builtin ? " (and not a built-in name)" : ""));
  }
  return {read_file(path), path.string(), path.parent_path()};
}

YAML::Node load_input_yaml(const InputText& input) {
  return load_yaml_document(input.text, input.source, "an input document");
}

nlohmann::ordered_json load_input_json(const InputText& input) {
  return parse_ordered_json_input(input.text, input.source);
}

EditableInput::EditableInput(std::string key, std::string section, bool json, BuiltinLookup builtin,
                             std::filesystem::path grid_dir)
    : key_(std::move(key)),
      section_(std::move(section)),
      json_(json),
      builtin_(std::move(builtin)),
      grid_dir_(std::move(grid_dir)) {}

const EditableInput::Loaded& EditableInput::load(const YAML::Node& value) {
  const std::string id = canonical_text(value);
  if (auto it = loaded_.find(id); it != loaded_.end()) return it->second;
  Loaded loaded;
  loaded.input = input_text(value, key_, grid_dir_, section_, json_, builtin_);
  if (json_) {
    loaded.json = load_input_json(loaded.input);
  } else {
    loaded.yaml = load_input_yaml(loaded.input);
    const YAML::Node& root = loaded.yaml;
    if (!section_.empty() && !(root.IsMap() && root[section_].IsMap())) {
      throw Error(fmt::format("{} '{}': expected a map under '{}:'", key_, loaded.input.source, section_));
    }
  }
  return loaded_.emplace(id, std::move(loaded)).first->second;
}

void EditableInput::set_base(const YAML::Node& value) {
  base_ = &with_error_context(fmt::format("base {}", key_), [&]() -> const Loaded& { return load(value); });
}

const EditableInput::Loaded& EditableInput::chosen(const InputEdits& edits) {
  if (edits.whole != nullptr) return load(*edits.whole);
  if (base_ == nullptr) {
    throw Error(fmt::format("key '{}.{}': the base has no {} to edit", key_,
                            edits.fields.empty() ? std::string() : edits.fields.front().first, key_));
  }
  return *base_;
}

std::string EditableInput::edited_source(const Loaded& loaded) {
  return fmt::format("{} with the grid's values", loaded.input.source);
}

InputText EditableInput::edited(const InputEdits& edits) {
  const Loaded& loaded = chosen(edits);
  if (edits.fields.empty()) return loaded.input;
  InputText out{{}, edited_source(loaded), loaded.input.dir};
  if (json_) {
    nlohmann::ordered_json copy = loaded.json;
    for (const auto& [path, value] : edits.fields) set_json_field(copy, path, *value);
    out.text = copy.dump(2);
  } else {
    out.text = emit_yaml(edited_copy(loaded.yaml, section_, edits));
  }
  return out;
}

EditableInput::Document EditableInput::edited_document(const InputEdits& edits) {
  if (json_) throw Error(fmt::format("{}: a JSON input has no YAML document", key_));
  const Loaded& loaded = chosen(edits);
  if (edits.fields.empty()) return {loaded.yaml, loaded.input.source};
  return {edited_copy(loaded.yaml, section_, edits), edited_source(loaded)};
}

std::string scalar_value(const YAML::Node& value, std::string_view key) {
  if (!value.IsScalar()) throw Error(fmt::format("{}: expected one value, not '{}'", key, canonical_text(value)));
  return value.Scalar();
}

double number_value(const YAML::Node& value, std::string_view key) {
  const std::string text = scalar_value(value, key);
  const auto q = parse_quantity(text);
  if (!q || !q->unit.empty()) throw Error(fmt::format("{}: '{}' is not a number", key, text));
  return q->number;
}

}  // namespace snr::sweep
