// How run kinds read one base input that a grid may name: a built-in name,
// a file (relative paths against the grid file's folder), or written
// inline in the grid as the map the file would hold under its top-level
// key.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "sweep/document.h"

namespace snr::sweep {

// `text` relative to `grid_dir` unless absolute.
std::filesystem::path resolve_path(std::string_view text, const std::filesystem::path& grid_dir);

// One input's document as text, and the name its errors use.
struct InputText {
  std::string text;
  std::string source;
  std::filesystem::path dir;  // the folder its own relative paths resolve against
};

// Returns the built-in's text for a name it knows, nullopt otherwise.
using BuiltinLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The input `key` names with `value`: a built-in (when `builtin` knows the
// name), else a file; or an inline map, written out under `section` (as is
// when `section` is empty), as YAML or, with `json`, as JSON.
InputText input_text(const YAML::Node& value, std::string_view key, const std::filesystem::path& grid_dir,
                     std::string_view section, bool json, const BuiltinLookup& builtin = {});

// A YAML input parsed for editing (common/yaml_input's checks).
YAML::Node load_input_yaml(const InputText& input);
// A JSON input parsed for editing (common/json_input's checks).
nlohmann::ordered_json load_input_json(const InputText& input);

// One input of a run kind that grid keys replace (`device: h100-sxm`) or
// edit (`device.hbm.bandwidth: 2TB/s`), YAML or JSON. Documents named by
// a point are read once and kept.
class EditableInput {
 public:
  EditableInput(std::string key, std::string section, bool json, BuiltinLookup builtin,
                std::filesystem::path grid_dir);
  [[nodiscard]] const std::string& key() const { return key_; }
  // The base's value for this input (a name, a path or a map).
  void set_base(const YAML::Node& value);
  [[nodiscard]] bool has_base() const { return base_ != nullptr; }
  // The document with a point's edits applied (whole value first, then
  // fields), as text for its reader. Without edits, the file as written.
  InputText edited(const InputEdits& edits);
  // The same as a parsed YAML document (not for JSON inputs), for readers
  // that take one: no text is written and read again per point.
  struct Document {
    YAML::Node yaml;
    std::string source;
  };
  Document edited_document(const InputEdits& edits);

 private:
  struct Loaded {
    InputText input;
    YAML::Node yaml;
    nlohmann::ordered_json json;
  };
  const Loaded& load(const YAML::Node& value);
  const Loaded& chosen(const InputEdits& edits);
  static std::string edited_source(const Loaded& loaded);

  std::string key_;
  std::string section_;
  bool json_;
  BuiltinLookup builtin_;
  std::filesystem::path grid_dir_;
  const Loaded* base_ = nullptr;
  std::map<std::string, Loaded> loaded_;  // by the value's canonical text
};

// A scalar value as text; throws naming `key` for lists and maps.
std::string scalar_value(const YAML::Node& value, std::string_view key);
// A number; throws naming `key` otherwise.
double number_value(const YAML::Node& value, std::string_view key);

}  // namespace snr::sweep
