#include "sweep/grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "common/error.h"
#include "common/file_io.h"
#include "common/hash.h"
#include "common/yaml_input.h"
#include "sweep/document.h"

namespace snr::sweep {

std::string_view draw_name(Draw draw) {
  switch (draw) {
    case Draw::kUniform: return "uniform";
    case Draw::kLogUniform: return "log-uniform";
    case Draw::kChoice: return "choice";
  }
  return "?";
}

std::vector<std::string> Grid::keys() const {
  std::vector<std::string> out;
  for (const Axis& axis : axes) out.insert(out.end(), axis.keys.begin(), axis.keys.end());
  for (const RandomKey& r : random) out.push_back(r.key);
  return out;
}

std::string Grid::where(std::string_view key) const {
  for (const KeyLocation& l : locations) {
    if (l.key == key) return fmt::format("{}:{}: ", source.string(), l.line);
  }
  return source.string() + ": ";
}

std::string Grid::base_text() const { return fmt::format("kind: {}, base: {}", kind, canonical_text(base)); }

namespace {

class Parser {
 public:
  Parser(std::string_view text, const std::filesystem::path& source) {
    grid_.source = source;
    grid_.dir = source.parent_path();
    grid_.text = std::string(text);
  }

  Grid parse() {
    const YAML::Node root = load_yaml_document(grid_.text, grid_.source.string(), "a sweep grid");
    if (!root.IsMap()) fail(root, "a sweep grid is a map with kind, base and grid and/or random");
    std::optional<YAML::Node> grid, random;
    for (auto it = root.begin(); it != root.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (key == "kind") {
        grid_.kind = scalar(it->second, "kind");
      } else if (key == "name") {
        grid_.name = scalar(it->second, "name");
      } else if (key == "base") {
        if (!it->second.IsMap()) fail(it->second, "base: expected a map of the run kind's inputs");
        grid_.base = it->second;
      } else if (key == "grid") {
        grid = it->second;
      } else if (key == "random") {
        random = it->second;
      } else {
        fail(it->first, fmt::format("unknown key '{}' (a grid file has kind, name, base, grid, random)", key));
      }
    }
    if (grid_.kind.empty()) fail(root, "kind: missing (the run kind, e.g. pathfind or sim)");
    if (!grid_.base.IsMap()) fail(root, "base: missing (the run kind's fixed inputs)");
    if (!grid && !random) fail(root, "nothing varies: add grid: or random:");
    if (grid) parse_product(*grid);
    if (random) parse_random(*random);
    uint64_t total = grid_.samples == 0 ? 1 : grid_.samples;
    for (const Axis& axis : grid_.axes) {
      if (total > kMaxPoints / axis.size()) {
        fail(root, fmt::format("the grid has more than {} points; split it into several sweeps", kMaxPoints));
      }
      total *= axis.size();
    }
    return std::move(grid_);
  }

 private:
  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const {
    throw Error(fmt::format("{}:{}: {}", grid_.source.string(), at.Mark().line + 1, message));
  }

  std::string scalar(const YAML::Node& node, std::string_view what) const {
    if (!node.IsScalar() || node.Scalar().empty()) fail(node, fmt::format("{}: expected a name", what));
    return node.Scalar();
  }

  void add_key(const YAML::Node& key_node) {
    const std::string key = key_node.Scalar();
    if (key.empty()) fail(key_node, "an empty parameter key");
    for (const KeyLocation& l : grid_.locations) {
      if (l.key == key) fail(key_node, fmt::format("key '{}' varies twice (first at line {})", key, l.line));
    }
    grid_.locations.push_back({key, key_node.Mark().line + 1});
  }

  Quantity end_of(const YAML::Node& node, const std::string& key) const {
    if (node.IsScalar()) {
      if (auto q = parse_quantity(node.Scalar())) return *q;
    }
    fail(node, fmt::format("key '{}': '{}' is not a number or a quantity with a unit", key, canonical_text(node)));
  }

  // [low, high] of a range; `high` comes back in `low`'s unit.
  std::pair<Quantity, Quantity> ends_of(const YAML::Node& node, const std::string& key, bool log) const {
    if (!node.IsSequence() || node.size() != 2) fail(node, fmt::format("key '{}': a range is [low, high]", key));
    Quantity low = end_of(node[0], key);
    Quantity high = end_of(node[1], key);
    if (low.kind != high.kind) {
      fail(node, fmt::format("key '{}': unit mismatch: '{}' is a {} but '{}' is a {}", key, canonical_text(node[0]),
                             low.kind->name, canonical_text(node[1]), high.kind->name));
    }
    // Written in the same unit, the high end stays as written: dividing its
    // base by the unit could move it by a rounding step.
    if (high.unit != low.unit) high.number = high.base / unit_scale(low);
    high.unit = low.unit;
    if (high.number < low.number) {
      fail(node, fmt::format("key '{}': empty range: {} is above {}", key, canonical_text(node[0]),
                             canonical_text(node[1])));
    }
    if (log && !(low.number > 0)) fail(node, fmt::format("key '{}': a log scale needs ends above zero", key));
    return {low, high};
  }

  static double unit_scale(const Quantity& q) { return q.unit.empty() ? 1.0 : q.kind->parse("1" + q.unit); }

  std::vector<YAML::Node> values_of(const YAML::Node& spec, const std::string& key) const {
    std::vector<YAML::Node> values;
    if (spec.IsSequence()) {
      if (spec.size() == 0) fail(spec, fmt::format("key '{}': empty list of values", key));
      for (const YAML::Node& v : spec) {
        if (!v.IsDefined() || v.IsNull()) fail(v, fmt::format("key '{}': a value is empty (null)", key));
        values.push_back(v);
      }
      return values;
    }
    if (!spec.IsMap()) {
      fail(spec, fmt::format("key '{}': give a list of values ([a, b, ...]) or a range ({{range: [low, high], "
                             "steps: N}})", key));
    }
    std::optional<YAML::Node> range, steps_node, scale;
    for (auto it = spec.begin(); it != spec.end(); ++it) {
      const std::string field = it->first.Scalar();
      if (field == "range") range = it->second;
      else if (field == "steps") steps_node = it->second;
      else if (field == "scale") scale = it->second;
      else fail(it->first, fmt::format("key '{}': unknown range field '{}' (range, steps, scale)", key, field));
    }
    if (!range || !steps_node) fail(spec, fmt::format("key '{}': a range needs range and steps", key));
    const std::string scale_name = scale ? scale->Scalar() : "linear";
    if (scale_name != "linear" && scale_name != "log") {
      fail(*scale, fmt::format("key '{}': scale '{}' is not linear or log", key, scale_name));
    }
    const bool log = scale_name == "log";
    uint64_t steps = 0;
    if (!steps_node->IsScalar() || !YAML::convert<uint64_t>::decode(*steps_node, steps) || steps > kMaxPoints) {
      fail(*steps_node, fmt::format("key '{}': steps must be a count up to {}", key, kMaxPoints));
    }
    if (steps == 0) fail(*steps_node, fmt::format("key '{}': empty range (steps: 0)", key));
    const auto [low, high] = ends_of(*range, key, log);
    const bool integer = low.integer && high.integer && !log;
    std::vector<double> numbers(steps);
    for (uint64_t i = 0; i < steps; ++i) {
      const double t = steps == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(steps - 1);
      const double number = log ? std::exp(std::log(low.number) + t * (std::log(high.number) - std::log(low.number)))
                                : low.number + t * (high.number - low.number);
      // The ends as written; rounding in between stays inside them.
      numbers[i] = i == 0 ? low.number : i + 1 == steps ? high.number : std::clamp(number, low.number, high.number);
    }
    const auto texts = render_distinct(low, high, numbers, integer);
    if (!texts) {
      fail(*range, fmt::format("key '{}': the {} steps of the range [{}, {}] cannot all be told apart (two give "
                               "the same value); use fewer steps or a wider range",
                               key, steps, canonical_text((*range)[0]), canonical_text((*range)[1])));
    }
    for (const std::string& text : *texts) values.emplace_back(text);
    return values;
  }

  void parse_product(const YAML::Node& grid) {
    if (!grid.IsMap()) fail(grid, "grid: expected a map of key: [values]");
    for (auto it = grid.begin(); it != grid.end(); ++it) {
      if (it->first.Scalar() != "zip") {
        add_key(it->first);
        grid_.axes.push_back({{it->first.Scalar()}, {values_of(it->second, it->first.Scalar())}});
        continue;
      }
      if (!it->second.IsSequence()) fail(it->second, "zip: expected a list of groups (maps of key: [values])");
      // Copies: a yaml-cpp iterator's pair is a temporary.
      const YAML::Node groups = it->second;
      for (const YAML::Node& group : groups) {
        if (!group.IsMap() || group.size() == 0) fail(group, "zip: each group is a map of key: [values]");
        Axis axis;
        for (auto g = group.begin(); g != group.end(); ++g) {
          add_key(g->first);
          axis.keys.push_back(g->first.Scalar());
          axis.values.push_back(values_of(g->second, g->first.Scalar()));
          if (axis.values.back().size() != axis.values.front().size()) {
            fail(g->first, fmt::format("zip: key '{}' has {} values but '{}' has {}", axis.keys.back(),
                                       axis.values.back().size(), axis.keys.front(), axis.values.front().size()));
          }
        }
        grid_.axes.push_back(std::move(axis));
      }
    }
  }

  void parse_random(const YAML::Node& random) {
    if (!random.IsMap()) fail(random, "random: expected samples, seed and keys");
    std::optional<YAML::Node> keys;
    bool has_samples = false;
    for (auto it = random.begin(); it != random.end(); ++it) {
      const std::string field = it->first.Scalar();
      if (field == "samples") {
        has_samples = YAML::convert<uint64_t>::decode(it->second, grid_.samples);
        if (!has_samples || grid_.samples == 0 || grid_.samples > kMaxPoints) {
          fail(it->second, fmt::format("random: samples must be a count in 1..{}", kMaxPoints));
        }
      } else if (field == "seed") {
        if (!YAML::convert<uint64_t>::decode(it->second, grid_.seed)) fail(it->second, "random: seed must be a count");
      } else if (field == "keys") {
        keys = it->second;
      } else {
        fail(it->first, fmt::format("random: unknown field '{}' (samples, seed, keys)", field));
      }
    }
    if (!has_samples) fail(random, "random: samples missing");
    if (!keys || !keys->IsMap() || keys->size() == 0) fail(random, "random: keys: expected a map of key: draw");
    for (auto it = keys->begin(); it != keys->end(); ++it) {
      add_key(it->first);
      const std::string key = it->first.Scalar();
      const YAML::Node spec = it->second;
      if (!spec.IsMap() || spec.size() != 1) {
        fail(spec, fmt::format("key '{}': give one of {{uniform: [low, high]}}, {{log-uniform: [low, high]}}, "
                               "{{choice: [a, b, ...]}}", key));
      }
      const std::string draw = spec.begin()->first.Scalar();
      const YAML::Node arg = spec.begin()->second;
      RandomKey r;
      r.key = key;
      if (draw == "choice") {
        r.draw = Draw::kChoice;
        if (!arg.IsSequence()) fail(arg, fmt::format("key '{}': choice: expected a list", key));
        r.choices = values_of(arg, key);
      } else if (draw == "uniform" || draw == "log-uniform") {
        r.draw = draw == "uniform" ? Draw::kUniform : Draw::kLogUniform;
        std::tie(r.low, r.high) = ends_of(arg, key, r.draw == Draw::kLogUniform);
        r.ends = {arg[0], arg[1]};
        r.integer = r.low.integer && r.high.integer;
      } else {
        fail(spec, fmt::format("key '{}': '{}' is not a draw (uniform, log-uniform, choice)", key, draw));
      }
      grid_.random.push_back(std::move(r));
    }
  }

  Grid grid_;

 public:
  // The text of `number` in `low`'s unit, in a form the input readers
  // take: whole bytes and picoseconds when the unit cannot hold it.
  static std::string render(const Quantity& low, double number, bool integer, int digits) {
    std::string text = format_quantity(number, low.unit, integer, digits);
    if (low.unit.empty()) return text;
    try {
      low.kind->parse(text);
      return text;
    } catch (const Error&) {
    }
    const double base = number * unit_scale(low);
    if (low.kind->base_unit == "B") return format_quantity(base, "B", true);
    if (low.kind->base_unit == "s") return format_quantity(base * 1e12, "ps", true);
    return text;
  }

  // Whether `text` (render's) lies in [low, high]. Whole bytes and
  // picoseconds do: the ends are whole in them.
  static bool inside(const Quantity& low, const Quantity& high, const std::string& text) {
    const auto q = parse_quantity(text);
    return !q || q->unit != low.unit || (q->number >= low.number && q->number <= high.number);
  }

  // The texts of `numbers` (in [low, high], in `low`'s unit) with the fewest
  // significant digits, from six, that keep each inside [low, high] and tell
  // them all apart; nullopt when even 17 (every double exactly) do not.
  static std::optional<std::vector<std::string>> render_distinct(const Quantity& low, const Quantity& high,
                                                                 const std::vector<double>& numbers, bool integer) {
    for (int digits = 6; digits <= 17; ++digits) {
      std::vector<std::string> texts;
      bool ok = true;
      for (double number : numbers) {
        texts.push_back(render(low, number, integer, digits));
        ok = ok && inside(low, high, texts.back());
      }
      std::unordered_set<std::string> seen(texts.begin(), texts.end());
      if (ok && seen.size() == texts.size()) return texts;
      if (integer) break;  // whole numbers: more digits change nothing
    }
    return std::nullopt;
  }
};

// splitmix64: a tiny generator whose sequence is fixed by its definition,
// so the same seed draws the same points on every platform and rank.
class Generator {
 public:
  explicit Generator(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // In [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

YAML::Node draw_value(const RandomKey& r, Generator& generator) {
  const double u = generator.uniform();
  if (r.draw == Draw::kChoice) {
    const auto index = std::min(r.choices.size() - 1, static_cast<size_t>(u * static_cast<double>(r.choices.size())));
    return r.choices[index];
  }
  const double lo = r.low.number, hi = r.high.number;
  double number = r.draw == Draw::kLogUniform ? std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)))
                                              : lo + u * (hi - lo);
  number = std::clamp(r.integer ? std::round(number) : number, lo, hi);
  const auto text = Parser::render_distinct(r.low, r.high, {number}, r.integer);
  if (!text) throw Error(fmt::format("key '{}': the draw {} cannot be written inside its range", r.key, number));
  return YAML::Node(text->front());
}

}  // namespace

Grid parse_grid(std::string_view text, const std::filesystem::path& source) { return Parser(text, source).parse(); }

Grid load_grid(const std::filesystem::path& path) { return parse_grid(read_file(path), path); }

std::string point_key(std::string_view kind, const std::vector<std::string>& keys,
                      const std::vector<std::string>& canonical) {
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  uint64_t hash = fnv1a64(kind);
  for (size_t i : order) {
    hash = fnv1a64("\n", hash);
    hash = fnv1a64(keys[i], hash);
    hash = fnv1a64("=", hash);
    hash = fnv1a64(canonical[i], hash);
  }
  return fmt::format("{:016x}", hash);
}

std::vector<Point> expand(const Grid& grid) {
  const std::vector<std::string> keys = grid.keys();
  uint64_t combinations = 1;
  for (const Axis& axis : grid.axes) combinations *= axis.size();
  const uint64_t samples = grid.samples == 0 ? 1 : grid.samples;
  // The samples are drawn once and paired with every grid combination, so
  // the grid's values are compared on the same random draws.
  std::vector<std::vector<YAML::Node>> drawn(samples);
  Generator generator(grid.seed);
  for (auto& sample : drawn) {
    for (const RandomKey& r : grid.random) sample.push_back(draw_value(r, generator));
  }
  std::vector<Point> points;
  std::unordered_set<std::string> seen;
  points.reserve(combinations * samples);
  for (uint64_t c = 0; c < combinations; ++c) {
    Point base;
    uint64_t rest = c;
    std::vector<size_t> index(grid.axes.size());
    for (size_t a = grid.axes.size(); a-- > 0;) {
      index[a] = rest % grid.axes[a].size();
      rest /= grid.axes[a].size();
    }
    for (size_t a = 0; a < grid.axes.size(); ++a) {
      for (const auto& values : grid.axes[a].values) base.values.push_back(values[index[a]]);
    }
    for (const auto& sample : drawn) {
      Point point = base;
      point.values.insert(point.values.end(), sample.begin(), sample.end());
      for (const YAML::Node& value : point.values) point.canonical.push_back(canonical_text(value));
      point.key = point_key(grid.kind, keys, point.canonical);
      if (seen.insert(point.key).second) points.push_back(std::move(point));
    }
  }
  return points;
}

}  // namespace snr::sweep
