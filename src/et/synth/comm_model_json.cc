// JSON form of CommModel (format "snr-comm-model", version 1); layout in
// docs/synthesis.md. Written with stable key order; read strictly.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/json_input.h"
#include "et/synth/comm_model.h"
#include "formats/chakra/attributes.h"

namespace snr::et::synth {
namespace {

using Json = nlohmann::ordered_json;
constexpr int kVersion = 1;
constexpr uint64_t kMaxSequenceLength = 100'000'000;
constexpr size_t kMaxListLength = 1'000'000;

Json value_model_json(const ValueModel& m) {
  Json atoms = Json::array();
  for (const auto& a : m.atoms) atoms.push_back(Json{{"value", a.value}, {"probability", a.probability}});
  Json components = Json::array();
  for (const auto& c : m.mixture.components) {
    components.push_back(Json{{"weight", c.weight}, {"mean", c.mean}, {"stddev", c.stddev}});
  }
  return Json{{"offset", m.offset},
              {"samples", m.samples},
              {"min", m.min_value},
              {"max", m.max_value},
              {"atoms", atoms},
              {"mixture",
               Json{{"log_likelihood", m.mixture.log_likelihood}, {"bic", m.mixture.bic}, {"components", components}}}};
}

// Reads one JSON object, remembering which keys were used so that unknown
// keys (typos, fields of a newer format) are reported instead of ignored.
class ObjectReader {
 public:
  ObjectReader(const Json& object, std::string path, const std::string& source)
      : object_(object), path_(std::move(path)), source_(source) {
    if (!object.is_object()) fail("expected an object");
  }

  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}: {}: {}", source_, path_, what)); }
  [[nodiscard]] std::string child(std::string_view key) const { return fmt::format("{}.{}", path_, key); }

  const Json& get(std::string_view key) {
    auto it = object_.find(key);
    if (it == object_.end()) fail(fmt::format("missing key '{}'", key));
    used_.insert(std::string(key));
    return *it;
  }
  double number(std::string_view key) {
    const Json& v = get(key);
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(fmt::format("'{}' must be a finite number", key));
    return v.get<double>();
  }
  uint64_t count(std::string_view key) {
    const Json& v = get(key);
    if (!v.is_number_unsigned()) fail(fmt::format("'{}' must be a non-negative integer", key));
    return v.get<uint64_t>();
  }
  std::string text(std::string_view key) {
    const Json& v = get(key);
    if (!v.is_string()) fail(fmt::format("'{}' must be a string", key));
    return v.get<std::string>();
  }
  const Json& array(std::string_view key) {
    const Json& v = get(key);
    if (!v.is_array()) fail(fmt::format("'{}' must be an array", key));
    if (v.size() > kMaxListLength) fail(fmt::format("'{}' has more than {} entries", key, kMaxListLength));
    return v;
  }
  void finish() const {
    for (const auto& [key, unused] : object_.items()) {
      if (!used_.contains(key)) fail(fmt::format("unknown key '{}'", key));
    }
  }

 private:
  const Json& object_;
  std::string path_;
  const std::string& source_;
  std::set<std::string, std::less<>> used_;
};

// Checks a list of probabilities summing to one; `label` names it in errors.
std::vector<double> probability_list(const ObjectReader& reader, const Json& list, const std::string& label,
                                     size_t expected_size) {
  if (!list.is_array()) reader.fail(fmt::format("'{}' must be an array", label));
  if (list.size() != expected_size) {
    reader.fail(fmt::format("'{}' has {} entries, expected {}", label, list.size(), expected_size));
  }
  std::vector<double> out;
  double total = 0;
  for (const auto& p : list) {
    if (!p.is_number() || !std::isfinite(p.get<double>()) || p.get<double>() < 0 || p.get<double>() > 1) {
      reader.fail(fmt::format("'{}' entries must be probabilities in [0, 1]", label));
    }
    out.push_back(p.get<double>());
    total += out.back();
  }
  if (std::fabs(total - 1.0) > 1e-6) reader.fail(fmt::format("'{}' sums to {}, not 1", label, total));
  return out;
}

std::vector<double> probabilities(ObjectReader& reader, std::string_view key, size_t expected_size) {
  return probability_list(reader, reader.array(key), std::string(key), expected_size);
}

ValueModel read_value_model(const Json& json, const std::string& path, const std::string& source) {
  ObjectReader r(json, path, source);
  ValueModel m;
  m.offset = r.number("offset");
  if (m.offset != 0 && m.offset != 1) r.fail("'offset' must be 0 or 1");
  m.samples = r.count("samples");
  m.min_value = r.count("min");
  m.max_value = r.count("max");
  if (m.min_value > m.max_value) r.fail("'min' is greater than 'max'");
  if (m.offset == 0 && m.min_value == 0) r.fail("'min' must be positive when 'offset' is 0");
  double atom_total = 0;
  const Json& atoms = r.array("atoms");
  for (size_t i = 0; i < atoms.size(); ++i) {
    ObjectReader a(atoms[i], fmt::format("{}.atoms[{}]", path, i), source);
    Atom atom{a.count("value"), a.number("probability")};
    if (atom.probability < 0 || atom.probability > 1) a.fail("'probability' must be in [0, 1]");
    atom_total += atom.probability;
    a.finish();
    m.atoms.push_back(atom);
  }
  if (!m.atoms.empty() && std::fabs(atom_total - 1.0) > 1e-6) r.fail(fmt::format("atom probabilities sum to {}", atom_total));
  ObjectReader mix(r.get("mixture"), r.child("mixture"), source);
  m.mixture.log_likelihood = mix.number("log_likelihood");
  m.mixture.bic = mix.number("bic");
  const Json& components = mix.array("components");
  if (components.empty()) mix.fail("'components' is empty");
  double weight_total = 0;
  for (size_t i = 0; i < components.size(); ++i) {
    ObjectReader c(components[i], fmt::format("{}.mixture.components[{}]", path, i), source);
    GaussianComponent g{c.number("weight"), c.number("mean"), c.number("stddev")};
    if (g.weight < 0 || g.weight > 1) c.fail("'weight' must be in [0, 1]");
    if (g.stddev <= 0) c.fail("'stddev' must be positive");
    if (std::fabs(g.mean) > 64) c.fail("'mean' is outside the log2 range of 64-bit values");
    weight_total += g.weight;
    c.finish();
    m.mixture.components.push_back(g);
  }
  if (std::fabs(weight_total - 1.0) > 1e-6) mix.fail(fmt::format("component weights sum to {}", weight_total));
  mix.finish();
  r.finish();
  return m;
}

int64_t parse_comm_type(const Json& value, ObjectReader& reader) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_string()) {
    for (int64_t t = ChakraProtoMsg::CollectiveCommType_MIN; t <= ChakraProtoMsg::CollectiveCommType_MAX; ++t) {
      if (chakra::comm_type_name(t) == value.get<std::string>()) return t;
    }
  }
  reader.fail(fmt::format("'comm_type' {} is not a collective type name", value.dump()));
}

}  // namespace

std::string comm_model_to_json(const CommModel& model) {
  Json inputs = Json::array();
  for (const auto& in : model.inputs) {
    inputs.push_back(Json{{"name", in.name},
                          {"npus", in.npus},
                          {"collectives", in.collectives},
                          {"skipped_point_to_point", in.skipped_point_to_point},
                          {"skipped_irregular_groups", in.skipped_irregular_groups}});
  }
  Json scopes = Json::array();
  for (const auto& s : model.scopes) {
    if (s.kind == GroupScope::Kind::kWorld) {
      scopes.push_back(Json{{"kind", "world"}});
    } else {
      scopes.push_back(Json{{"kind", s.kind == GroupScope::Kind::kBlock ? "block" : "strided"}, {"width", s.width}});
    }
  }
  Json types = Json::array();
  for (const auto& t : model.types) {
    types.push_back(Json{{"comm_type", chakra::comm_type_name(t.comm_type)},
                         {"count", t.count},
                         {"repeat_size_probability", t.repeat_size_probability},
                         {"scope_probability", t.scope_probability},
                         {"sizes_bytes", value_model_json(t.sizes_bytes)}});
  }
  const Json root{{"format", "snr-comm-model"},
                  {"version", kVersion},
                  {"inputs", inputs},
                  {"scopes", scopes},
                  {"sequence_lengths", model.sequence_lengths},
                  {"types", types},
                  {"initial_type_probability", model.initial_type_probability},
                  {"transition_probability", model.transition_probability},
                  {"gaps_micros", value_model_json(model.gaps_micros)}};
  return root.dump(1) + "\n";
}

CommModel comm_model_from_json(std::string_view text, const std::string& source) {
  const Json root = parse_ordered_json_input(text, source);
  ObjectReader r(root, "model", source);
  if (r.text("format") != "snr-comm-model") r.fail("'format' is not \"snr-comm-model\"");
  if (r.count("version") != kVersion) r.fail(fmt::format("unsupported 'version' (this build reads {})", kVersion));
  CommModel model;
  const Json& inputs = r.array("inputs");
  for (size_t i = 0; i < inputs.size(); ++i) {
    ObjectReader in(inputs[i], fmt::format("model.inputs[{}]", i), source);
    FitInput fi;
    fi.name = in.text("name");
    const uint64_t npus = in.count("npus");
    if (npus > UINT32_MAX) in.fail("'npus' does not fit in 32 bits");
    fi.npus = static_cast<uint32_t>(npus);
    fi.collectives = in.count("collectives");
    fi.skipped_point_to_point = in.count("skipped_point_to_point");
    fi.skipped_irregular_groups = in.count("skipped_irregular_groups");
    in.finish();
    model.inputs.push_back(std::move(fi));
  }
  const Json& scopes = r.array("scopes");
  if (scopes.empty()) r.fail("'scopes' is empty");
  for (size_t i = 0; i < scopes.size(); ++i) {
    ObjectReader s(scopes[i], fmt::format("model.scopes[{}]", i), source);
    GroupScope scope;
    const std::string kind = s.text("kind");
    if (kind == "world") {
      scope.kind = GroupScope::Kind::kWorld;
    } else if (kind == "block" || kind == "strided") {
      scope.kind = kind == "block" ? GroupScope::Kind::kBlock : GroupScope::Kind::kStrided;
      const uint64_t width = s.count("width");
      if (width == 0 || width > (1u << 24)) s.fail("'width' must be between 1 and 2^24");
      scope.width = static_cast<uint32_t>(width);
    } else {
      s.fail(fmt::format("unknown scope kind '{}' (world, block, strided)", kind));
    }
    s.finish();
    if (std::find(model.scopes.begin(), model.scopes.end(), scope) != model.scopes.end()) s.fail("duplicate scope");
    model.scopes.push_back(scope);
  }
  for (const auto& length : r.array("sequence_lengths")) {
    if (!length.is_number_unsigned() || length.get<uint64_t>() == 0 || length.get<uint64_t>() > kMaxSequenceLength) {
      r.fail(fmt::format("'sequence_lengths' entries must be integers in [1, {}]", kMaxSequenceLength));
    }
    model.sequence_lengths.push_back(length.get<uint64_t>());
  }
  if (model.sequence_lengths.empty()) r.fail("'sequence_lengths' is empty");
  const Json& types = r.array("types");
  if (types.empty()) r.fail("'types' is empty");
  std::set<int64_t> seen;
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string path = fmt::format("model.types[{}]", i);
    ObjectReader t(types[i], path, source);
    TypeModel tm;
    tm.comm_type = parse_comm_type(t.get("comm_type"), t);
    if (!seen.insert(tm.comm_type).second) t.fail("collective type listed twice");
    tm.count = t.count("count");
    tm.repeat_size_probability = t.number("repeat_size_probability");
    if (tm.repeat_size_probability < 0 || tm.repeat_size_probability > 1) t.fail("'repeat_size_probability' must be in [0, 1]");
    tm.scope_probability = probabilities(t, "scope_probability", model.scopes.size());
    tm.sizes_bytes = read_value_model(t.get("sizes_bytes"), path + ".sizes_bytes", source);
    if (tm.sizes_bytes.offset != 0) t.fail("'sizes_bytes.offset' must be 0");
    t.finish();
    model.types.push_back(std::move(tm));
  }
  model.initial_type_probability = probabilities(r, "initial_type_probability", types.size());
  const Json& rows = r.array("transition_probability");
  if (rows.size() != types.size()) r.fail(fmt::format("'transition_probability' needs {} rows", types.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    model.transition_probability.push_back(
        probability_list(r, rows[i], fmt::format("transition_probability[{}]", i), types.size()));
  }
  model.gaps_micros = read_value_model(r.get("gaps_micros"), "model.gaps_micros", source);
  if (model.gaps_micros.offset != 1) r.fail("'gaps_micros.offset' must be 1");
  r.finish();
  return model;
}

}  // namespace snr::et::synth
