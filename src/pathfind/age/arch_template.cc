#include "pathfind/age/arch_template.h"

#include <fmt/format.h>

#include <set>

#include "common/error.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/inputs/quantity.h"

namespace snr::pathfind::age {

std::string_view topology_name(Topology topology) {
  switch (topology) {
    case Topology::kMesh: return "mesh";
    case Topology::kTorus: return "torus";
    case Topology::kCrossbar: return "crossbar";
    case Topology::kSwitch: return "switch";
  }
  return "?";
}

Topology parse_topology(std::string_view text) {
  if (text == "mesh") return Topology::kMesh;
  if (text == "torus") return Topology::kTorus;
  if (text == "crossbar") return Topology::kCrossbar;
  if (text == "switch") return Topology::kSwitch;
  throw Error(fmt::format("'{}' is not a topology (mesh, torus, crossbar, switch)", text));
}

void ArchitectureTemplate::validate() const {
  auto fail = [&](std::string_view field, const std::string& why) {
    throw Error(fmt::format("architecture template '{}': {}: {}", name, field, why));
  };
  if (mcu.compute.empty()) fail("mcu.compute", "names no compute component");
  if (mcu.rows == 0 || mcu.cols == 0 || mcu.per_bundle == 0) fail("mcu", "rows, cols and per_bundle must be positive");
  if (!(mcu.max_utilization > 0 && mcu.max_utilization <= 1)) fail("mcu.max_utilization", "must be in (0, 1]");
  if (!(vector_rate_fraction > 0 && vector_rate_fraction <= 16)) fail("vector_rate_fraction", "must be in (0, 16]");
  if (levels.empty()) fail("memory", "needs at least the registers (scope mcu) before main memory");
  if (levels.front().scope != Scope::kMcu) fail("memory[0].scope", "the innermost level must have scope mcu");
  std::set<std::string> names{"core", "intra_package", "inter_package"};
  for (size_t i = 0; i < levels.size(); ++i) {
    const TemplateMemoryLevel& l = levels[i];
    std::string field = fmt::format("memory[{}]", i);
    if (l.name.empty() || l.technology.empty()) fail(field, "needs a name and a technology");
    if (!names.insert(l.name).second) fail(field, fmt::format("the name '{}' is used twice (or is reserved)", l.name));
    if (i > 0 && static_cast<int>(l.scope) < static_cast<int>(levels[i - 1].scope)) {
      fail(field, "scopes must widen outwards (mcu, bundle, global)");
    }
    if (!(l.efficiency > 0 && l.efficiency <= 1)) fail(field + ".efficiency", "must be in (0, 1]");
  }
  if (main_memory.name.empty() || main_memory.technology.empty()) fail("main_memory", "needs a name and a technology");
  if (!names.insert(main_memory.name).second) {
    fail("main_memory.name", fmt::format("'{}' is already a level name (or reserved)", main_memory.name));
  }
  for (const auto* tier : {&intra_package, &inter_package}) {
    if (!tier->has_value()) continue;
    std::string_view field = tier == &intra_package ? "network.intra_package" : "network.inter_package";
    const TemplateNetworkTier& t = **tier;
    if (t.technology.empty()) fail(field, "names no network component");
    uint64_t product = 1;
    for (uint64_t s : t.shape) product *= s;
    if (!t.shape.empty() && product != t.devices) {
      fail(field, fmt::format("shape multiplies to {} but devices is {}", product, t.devices));
    }
    if (!(t.efficiency > 0 && t.efficiency <= 1)) fail(std::string(field) + ".efficiency", "must be in (0, 1]");
  }
}

std::vector<std::string> ArchitectureTemplate::component_names() const {
  std::vector<std::string> out{"core"};
  for (const TemplateMemoryLevel& l : levels) out.push_back(l.name);
  out.push_back(main_memory.name);
  return out;
}

namespace {

TemplateNetworkTier read_tier(const StrictMap& m) {
  TemplateNetworkTier t;
  t.technology = m.string("technology");
  t.devices = m.count("devices", 1, 1ull << 24);
  std::string topology = m.string_or("topology", "switch");
  t.topology = with_error_context(m.where("topology"), [&] { return parse_topology(topology); });
  if (m.has("shape")) {
    std::string text = m.string("shape");  // "8x6"
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('x', start);
      std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
      uint64_t value = 0;
      try {
        size_t used = 0;
        value = std::stoull(part, &used);
        if (used != part.size() || value == 0 || value > (1u << 20)) throw Error("");
      } catch (const std::exception&) {
        throw_with_where(m.where("shape"), fmt::format("'{}' is not a shape like 8x6 (each size 1..2^20)", text));
      }
      t.shape.push_back(value);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  t.efficiency = m.number_or("efficiency", 1.0, 1e-3, 1.0);
  m.finish();
  return t;
}

}  // namespace

ArchitectureTemplate parse_template_yaml(std::string_view text, std::string_view source) {
  YAML::Node root = load_yaml_text(text, source);
  StrictMap top(root, std::string(source), "");
  StrictMap t = top.map("template");
  ArchitectureTemplate a;
  a.name = t.string("name");
  StrictMap mcu = t.map("mcu");
  a.mcu.compute = mcu.string("compute");
  a.mcu.rows = static_cast<uint32_t>(mcu.count("rows", 1, 4096));
  a.mcu.cols = static_cast<uint32_t>(mcu.count("cols", 1, 4096));
  a.mcu.per_bundle = static_cast<uint32_t>(mcu.count("per_bundle", 1, 1 << 16));
  std::string dataflow = mcu.string_or("dataflow", "best");
  a.mcu.dataflow = with_error_context(mcu.where("dataflow"), [&] { return parse_dataflow(dataflow); });
  a.mcu.max_utilization = mcu.number_or("max_utilization", 1.0, 1e-3, 1.0);
  mcu.finish();
  a.fp32_rate_ratio = t.number_or("fp32_rate_ratio", 0.0, 0.0, 1.0);
  a.supports_bf16 = t.boolean_or("bf16", true);
  a.vector_rate_fraction = t.number("vector_rate_fraction", 1e-6, 16.0);
  a.kernel_overhead_s = t.has("kernel_overhead") ? t.quantity("kernel_overhead", parse_duration_s, 0, 1) : 0.0;
  for (const StrictMap& l : t.list_of_maps("memory")) {
    TemplateMemoryLevel level;
    level.name = l.string("name");
    level.technology = l.string("technology");
    std::string scope = l.string("scope");
    level.scope = with_error_context(l.where("scope"), [&] { return parse_scope(scope); });
    level.partial_sums = l.boolean_or("partial_sums", level.scope == Scope::kGlobal);
    level.efficiency = l.number_or("efficiency", 1.0, 1e-3, 1.0);
    l.finish();
    a.levels.push_back(std::move(level));
  }
  StrictMap mm = t.map("main_memory");
  a.main_memory.name = mm.string("name");
  a.main_memory.technology = mm.string("technology");
  a.main_memory.efficiency = mm.number_or("efficiency", 1.0, 1e-3, 1.0);
  mm.finish();
  if (t.has("network")) {
    StrictMap net = t.map("network");
    if (net.has("intra_package")) a.intra_package = read_tier(net.map("intra_package"));
    if (net.has("inter_package")) a.inter_package = read_tier(net.map("inter_package"));
    net.finish();
  }
  t.finish();
  top.finish();
  with_error_context(std::string(source), [&] { a.validate(); });
  return a;
}

ArchitectureTemplate load_template(const std::string& name_or_path) {
  return load_builtin_or_file(name_or_path, builtin_template_names(), "architecture template", builtin_template,
                              [](std::string_view text, const std::string& path) { return parse_template_yaml(text, path); });
}

}  // namespace snr::pathfind::age
