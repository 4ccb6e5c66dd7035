// A sweep's grid file (docs/formats/sweep-grid.md): the run kind, the fixed
// base inputs of that kind, and the parameters that vary, either as a
// cartesian product of value lists (`grid:`, with `zip` groups that vary
// together) or as a seeded random sample (`random:`), or both (every grid
// point with every sample). Parsing checks the file's own structure (empty
// lists and ranges, ranges whose ends differ in unit, keys given twice);
// whether a key exists and a value fits is the run kind's business
// (sweep.h validates both before any point runs).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/quantity.h"

namespace snr::sweep {

// One dimension of the product: one key, or a zip group of keys whose
// lists have the same length. values[k][i] is key k's i-th value.
struct Axis {
  std::vector<std::string> keys;
  std::vector<std::vector<YAML::Node>> values;
  [[nodiscard]] size_t size() const { return values.empty() ? 0 : values.front().size(); }
};

enum class Draw { kUniform, kLogUniform, kChoice };
std::string_view draw_name(Draw draw);  // "uniform", "log-uniform", "choice"

struct RandomKey {
  std::string key;
  Draw draw = Draw::kUniform;
  std::vector<YAML::Node> choices;  // kChoice
  Quantity low, high;               // kUniform / kLogUniform, `high` in `low`'s unit
  std::vector<YAML::Node> ends;     // the two ends as written (validation checks them)
  bool integer = false;             // both ends plain integers: whole numbers are drawn
};

// Where each parameter was written, for errors ("grid.yaml:12").
struct KeyLocation {
  std::string key;
  int line = 0;  // 1-based
};

struct Grid {
  std::filesystem::path source;  // the file (errors name it)
  std::filesystem::path dir;     // relative input paths resolve against it
  std::string text;              // the file as read
  std::string name;              // optional `name:`
  std::string kind;              // the run kind's registered name
  YAML::Node base;               // the run kind's fixed inputs (a map)
  std::vector<Axis> axes;        // the product, first axis slowest
  std::vector<RandomKey> random;
  uint64_t samples = 0;          // random points (0 without `random:`)
  uint64_t seed = 1;
  std::vector<KeyLocation> locations;

  // Every parameter: the axes' keys in order, then the random keys.
  [[nodiscard]] std::vector<std::string> keys() const;
  // "grid.yaml:12: " for `key` (the file name alone when unknown).
  [[nodiscard]] std::string where(std::string_view key) const;
  // The base as one line (the database checks a resumed sweep has the same).
  [[nodiscard]] std::string base_text() const;
};

// More points than this in one grid is refused (a typo such as a range of
// a million steps, before memory runs out).
inline constexpr uint64_t kMaxPoints = uint64_t{1} << 24;

// `source` names the file in errors; relative paths resolve against its
// folder. Throws snr::Error "<source>:<line>: ..." naming the key.
Grid parse_grid(std::string_view text, const std::filesystem::path& source);
Grid load_grid(const std::filesystem::path& path);

// One point: a value for every key of Grid::keys(), in that order.
struct Point {
  std::vector<YAML::Node> values;
  std::vector<std::string> canonical;  // canonical_text of each value
  std::string key;                     // point_key()
};

// The grid's points: the product (last axis fastest) times the samples,
// each sample drawn from a generator seeded with `seed` (the same on every
// machine). Points with the same values as an earlier one are dropped.
std::vector<Point> expand(const Grid& grid);

// 16 hex digits of a 64-bit FNV-1a hash of the kind and the sorted
// key=value pairs: the same parameters give the same key in any grid.
std::string point_key(std::string_view kind, const std::vector<std::string>& keys,
                      const std::vector<std::string>& canonical);

}  // namespace snr::sweep
