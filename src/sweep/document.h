// Grid keys edit the parsed documents of a run's base inputs, which then go
// through the inputs' own strict readers, so units, ranges and unknown
// fields are checked by the one reader of each format.
//
// A key's path after its input's name ("hbm.bandwidth" of
// "device.hbm.bandwidth") is a list of segments separated by dots. A
// segment is a map key, the `name` of a list element, or a list index. A
// segment the current map lacks is looked for one level down (a key of one
// of its sub-maps, or the name of an element of one of its lists) when
// that finds exactly one place: "hbm.bandwidth" reaches
// memory[name: hbm].bandwidth of a device, "hidden" model.hidden of a
// workload. The last segment may also name a key the map does not have
// yet; the reader then says whether it knows it. A scalar set on a list of
// scalars sets every element (network.bandwidth: 100 on a two-dimension
// network).
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snr::sweep {

// Sets the field at `path` of `root` to a copy of `value`. Throws
// snr::Error naming the path and the fields the document has there.
void set_yaml_field(YAML::Node root, std::string_view path, const YAML::Node& value);
void set_json_field(nlohmann::ordered_json& root, std::string_view path, const YAML::Node& value);

// A YAML value as JSON: quoted scalars are strings; plain ones become
// integers, reals, booleans or null when they read as one, else strings.
nlohmann::ordered_json yaml_to_json(const YAML::Node& node);
// Block-style YAML text of `node` (what the readers parse).
std::string emit_yaml(const YAML::Node& node);
// One line that identifies a value: scalars as written, lists "[a, b]",
// maps "{k: v}" in file order. Point keys hash it.
std::string canonical_text(const YAML::Node& node);

// The keys of one point that address one input: the input as a whole
// (`device: h100-sxm`) and its fields (`device.hbm.bandwidth: 2TB/s`).
struct InputEdits {
  const YAML::Node* whole = nullptr;
  std::vector<std::pair<std::string, const YAML::Node*>> fields;  // path after the input's name
  std::string signature;  // the canonical values: equal signatures, equal input
};
// The edits of `input` among a point's keys and values (same order).
InputEdits edits_of(std::string_view input, const std::vector<std::string>& keys,
                    const std::vector<YAML::Node>& values);
// Applies the field edits to a copy of `document`'s section `section` (the
// map under the document's top-level key, or the root when `section` is
// empty) and returns the edited copy.
YAML::Node edited_copy(const YAML::Node& document, std::string_view section, const InputEdits& edits);

}  // namespace snr::sweep
