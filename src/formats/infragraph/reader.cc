// Strict InfraGraph reader on yaml-cpp. Every object is checked against its
// schema field list; the path of an error is spelled like the document
// (`devices[0](server).edges[2].ep1.component`) and prefixed with file:line.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>

#include "common/error.h"
#include "common/file_io.h"
#include "common/yaml_input.h"
#include "formats/infragraph/infragraph.h"

namespace snr::infragraph {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, const std::string& message) const {
    const int line = node.IsDefined() && !node.Mark().is_null() ? node.Mark().line + 1 : 0;
    if (line > 0) throw Error(fmt::format("{}:{}: {}: {}", source_, line, path, message));
    throw Error(fmt::format("{}: {}: {}", source_, path, message));
  }

  static int line_of(const YAML::Node& node) {
    return node.IsDefined() && !node.Mark().is_null() ? node.Mark().line + 1 : 0;
  }

  void expect_map(const YAML::Node& node, const std::string& path) const {
    if (!node.IsMap()) fail(node, path, "expected a mapping");
  }

  void check_keys(const YAML::Node& node, const std::string& path, std::initializer_list<std::string_view> allowed,
                  const std::function<void(const std::string&)>& on_unknown = {}) const {
    for (const auto& kv : node) {
      const auto key = kv.first.as<std::string>();
      bool ok = false;
      for (auto a : allowed) ok = ok || key == a;
      if (ok) continue;
      if (on_unknown) on_unknown(key);
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(kv.first, path, fmt::format("unknown key '{}' (allowed: {})", key, list));
    }
  }

  std::string get_string(const YAML::Node& map, const char* key, const std::string& path, bool required) const {
    const YAML::Node v = map[key];
    if (!v.IsDefined() || v.IsNull()) {
      if (required) fail(map, path, fmt::format("missing required field '{}'", key));
      return {};
    }
    if (!v.IsScalar()) fail(v, path + "." + key, "expected a string");
    return v.as<std::string>();
  }

  std::string get_name(const YAML::Node& map, const std::string& path) const {
    std::string name = get_string(map, "name", path, true);
    if (name.empty()) fail(map, path + ".name", "empty name");
    for (char c : name) {
      const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '\t' || c == '-' || c == '_' ||
                      c == '(' || c == ')' || c == '<' || c == '>' || c == '[' || c == ']';
      if (!ok) fail(map["name"], path + ".name", fmt::format("'{}': character '{}' is not allowed in names", name, c));
    }
    return name;
  }

  int64_t get_count(const YAML::Node& map, const std::string& path) const {
    const YAML::Node v = map["count"];
    if (!v.IsDefined() || v.IsNull()) fail(map, path, "missing required field 'count'");
    if (!v.IsScalar()) fail(v, path + ".count", "expected an integer");
    const auto text = v.as<std::string>();
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      fail(v, path + ".count", fmt::format("'{}' is not an integer", text));
    }
    if (value < 1 || value > std::numeric_limits<int32_t>::max()) {
      fail(v, path + ".count", fmt::format("{} is out of range [1, 2^31-1]", value));
    }
    return value;
  }

  double get_number(const YAML::Node& v, const std::string& path) const {
    if (!v.IsScalar()) fail(v, path, "expected a number");
    const auto text = v.as<std::string>();
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
      fail(v, path, fmt::format("'{}' is not a number", text));
    }
    if (value < 0) fail(v, path, fmt::format("{} is negative", text));
    return value;
  }

  template <typename Enum>
  Enum get_enum(const YAML::Node& v, const std::string& path,
                std::initializer_list<std::pair<std::string_view, Enum>> values) const {
    if (!v.IsScalar()) fail(v, path, "expected a string");
    const auto text = v.as<std::string>();
    std::string list;
    for (const auto& [name, e] : values) {
      if (text == name) return e;
      list += (list.empty() ? "" : ", ") + std::string(name);
    }
    fail(v, path, fmt::format("'{}' is not one of {}", text, list));
  }

  template <typename Fn>
  void each(const YAML::Node& map, const char* key, const std::string& path, bool required, Fn&& fn) const {
    const YAML::Node seq = map[key];
    if (!seq.IsDefined() || seq.IsNull()) {
      if (required) fail(map, path, fmt::format("missing required field '{}'", key));
      return;
    }
    if (!seq.IsSequence()) fail(seq, path + "." + key, "expected a list");
    for (size_t i = 0; i < seq.size(); ++i) fn(seq[i], fmt::format("{}.{}[{}]", path, key, i));
  }

  [[noreturn]] void older_schema(const YAML::Node& node, const std::string& path, const std::string& what) const {
    fail(node, path,
         fmt::format("this is the older InfraGraph schema ({}); the current schema (2.x) uses components with "
                     "'choice' and 'count', and 'edges' with ep1/ep2/scheme/link instead of string 'connections'",
                     what));
  }

  Component read_component(const YAML::Node& n, const std::string& at) const {
    expect_map(n, at);
    if (n["type"].IsDefined() && !n["choice"].IsDefined()) older_schema(n, at, "component with 'type'");
    Component c;
    c.line = line_of(n);
    c.name = get_name(n, at);
    const std::string path = fmt::format("{}({})", at, c.name);
    check_keys(n, path,
               {"name", "description", "count", "choice", "custom", "device", "cpu", "xpu", "nic", "memory", "port",
                "switch"});
    c.description = get_string(n, "description", path, false);
    c.count = get_count(n, path);
    const YAML::Node choice = n["choice"];
    if (!choice.IsDefined()) fail(n, path, "missing required field 'choice'");
    c.choice = get_enum<ComponentChoice>(choice, path + ".choice",
                                         {{"custom", ComponentChoice::kCustom},
                                          {"device", ComponentChoice::kDevice},
                                          {"cpu", ComponentChoice::kCpu},
                                          {"xpu", ComponentChoice::kXpu},
                                          {"nic", ComponentChoice::kNic},
                                          {"memory", ComponentChoice::kMemory},
                                          {"port", ComponentChoice::kPort},
                                          {"switch", ComponentChoice::kSwitch}});
    // The choice's own object may be present (empty placeholder, or custom
    // with its type); objects for other choices contradict the choice.
    for (auto other : {"custom", "device", "cpu", "xpu", "nic", "memory", "port", "switch"}) {
      const YAML::Node o = n[other];
      if (!o.IsDefined()) continue;
      if (other != choice_name(c.choice)) {
        fail(o, path + "." + other, fmt::format("object for '{}' contradicts choice '{}'", other, choice_name(c.choice)));
      }
      if (c.choice == ComponentChoice::kCustom) continue;
      if (!o.IsNull() && !(o.IsMap() && o.size() == 0)) fail(o, path + "." + other, "expected an empty object");
    }
    if (c.choice == ComponentChoice::kCustom) {
      const YAML::Node custom = n["custom"];
      if (!custom.IsDefined()) fail(n, path, "choice 'custom' needs a 'custom' object with its 'type'");
      expect_map(custom, path + ".custom");
      check_keys(custom, path + ".custom", {"type"});
      c.custom_type = get_string(custom, "type", path + ".custom", true);
      if (c.custom_type.empty()) fail(custom, path + ".custom.type", "empty type");
    }
    return c;
  }

  Link read_link(const YAML::Node& n, const std::string& at) const {
    expect_map(n, at);
    if (n["bandwidth"].IsDefined() && !n["physical"].IsDefined()) {
      older_schema(n, at, "link 'bandwidth' outside 'physical'");
    }
    Link l;
    l.line = line_of(n);
    l.name = get_name(n, at);
    const std::string path = fmt::format("{}({})", at, l.name);
    check_keys(n, path, {"name", "description", "physical"});
    l.description = get_string(n, "description", path, false);
    const YAML::Node phys = n["physical"];
    if (!phys.IsDefined() || phys.IsNull()) return l;
    expect_map(phys, path + ".physical");
    check_keys(phys, path + ".physical", {"bandwidth", "latency"});
    if (const YAML::Node bw = phys["bandwidth"]; bw.IsDefined() && !bw.IsNull()) {
      const std::string p = path + ".physical.bandwidth";
      expect_map(bw, p);
      check_keys(bw, p, {"choice", "gigabits_per_second", "gigabytes_per_second", "gigatransfers_per_second"});
      l.bandwidth = read_choice_value<Bandwidth, BandwidthUnit>(
          bw, p,
          {{"gigabits_per_second", BandwidthUnit::kGigabitsPerSecond},
           {"gigabytes_per_second", BandwidthUnit::kGigabytesPerSecond},
           {"gigatransfers_per_second", BandwidthUnit::kGigatransfersPerSecond}});
      // A link of no bandwidth carries nothing: every backend would divide by
      // it, and a query would have to guess what was meant.
      if (l.bandwidth && l.bandwidth->value == 0) {
        fail(bw, fmt::format("{}.{}", p, bandwidth_unit_name(l.bandwidth->unit)),
             "0 is not a bandwidth (leave 'bandwidth' out when it is unknown)");
      }
    }
    if (const YAML::Node lat = phys["latency"]; lat.IsDefined() && !lat.IsNull()) {
      const std::string p = path + ".physical.latency";
      expect_map(lat, p);
      check_keys(lat, p, {"choice", "ms", "us", "ns"});
      l.latency = read_choice_value<Latency, LatencyUnit>(
          lat, p, {{"ms", LatencyUnit::kMs}, {"us", LatencyUnit::kUs}, {"ns", LatencyUnit::kNs}});
    }
    return l;
  }

  // A choice object: `choice` names which one value field is set. A value
  // without `choice` is accepted when it is the only one; a value for another
  // unit than `choice` is a contradiction.
  template <typename Value, typename Unit>
  std::optional<Value> read_choice_value(const YAML::Node& n, const std::string& path,
                                         std::initializer_list<std::pair<std::string_view, Unit>> units) const {
    std::optional<Unit> chosen;
    if (n["choice"].IsDefined()) chosen = get_enum<Unit>(n["choice"], path + ".choice", units);
    std::optional<Value> out;
    for (const auto& [name, unit] : units) {
      const YAML::Node v = n[std::string(name)];
      if (!v.IsDefined()) continue;
      if (chosen && *chosen != unit) {
        fail(v, path + "." + std::string(name), "contradicts 'choice'");
      }
      if (out) fail(v, path, "more than one unit given without a 'choice'");
      out = Value{unit, get_number(v, path + "." + std::string(name))};
    }
    if (chosen && !out) fail(n, path, "'choice' names a unit whose value is missing");
    return out;
  }

  Scheme read_scheme(const YAML::Node& n, const std::string& path) const {
    const YAML::Node s = n["scheme"];
    if (!s.IsDefined() || s.IsNull()) fail(n, path, "missing required field 'scheme'");
    return get_enum<Scheme>(s, path + ".scheme",
                            {{"one2one", Scheme::kOne2One}, {"many2many", Scheme::kMany2Many}, {"ring", Scheme::kRing}});
  }

  // Device and infrastructure edges differ only in their endpoints' owner
  // field: an optional composed `device`, or a required `instance`.
  template <class Edge, class Endpoint>
  Edge read_edge(const YAML::Node& n, const std::string& path, const char* owner_key, std::string Endpoint::*owner,
                 bool owner_required) const {
    expect_map(n, path);
    check_keys(n, path, {"ep1", "ep2", "scheme", "link"});
    Edge e;
    e.line = line_of(n);
    for (auto [key, ep] : {std::pair{"ep1", &e.ep1}, std::pair{"ep2", &e.ep2}}) {
      const YAML::Node epn = n[key];
      const std::string p = path + "." + key;
      if (!epn.IsDefined()) fail(n, path, fmt::format("missing required field '{}'", key));
      expect_map(epn, p);
      check_keys(epn, p, {owner_key, "component"});
      (*ep).*owner = get_string(epn, owner_key, p, owner_required);
      ep->component = get_string(epn, "component", p, true);
    }
    e.scheme = read_scheme(n, path);
    e.link = get_string(n, "link", path, true);
    return e;
  }

  DeviceEdge read_device_edge(const YAML::Node& n, const std::string& path) const {
    return read_edge<DeviceEdge>(n, path, "device", &DeviceEndpoint::device, false);
  }

  InfrastructureEdge read_infra_edge(const YAML::Node& n, const std::string& path) const {
    return read_edge<InfrastructureEdge>(n, path, "instance", &InfrastructureEndpoint::instance, true);
  }

  Device read_device(const YAML::Node& n, const std::string& at) const {
    expect_map(n, at);
    if (n["connections"].IsDefined()) older_schema(n["connections"], at, "device 'connections'");
    Device d;
    d.line = line_of(n);
    d.name = get_name(n, at);
    const std::string path = fmt::format("{}({})", at, d.name);
    check_keys(n, path, {"name", "description", "components", "links", "edges"});
    d.description = get_string(n, "description", path, false);
    if (n["components"].IsMap()) older_schema(n["components"], path, "components as a map");
    each(n, "components", path, true, [&](const YAML::Node& c, const std::string& p) {
      d.components.push_back(read_component(c, p));
    });
    each(n, "links", path, false, [&](const YAML::Node& c, const std::string& p) { d.links.push_back(read_link(c, p)); });
    each(n, "edges", path, false,
         [&](const YAML::Node& c, const std::string& p) { d.edges.push_back(read_device_edge(c, p)); });
    return d;
  }

  Instance read_instance(const YAML::Node& n, const std::string& at) const {
    expect_map(n, at);
    Instance i;
    i.line = line_of(n);
    i.name = get_name(n, at);
    const std::string path = fmt::format("{}({})", at, i.name);
    check_keys(n, path, {"name", "description", "device", "count"});
    i.description = get_string(n, "description", path, false);
    i.device = get_string(n, "device", path, true);
    if (!n["count"].IsDefined()) {
      fail(n, path, "missing required field 'count' (the older schema had no instance count)");
    }
    i.count = get_count(n, path);
    return i;
  }

  Infrastructure read_document(const YAML::Node& root) const {
    Infrastructure infra;
    infra.source = source_;
    if (!root.IsMap()) fail(root, "document", "expected a mapping (an Infrastructure or a Device)");
    if (root["infrastructure"].IsDefined()) {
      older_schema(root["infrastructure"], "infrastructure", "a top-level 'infrastructure' wrapper");
    }
    // The docs' hierarchical device example lists its devices under 'device'.
    if (root["device"].IsDefined() && root["device"].IsSequence()) {
      older_schema(root["device"], "device", "a top-level 'device' list");
    }
    if (root["connections"].IsDefined() || root["device_instances"].IsDefined()) {
      older_schema(root, "document", "top-level 'connections'");
    }
    const bool is_device = root["components"].IsDefined() && !root["devices"].IsDefined() &&
                           !root["instances"].IsDefined();
    if (is_device) {
      infra.bare_device = true;
      infra.devices.push_back(read_device(root, "device"));
      infra.name = infra.devices.back().name;
      return infra;
    }
    check_keys(root, "infrastructure", {"name", "description", "devices", "links", "instances", "edges"});
    infra.name = get_string(root, "name", "infrastructure", false);
    infra.description = get_string(root, "description", "infrastructure", false);
    each(root, "devices", "infrastructure", false,
         [&](const YAML::Node& c, const std::string& p) { infra.devices.push_back(read_device(c, p)); });
    each(root, "links", "infrastructure", false,
         [&](const YAML::Node& c, const std::string& p) { infra.links.push_back(read_link(c, p)); });
    each(root, "instances", "infrastructure", false,
         [&](const YAML::Node& c, const std::string& p) { infra.instances.push_back(read_instance(c, p)); });
    each(root, "edges", "infrastructure", false,
         [&](const YAML::Node& c, const std::string& p) { infra.edges.push_back(read_infra_edge(c, p)); });
    return infra;
  }

 private:
  std::string source_;
};

}  // namespace

Infrastructure parse_infrastructure(std::string_view text, std::string_view source) {
  const YAML::Node root = load_yaml_document(text, source, "an InfraGraph infrastructure or device");
  Infrastructure infra;
  try {
    infra = Reader(source).read_document(root);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}: {}", source, e.mark.line + 1, e.msg));
  }
  validate_references(infra);
  return infra;
}

Infrastructure load_infrastructure(const std::filesystem::path& path) {
  return parse_infrastructure(read_file(path), path.string());
}

}  // namespace snr::infragraph
