// What a sweep runs at each point, as plug-ins registered by name: each
// run kind declares the keys a grid may vary and the columns its points
// produce, reads its base inputs once, checks a key's value against them,
// and runs one point in process. `pathfind` (kind_pathfind.cc) and `sim`
// (kind_sim.cc) are built in; tests and out-of-tree code may add more with
// register_run_kind.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace snr::sweep {

// A key a grid may vary. An input key (`device`) may also be followed by a
// path into that input's document (`device.hbm.bandwidth`, document.h).
struct KeySpec {
  std::string name;
  std::string help;
  bool has_fields = false;
};

// SQLite declared type of an output column.
enum class ColumnType { kReal, kInteger, kText };
std::string_view column_type_name(ColumnType type);  // "REAL", "INTEGER", "TEXT"

struct OutputColumn {
  std::string name;  // with its unit when it has one (time_s, finish_ns)
  ColumnType type = ColumnType::kReal;
  std::string help;
};

// The base inputs read once (per process); runs points. Not thread-safe:
// each process (rank) has its own.
class PreparedRun {
 public:
  virtual ~PreparedRun() = default;
  // Throws snr::Error when the base inputs alone cannot run.
  virtual void check_base() = 0;
  // Throws snr::Error when `value` of `key` cannot go into the base inputs
  // (the inputs' own readers decide: unknown fields, units, ranges).
  virtual void check(const std::string& key, const YAML::Node& value) = 0;
  // One point: `values[i]` of `keys[i]`. Returns the output columns by
  // name (numbers, strings or null). Throws snr::Error when the point
  // fails; the sweep records the message.
  virtual nlohmann::ordered_json run(const std::vector<std::string>& keys, const std::vector<YAML::Node>& values) = 0;
};

class RunKind {
 public:
  virtual ~RunKind() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view summary() const = 0;
  [[nodiscard]] virtual std::vector<KeySpec> keys() const = 0;
  [[nodiscard]] virtual std::vector<OutputColumn> outputs() const = 0;
  // Outputs named "<prefix><part>" that only some points have (one per
  // cause of time), REAL; empty when the kind has none.
  [[nodiscard]] virtual std::string_view varying_output_prefix() const = 0;
  // The output the best point minimises, and a 0/1 output it must have 1
  // in to count (empty: every successful point counts).
  [[nodiscard]] virtual std::string_view objective() const = 0;
  [[nodiscard]] virtual std::string_view feasible() const = 0;
  // Reads the grid's `base:` map; relative paths resolve against
  // `grid_dir`. Throws snr::Error naming the base key.
  [[nodiscard]] virtual std::unique_ptr<PreparedRun> prepare(const YAML::Node& base,
                                                             const std::filesystem::path& grid_dir) const = 0;
};

// The kind registered as `name`; throws snr::Error listing the names.
const RunKind& find_run_kind(std::string_view name);
std::vector<std::string> run_kind_names();
// Adds a kind; throws snr::Error when the name is taken.
void register_run_kind(std::unique_ptr<RunKind> kind);

// The spec `key` matches (its name, or an input name and a path), or null.
const KeySpec* find_key(std::string_view key, const std::vector<KeySpec>& specs);
// "device, device.<field>, model, ..." for errors and help.
std::string key_list(const std::vector<KeySpec>& specs);

// The built-in kinds (one file each).
std::unique_ptr<RunKind> make_pathfind_kind();
std::unique_ptr<RunKind> make_sim_kind();

}  // namespace snr::sweep
