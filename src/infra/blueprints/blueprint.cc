#include "infra/blueprints/blueprint.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "common/error.h"
#include "formats/infragraph/infragraph.h"

namespace snr::infra {

namespace {

std::map<std::string, std::unique_ptr<Blueprint>, std::less<>>& registry() {
  static std::map<std::string, std::unique_ptr<Blueprint>, std::less<>> r;
  return r;
}

std::map<std::string, std::string> resolve_settings(const Blueprint& bp,
                                                    const std::vector<std::pair<std::string, std::string>>& settings) {
  std::map<std::string, std::string> values;
  const auto params = bp.parameters();
  for (const auto& p : params) values[p.name] = p.default_value;
  std::set<std::string> given;
  for (const auto& [k, v] : settings) {
    // clang before 16 cannot capture a structured binding.
    const bool known =
        std::any_of(params.begin(), params.end(), [&key = k](const auto& p) { return p.name == key; });
    if (!known) {
      std::string list;
      for (const auto& p : params) list += (list.empty() ? "" : ", ") + p.name;
      throw Error(fmt::format("blueprint '{}': unknown parameter '{}' (parameters: {})", bp.name(), k, list));
    }
    // Two values for one parameter are a contradiction, not "the last one wins".
    if (!given.insert(k).second) {
      throw Error(
          fmt::format("blueprint '{}': parameter '{}' is set twice ('{}' and '{}')", bp.name(), k, values[k], v));
    }
    values[k] = v;
  }
  return values;
}

}  // namespace

bool register_blueprint(std::unique_ptr<Blueprint> blueprint) {
  const std::string name(blueprint->name());
  return registry().emplace(name, std::move(blueprint)).second;
}

const Blueprint* find_blueprint(std::string_view name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::vector<const Blueprint*> all_blueprints() {
  std::vector<const Blueprint*> out;
  for (const auto& [n, bp] : registry()) out.push_back(bp.get());
  return out;
}

infragraph::Infrastructure build_blueprint(std::string_view name,
                                           const std::vector<std::pair<std::string, std::string>>& settings) {
  const Blueprint* bp = find_blueprint(name);
  if (bp == nullptr) {
    std::string list;
    for (const auto* b : all_blueprints()) list += (list.empty() ? "" : ", ") + std::string(b->name());
    throw Error(fmt::format("unknown blueprint '{}' (blueprints: {})", name, list));
  }
  infragraph::Infrastructure infra = bp->build(BlueprintArgs(std::string(name), resolve_settings(*bp, settings)));
  // What a blueprint builds must be a valid document.
  with_error_context(fmt::format("blueprint '{}' built an invalid document", name),
                     [&] { infragraph::validate_references(infra); });
  return infra;
}

infragraph::Device build_device_blueprint(std::string_view name,
                                          const std::vector<std::pair<std::string, std::string>>& settings) {
  const Blueprint* bp = find_blueprint(name);
  if (bp == nullptr || !bp->is_device()) throw Error(fmt::format("'{}' is not a device blueprint", name));
  auto infra = build_blueprint(name, settings);
  return infra.devices.front();
}

int64_t BlueprintArgs::get_int(const std::string& name, int64_t min, int64_t max) const {
  const std::string& text = get_string(name);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) fail(name, fmt::format("'{}' is not an integer", text));
  if (v < min || v > max) fail(name, fmt::format("{} is out of range [{}, {}]", v, min, max));
  return v;
}

double BlueprintArgs::get_number(const std::string& name, double min, double max) const {
  const std::string& text = get_string(name);
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) {
    fail(name, fmt::format("'{}' is not a number", text));
  }
  if (v < min || v > max) fail(name, fmt::format("{} is out of range [{}, {}]", text, min, max));
  return v;
}

const std::string& BlueprintArgs::get_string(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error(fmt::format("blueprint '{}': no parameter '{}'", blueprint_, name));
  return it->second;
}

void BlueprintArgs::fail(const std::string& name, const std::string& message) const {
  throw Error(fmt::format("blueprint '{}': parameter '{}': {}", blueprint_, name, message));
}

infragraph::Link make_link(std::string name, std::string description, double gigabits_per_second, double latency_ns) {
  infragraph::Link l;
  l.name = std::move(name);
  l.description = std::move(description);
  l.bandwidth = infragraph::Bandwidth{infragraph::BandwidthUnit::kGigabitsPerSecond, gigabits_per_second};
  if (latency_ns >= 0) l.latency = infragraph::Latency{infragraph::LatencyUnit::kNs, latency_ns};
  return l;
}

infragraph::Link make_link_gigabytes(std::string name, std::string description, double gigabytes_per_second,
                                     double latency_ns) {
  infragraph::Link l = make_link(std::move(name), std::move(description), 0, latency_ns);
  l.bandwidth = infragraph::Bandwidth{infragraph::BandwidthUnit::kGigabytesPerSecond, gigabytes_per_second};
  return l;
}

infragraph::DeviceEdge device_edge(std::string ep1, std::string ep2, infragraph::Scheme scheme, std::string link) {
  infragraph::DeviceEdge e;
  e.ep1.component = std::move(ep1);
  e.ep2.component = std::move(ep2);
  e.scheme = scheme;
  e.link = std::move(link);
  return e;
}

infragraph::InfrastructureEdge infra_edge(std::string instance1, std::string component1, std::string instance2,
                                          std::string component2, std::string link) {
  infragraph::InfrastructureEdge e;
  e.ep1 = {std::move(instance1), std::move(component1)};
  e.ep2 = {std::move(instance2), std::move(component2)};
  e.scheme = infragraph::Scheme::kOne2One;
  e.link = std::move(link);
  return e;
}

}  // namespace snr::infra
