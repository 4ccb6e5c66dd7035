// Writes InfraGraph documents in schema field order. Both formats are built
// from one ordered JSON tree so YAML and JSON always say the same thing.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "formats/infragraph/infragraph.h"

namespace snr::infragraph {
namespace {

using Json = nlohmann::ordered_json;

Json number(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9e15) return static_cast<int64_t>(v);
  return v;
}

Json link_json(const Link& l) {
  Json j;
  j["name"] = l.name;
  if (!l.description.empty()) j["description"] = l.description;
  if (l.bandwidth || l.latency) {
    Json phys = Json::object();
    if (l.bandwidth) {
      const std::string unit(bandwidth_unit_name(l.bandwidth->unit));
      phys["bandwidth"] = Json{{"choice", unit}, {unit, number(l.bandwidth->value)}};
    }
    if (l.latency) {
      const std::string unit(latency_unit_name(l.latency->unit));
      phys["latency"] = Json{{"choice", unit}, {unit, number(l.latency->value)}};
    }
    j["physical"] = phys;
  }
  return j;
}

Json device_json(const Device& d) {
  Json j;
  j["name"] = d.name;
  if (!d.description.empty()) j["description"] = d.description;
  j["components"] = Json::array();
  for (const auto& c : d.components) {
    Json cj;
    cj["name"] = c.name;
    if (!c.description.empty()) cj["description"] = c.description;
    cj["count"] = c.count;
    cj["choice"] = std::string(choice_name(c.choice));
    if (c.choice == ComponentChoice::kCustom) cj["custom"] = Json{{"type", c.custom_type}};
    j["components"].push_back(cj);
  }
  j["links"] = Json::array();
  for (const auto& l : d.links) j["links"].push_back(link_json(l));
  j["edges"] = Json::array();
  for (const auto& e : d.edges) {
    Json ej;
    for (auto [key, ep] : {std::pair{"ep1", &e.ep1}, std::pair{"ep2", &e.ep2}}) {
      Json epj;
      if (!ep->device.empty()) epj["device"] = ep->device;
      epj["component"] = ep->component;
      ej[key] = epj;
    }
    ej["scheme"] = std::string(scheme_name(e.scheme));
    ej["link"] = e.link;
    j["edges"].push_back(ej);
  }
  return j;
}

Json document_json(const Infrastructure& infra) {
  if (infra.bare_device && infra.devices.size() == 1) return device_json(infra.devices.front());
  Json j;
  if (!infra.name.empty()) j["name"] = infra.name;
  if (!infra.description.empty()) j["description"] = infra.description;
  j["devices"] = Json::array();
  for (const auto& d : infra.devices) j["devices"].push_back(device_json(d));
  j["links"] = Json::array();
  for (const auto& l : infra.links) j["links"].push_back(link_json(l));
  j["instances"] = Json::array();
  for (const auto& i : infra.instances) {
    Json ij;
    ij["name"] = i.name;
    if (!i.description.empty()) ij["description"] = i.description;
    ij["device"] = i.device;
    ij["count"] = i.count;
    j["instances"].push_back(ij);
  }
  j["edges"] = Json::array();
  for (const auto& e : infra.edges) {
    Json ej;
    ej["ep1"] = Json{{"instance", e.ep1.instance}, {"component", e.ep1.component}};
    ej["ep2"] = Json{{"instance", e.ep2.instance}, {"component", e.ep2.component}};
    ej["scheme"] = std::string(scheme_name(e.scheme));
    ej["link"] = e.link;
    j["edges"].push_back(ej);
  }
  return j;
}

// Whether `s` written as a literal block (yaml-cpp writes `|`, which keeps
// exactly one final newline, and indents by the emitter's step) reads back
// as `s`: several lines ending in one newline, the first line not starting
// with a space, a tab or a newline (that needs an indentation indicator),
// and no control character but the newlines. Anything else is written
// double-quoted, with escapes: less readable, always the same text.
bool reads_back_as_literal(const std::string& s) {
  if (s.size() < 2 || s.back() != '\n' || s[s.size() - 2] == '\n') return false;
  if (s.find('\n') == s.size() - 1) return false;  // one line: quoted
  if (s.front() == ' ' || s.front() == '\t' || s.front() == '\n') return false;
  return std::none_of(s.begin(), s.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\n') || byte == 0x7f;
  });
}

void emit(YAML::Emitter& out, const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [k, v] : j.items()) {
        out << YAML::Key << k << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      if (j.empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        break;
      }
      out << YAML::BeginSeq;
      for (const auto& v : j) emit(out, v);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: {
      const auto& s = j.get_ref<const std::string&>();
      if (reads_back_as_literal(s)) {
        out << YAML::Literal << s;
      } else {
        out << YAML::DoubleQuoted << s;
      }
      break;
    }
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: out << j.dump(); break;
    case Json::value_t::number_float: out << fmt::format("{}", j.get<double>()); break;
    default: out << j.dump(); break;
  }
}

}  // namespace

OutputFormat format_for_path(const std::filesystem::path& path) {
  return path.extension() == ".json" ? OutputFormat::kJson : OutputFormat::kYaml;
}

std::string to_json(const Infrastructure& infra) { return document_json(infra).dump(2) + "\n"; }

std::string to_yaml(const Infrastructure& infra) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, document_json(infra));
  return std::string(out.c_str()) + "\n";
}

std::string write_document(const Infrastructure& infra, OutputFormat format) {
  return format == OutputFormat::kJson ? to_json(infra) : to_yaml(infra);
}

}  // namespace snr::infragraph
