#include <fmt/format.h>

#include <mutex>

#include "common/error.h"
#include "sweep/run_kind.h"

namespace snr::sweep {

std::string_view column_type_name(ColumnType type) {
  switch (type) {
    case ColumnType::kReal: return "REAL";
    case ColumnType::kInteger: return "INTEGER";
    case ColumnType::kText: return "TEXT";
  }
  return "?";
}

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<RunKind>> kinds;
};

// The built-ins are listed here once; static registration from their own
// files would be dropped by the linker from a static library.
Registry& registry() {
  static Registry* r = [] {
    auto* created = new Registry;
    created->kinds.push_back(make_pathfind_kind());
    created->kinds.push_back(make_sim_kind());
    return created;
  }();
  return *r;
}

}  // namespace

const RunKind& find_run_kind(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& kind : r.kinds) {
    if (kind->name() == name) return *kind;
  }
  std::string names;
  for (const auto& kind : r.kinds) names += (names.empty() ? "" : ", ") + std::string(kind->name());
  throw Error(fmt::format("'{}' is not a sweep run kind (registered: {})", name, names));
}

std::vector<std::string> run_kind_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& kind : r.kinds) names.emplace_back(kind->name());
  return names;
}

void register_run_kind(std::unique_ptr<RunKind> kind) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (!kind || kind->name().empty()) throw Error("a sweep run kind needs a name");
  for (const auto& existing : r.kinds) {
    if (existing->name() == kind->name()) {
      throw Error(fmt::format("sweep run kind '{}' is already registered", kind->name()));
    }
  }
  r.kinds.push_back(std::move(kind));
}

const KeySpec* find_key(std::string_view key, const std::vector<KeySpec>& specs) {
  for (const KeySpec& spec : specs) {
    if (key == spec.name) return &spec;
    if (spec.has_fields && key.size() > spec.name.size() + 1 && key.starts_with(spec.name) &&
        key[spec.name.size()] == '.') {
      return &spec;
    }
  }
  return nullptr;
}

std::string key_list(const std::vector<KeySpec>& specs) {
  std::string out;
  for (const KeySpec& spec : specs) {
    out += (out.empty() ? "" : ", ") + spec.name;
    if (spec.has_fields) out += ", " + spec.name + ".<field>";
  }
  return out;
}

}  // namespace snr::sweep
