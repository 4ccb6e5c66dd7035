#include "sweep/document.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

#include "common/error.h"

namespace snr::sweep {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (std::string_view part : parts) {
    if (part.empty()) throw Error(fmt::format("'{}': empty segment in the path", path));
  }
  return parts;
}

std::optional<size_t> index_of(std::string_view segment) {
  size_t index = 0;
  const auto [ptr, ec] = std::from_chars(segment.data(), segment.data() + segment.size(), index);
  if (ec != std::errc() || ptr != segment.data() + segment.size()) return std::nullopt;
  return index;
}

// A place in a YAML document: a key of a map or an element of a list.
struct Slot {
  YAML::Node container;
  std::string key;
  size_t index = 0;
  bool in_list = false;
  std::string shown;  // the path as found, for errors ("memory.hbm")

  [[nodiscard]] YAML::Node get() const {
    YAML::Node node;
    if (in_list) {
      node.reset(container[index]);
    } else {
      for (auto it = container.begin(); it != container.end(); ++it) {
        if (it->first.Scalar() == key) node.reset(it->second);
      }
    }
    return node;
  }
  void set(const YAML::Node& value) const {
    YAML::Node target = get();
    // A scalar onto a list of scalars sets every element.
    if (value.IsScalar() && target.IsDefined() && target.IsSequence() && target.size() > 0) {
      bool scalars = true;
      for (const YAML::Node& element : target) scalars = scalars && element.IsScalar();
      if (scalars) {
        for (size_t i = 0; i < target.size(); ++i) target[i] = YAML::Clone(value);
        return;
      }
    }
    YAML::Node container_ref = container;
    if (in_list) {
      container_ref[index] = YAML::Clone(value);
    } else {
      container_ref[key] = YAML::Clone(value);
    }
  }
};

std::string element_name(const YAML::Node& element) {
  if (!element.IsMap()) return {};
  for (auto it = element.begin(); it != element.end(); ++it) {
    if (it->first.Scalar() == "name" && it->second.IsScalar()) return it->second.Scalar();
  }
  return {};
}

// What `node` offers as next segments, for errors.
std::string fields_of(const YAML::Node& node) {
  std::string out;
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) out += (out.empty() ? "" : ", ") + it->first.Scalar();
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string name = element_name(node[i]);
      out += (out.empty() ? "" : ", ") + (name.empty() ? std::to_string(i) : name);
    }
  }
  return out.empty() ? "none" : out;
}

// `segment` directly in `node` (a key, an element name, an index).
std::optional<Slot> direct(const YAML::Node& node, std::string_view segment, const std::string& prefix) {
  const std::string shown = prefix.empty() ? std::string(segment) : prefix + "." + std::string(segment);
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it->first.Scalar() == segment) return Slot{node, std::string(segment), 0, false, shown};
    }
  } else if (node.IsSequence()) {
    if (const auto index = index_of(segment); index && *index < node.size()) return Slot{node, {}, *index, true, shown};
    for (size_t i = 0; i < node.size(); ++i) {
      if (element_name(node[i]) == segment) return Slot{node, {}, i, true, shown};
    }
  }
  return std::nullopt;
}

// `segment` one level below the map `node`, when exactly one place has it.
std::optional<Slot> one_level_down(const YAML::Node& node, std::string_view segment, const std::string& prefix,
                                   std::string_view path) {
  if (!node.IsMap()) return std::nullopt;
  std::vector<Slot> found;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string inner = prefix.empty() ? it->first.Scalar() : prefix + "." + it->first.Scalar();
    if (!it->second.IsMap() && !it->second.IsSequence()) continue;
    if (auto slot = direct(it->second, segment, inner)) found.push_back(std::move(*slot));
  }
  if (found.size() > 1) {
    std::string places;
    for (const Slot& slot : found) places += (places.empty() ? "" : ", ") + slot.shown;
    throw Error(fmt::format("'{}': '{}' is ambiguous (it is {}); write the full path", path, segment, places));
  }
  if (found.empty()) return std::nullopt;
  return found.front();
}

}  // namespace

void set_yaml_field(YAML::Node root, std::string_view path, const YAML::Node& value) {
  const std::vector<std::string_view> parts = split_path(path);
  YAML::Node current;
  current.reset(root);
  std::string prefix;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    std::optional<Slot> slot = direct(current, parts[i], prefix);
    if (!slot) slot = one_level_down(current, parts[i], prefix, path);
    if (!slot && last && current.IsMap()) slot = Slot{current, std::string(parts[i]), 0, false, std::string(path)};
    if (!slot) {
      const std::string where = prefix.empty() ? std::string("the input") : "'" + prefix + "'";
      if (!current.IsMap() && !current.IsSequence()) {
        throw Error(fmt::format("'{}': {} is a value, not a section with '{}'", path, where, parts[i]));
      }
      throw Error(fmt::format("'{}': {} has no field '{}' (it has: {})", path, where, parts[i], fields_of(current)));
    }
    if (last) {
      slot->set(value);
      return;
    }
    YAML::Node next = slot->get();
    current.reset(next);
    prefix = slot->shown;
  }
}

void set_json_field(nlohmann::ordered_json& root, std::string_view path, const YAML::Node& value) {
  const std::vector<std::string_view> parts = split_path(path);
  nlohmann::ordered_json* current = &root;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string segment(parts[i]);
    const bool last = i + 1 == parts.size();
    nlohmann::ordered_json* next = nullptr;
    if (current->is_object()) {
      if (current->contains(segment) || last) next = &(*current)[segment];
    } else if (current->is_array()) {
      if (const auto index = index_of(segment); index && *index < current->size()) next = &(*current)[*index];
      for (auto& element : *current) {
        if (next == nullptr && element.is_object() && element.value("name", nlohmann::ordered_json()) == segment) {
          next = &element;
        }
      }
    }
    if (next == nullptr) {
      std::string fields;
      if (current->is_object()) {
        for (const auto& [key, unused] : current->items()) fields += (fields.empty() ? "" : ", ") + key;
      }
      throw Error(fmt::format("'{}': no field '{}' there (it has: {})", path, segment,
                              fields.empty() ? "none" : fields));
    }
    current = next;
  }
  const nlohmann::ordered_json converted = yaml_to_json(value);
  if (current->is_array() && !current->empty() && !converted.is_array() && !converted.is_object()) {
    bool scalars = true;
    for (const auto& element : *current) scalars = scalars && !element.is_array() && !element.is_object();
    if (scalars) {
      for (auto& element : *current) element = converted;
      return;
    }
  }
  *current = converted;
}

nlohmann::ordered_json yaml_to_json(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return nullptr;
  if (node.IsSequence()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const YAML::Node& element : node) out.push_back(yaml_to_json(element));
    return out;
  }
  if (node.IsMap()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (auto it = node.begin(); it != node.end(); ++it) out[it->first.Scalar()] = yaml_to_json(it->second);
    return out;
  }
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted: a string whatever it reads as
  if (text == "true") return true;
  if (text == "false") return false;
  int64_t integer = 0;
  auto [iptr, iec] = std::from_chars(text.data(), text.data() + text.size(), integer);
  if (!text.empty() && iec == std::errc() && iptr == text.data() + text.size()) return integer;
  double real = 0;
  auto [rptr, rec] = std::from_chars(text.data(), text.data() + text.size(), real);
  if (!text.empty() && rec == std::errc() && rptr == text.data() + text.size() && std::isfinite(real)) return real;
  return text;
}

std::string emit_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out << node;
  return std::string(out.c_str()) + "\n";
}

std::string canonical_text(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null";
  if (node.IsScalar()) return node.Scalar();
  std::string out;
  if (node.IsSequence()) {
    for (const YAML::Node& element : node) out += (out.empty() ? "" : ", ") + canonical_text(element);
    return "[" + out + "]";
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    out += (out.empty() ? "" : ", ") + it->first.Scalar() + ": " + canonical_text(it->second);
  }
  return "{" + out + "}";
}

InputEdits edits_of(std::string_view input, const std::vector<std::string>& keys,
                    const std::vector<YAML::Node>& values) {
  InputEdits edits;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string_view key = keys[i];
    if (key == input) {
      edits.whole = &values[i];
    } else if (key.size() > input.size() && key.starts_with(input) && key[input.size()] == '.') {
      edits.fields.emplace_back(std::string(key.substr(input.size() + 1)), &values[i]);
    } else {
      continue;
    }
    edits.signature += fmt::format("{}={}\n", key, canonical_text(values[i]));
  }
  return edits;
}

YAML::Node edited_copy(const YAML::Node& document, std::string_view section, const InputEdits& edits) {
  YAML::Node copy = YAML::Clone(document);
  YAML::Node root;
  if (section.empty()) {
    root.reset(copy);
  } else {
    root.reset(copy[std::string(section)]);
  }
  for (const auto& [path, value] : edits.fields) set_yaml_field(root, path, *value);
  return copy;
}

}  // namespace snr::sweep
