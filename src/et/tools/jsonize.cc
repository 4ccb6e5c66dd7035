#include "et/tools/jsonize.h"

#include <array>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/json_util.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "formats/chakra/et_reader.h"

namespace snr::et {
namespace {

using Json = nlohmann::ordered_json;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

constexpr const char* kUnknownFieldsKey = "@unknownFields";
constexpr std::string_view kBase64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                 static_cast<uint8_t>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kBase64Alphabet[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64Alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(const std::string& text) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (size_t k = 0; k < kBase64Alphabet.size(); ++k) value[static_cast<uint8_t>(kBase64Alphabet[k])] = static_cast<int>(k);
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t v = 0;
    int padding = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++padding;
        v <<= 6;
        continue;
      }
      int d = value[static_cast<uint8_t>(c)];
      if (d < 0 || padding > 0) return std::nullopt;
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out += static_cast<char>((v >> 16) & 0xff);
    if (padding < 2) out += static_cast<char>((v >> 8) & 0xff);
    if (padding < 1) out += static_cast<char>(v & 0xff);
  }
  return out;
}

// Adds "@unknownFields" to `json` and to the objects of nested messages.
void attach_unknown_fields(const Message& message, Json& json) {
  const auto* reflection = message.GetReflection();
  const auto& unknown = reflection->GetUnknownFields(message);
  if (!unknown.empty()) {
    std::string bytes;
    unknown.SerializeToString(&bytes);
    json[kUnknownFieldsKey] = base64_encode(bytes);
  }
  const auto* descriptor = message.GetDescriptor();
  for (int f = 0; f < descriptor->field_count(); ++f) {
    const FieldDescriptor* field = descriptor->field(f);
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    auto member = json.find(field->json_name());
    if (member == json.end()) continue;
    if (field->is_repeated()) {
      int count = reflection->FieldSize(message, field);
      for (int i = 0; i < count && static_cast<size_t>(i) < member->size(); ++i) {
        attach_unknown_fields(reflection->GetRepeatedMessage(message, field, i), (*member)[static_cast<size_t>(i)]);
      }
    } else if (reflection->HasField(message, field)) {
      attach_unknown_fields(reflection->GetMessage(message, field), *member);
    }
  }
}

void strip_unknown_fields(Json& json) {
  if (json.is_object()) {
    json.erase(kUnknownFieldsKey);
    for (auto& [key, value] : json.items()) strip_unknown_fields(value);
  } else if (json.is_array()) {
    for (auto& element : json) strip_unknown_fields(element);
  }
}

void restore_unknown_fields(const Json& json, Message& message, const std::string& what) {
  if (!json.is_object()) return;
  const auto* reflection = message.GetReflection();
  if (auto it = json.find(kUnknownFieldsKey); it != json.end()) {
    std::optional<std::string> bytes = it->is_string() ? base64_decode(it->get<std::string>()) : std::nullopt;
    if (!bytes || !reflection->MutableUnknownFields(&message)->ParseFromString(*bytes)) {
      throw Error(fmt::format("{}: {} of {} is not base64 of protobuf wire data", what, kUnknownFieldsKey,
                              message.GetTypeName()));
    }
  }
  const auto* descriptor = message.GetDescriptor();
  for (int f = 0; f < descriptor->field_count(); ++f) {
    const FieldDescriptor* field = descriptor->field(f);
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    auto member = json.find(field->json_name());
    if (member == json.end()) member = json.find(field->name());
    if (member == json.end()) continue;
    if (field->is_repeated()) {
      int count = reflection->FieldSize(message, field);
      for (int i = 0; i < count && static_cast<size_t>(i) < member->size(); ++i) {
        restore_unknown_fields((*member)[static_cast<size_t>(i)],
                               *reflection->MutableRepeatedMessage(&message, field, i), what);
      }
    } else if (reflection->HasField(message, field)) {
      restore_unknown_fields(*member, *reflection->MutableMessage(&message, field), what);
    }
  }
}

void message_from_json_value(const Json& json, Message& message, const std::string& what) {
  if (!json.is_object()) throw Error(fmt::format("{}: expected a JSON object for {}", what, message.GetTypeName()));
  Json clean = json;
  strip_unknown_fields(clean);
  message.Clear();
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(clean.dump(), &message, options);
  if (!status.ok()) {
    throw Error(fmt::format("{}: not a valid {}: {}", what, message.GetTypeName(), std::string(status.message())));
  }
  restore_unknown_fields(json, message, what);
}

std::string indent_lines(const std::string& text, std::string_view prefix) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    out += c;
    if (c == '\n') out += prefix;
  }
  return out;
}

}  // namespace

std::string message_to_json(const Message& message, int indent) {
  std::string compact;
  google::protobuf::util::JsonPrintOptions options;
  auto status = google::protobuf::util::MessageToJsonString(message, &compact, options);
  if (!status.ok()) {
    throw Error(fmt::format("cannot print {} as JSON: {}", message.GetTypeName(), std::string(status.message())));
  }
  Json json = Json::parse(compact);
  attach_unknown_fields(message, json);
  return json.dump(indent);
}

void message_from_json(const std::string& json, Message& message, const std::string& what) {
  const Json parsed = parse_ordered_json_input(json, what);
  message_from_json_value(parsed, message, what);
}

JsonizeSummary jsonize_trace(const std::filesystem::path& et_path, const std::filesystem::path& json_path,
                             bool lenient) {
  chakra::EtReadOptions read_options;
  read_options.lenient = lenient;
  auto reader = chakra::EtReader::open(et_path, read_options);
  AtomicFileWriter out(json_path);
  out.write("{\n  \"globalMetadata\": ");
  out.write(indent_lines(message_to_json(reader.metadata()), "  "));
  out.write(",\n  \"nodes\": [");
  JsonizeSummary summary;
  ChakraProtoMsg::Node node;
  while (reader.next(node)) {
    out.write(summary.nodes == 0 ? "\n    " : ",\n    ");
    out.write(indent_lines(message_to_json(node), "    "));
    ++summary.nodes;
  }
  out.write(summary.nodes == 0 ? "]\n}\n" : "\n  ]\n}\n");
  out.commit();
  summary.skipped_records = reader.stats().skipped_records;
  return summary;
}

JsonizeSummary unjsonize_trace(const std::filesystem::path& json_path, const std::filesystem::path& et_path,
                               const chakra::EtWriteOptions& options) {
  std::ifstream in(json_path, std::ios::binary);
  if (!in) throw Error(json_path.string() + ": cannot open");
  const std::string name = json_path.string();
  std::optional<chakra::EtWriter> writer;
  JsonizeSummary summary;
  std::string top_level_key;
  bool saw_root = false;
  bool saw_nodes_list = false;
  ChakraProtoMsg::Node node;

  // Called by the parser for every token; returning false drops the value
  // just completed, so only one node is held at a time.
  auto on_event = [&](int depth, nlohmann::json::parse_event_t event, Json& parsed) -> bool {
    using Event = nlohmann::json::parse_event_t;
    if (depth == 0 && event == Event::object_start) saw_root = true;
    if (depth == 1 && event == Event::key) {
      top_level_key = parsed.get<std::string>();
      if (top_level_key != "globalMetadata" && top_level_key != "nodes") {
        throw Error(fmt::format("{}: unknown top-level key \"{}\" (expected \"globalMetadata\" and \"nodes\")", name,
                                top_level_key));
      }
      if (top_level_key == "nodes" && !writer) {
        throw Error(name + ": \"globalMetadata\" must come before \"nodes\"");
      }
      return true;
    }
    if (depth == 1 && top_level_key == "nodes") {
      // The value of "nodes" opens here: a list, or an error (a node of
      // another shape would silently give an empty trace).
      if (event == Event::array_start) saw_nodes_list = true;
      if (event == Event::object_start || event == Event::value) {
        throw Error(name + ": \"nodes\" must be a list of node objects");
      }
    }
    if (depth == 1 && event == Event::object_end && top_level_key == "globalMetadata") {
      ChakraProtoMsg::GlobalMetadata metadata;
      message_from_json_value(parsed, metadata, name + ": globalMetadata");
      writer.emplace(et_path, metadata, options);
      return false;
    }
    if (depth == 2 && event == Event::object_end && top_level_key == "nodes") {
      message_from_json_value(parsed, node, fmt::format("{}: nodes[{}]", name, summary.nodes));
      writer->write(node);
      ++summary.nodes;
      return false;
    }
    return true;
  };
  try {
    // Every node was consumed (and dropped) by on_event; what is left is empty.
    [[maybe_unused]] Json remainder = Json::parse(in, on_event);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}", name, e.what()));
  }
  if (!saw_root || !writer) throw Error(name + ": no \"globalMetadata\" object found");
  if (!saw_nodes_list) throw Error(name + ": no \"nodes\" list found");
  writer->commit();
  return summary;
}

}  // namespace snr::et
