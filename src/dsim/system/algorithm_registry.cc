#include "dsim/system/algorithm_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <mutex>

#include "common/error.h"

namespace snr::dsim {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<CollectiveAlgorithmSpec>> specs;  // stable addresses
};

void add_locked(Registry& r, CollectiveAlgorithmSpec spec) {
  if (spec.name.empty() || !spec.create) {
    throw Error(fmt::format("collective algorithm '{}': a spec needs a name and create", spec.name));
  }
  if (!spec.config_keys.empty() && !spec.parse_key) {
    throw Error(fmt::format("collective algorithm '{}' declares keys but no parse_key", spec.name));
  }
  for (const auto& existing : r.specs) {
    const auto taken = [&](const std::string& n) {
      return n == existing->name ||
             std::find(existing->aliases.begin(), existing->aliases.end(), n) != existing->aliases.end();
    };
    if (taken(spec.name) || std::any_of(spec.aliases.begin(), spec.aliases.end(), taken)) {
      throw Error(fmt::format("collective algorithm '{}': name already registered by '{}'", spec.name,
                              existing->name));
    }
    for (const auto& key : spec.config_keys) {
      if (std::find(existing->config_keys.begin(), existing->config_keys.end(), key) != existing->config_keys.end()) {
        throw Error(fmt::format("collective algorithm '{}': key '{}' already belongs to '{}'", spec.name, key,
                                existing->name));
      }
    }
  }
  spec.index = static_cast<uint32_t>(r.specs.size());
  r.specs.push_back(std::make_unique<CollectiveAlgorithmSpec>(std::move(spec)));
}

Registry& registry() {
  static Registry* instance = [] {
    auto* r = new Registry;
    // The built-in algorithms, one line each (each spec lives beside its algorithm).
    add_locked(*r, ring_algorithm_spec());
    add_locked(*r, direct_algorithm_spec());
    add_locked(*r, halving_doubling_algorithm_spec());
    add_locked(*r, double_binary_tree_algorithm_spec());
    add_locked(*r, custom_algorithm_spec());
    add_locked(*r, binomial_tree_algorithm_spec());
    return r;
  }();
  return *instance;
}

std::string listed_names() { return fmt::format("{}", fmt::join(collective_algorithm_names(), ", ")); }

std::string flattenable_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& spec : r.specs) {
    if (spec->listed && spec->flattenable) names.push_back(spec->name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

bool CollectiveAlgorithmSpec::implements_kind(CollectiveKind kind) const {
  return std::find(implements.begin(), implements.end(), kind) != implements.end();
}

const CollectiveAlgorithmSpec& find_collective_algorithm(std::string_view name) {
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    for (const auto& spec : r.specs) {
      if (spec->name == name) return *spec;
    }
  }
  throw Error(fmt::format("unknown collective algorithm '{}' (registered: {})", name, listed_names()));
}

const CollectiveAlgorithmSpec* find_algorithm_owning_key(std::string_view key) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& spec : r.specs) {
    if (std::find(spec->config_keys.begin(), spec->config_keys.end(), key) != spec->config_keys.end()) {
      return spec.get();
    }
  }
  return nullptr;
}

std::vector<std::string> collective_algorithm_config_keys() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> keys;
  for (const auto& spec : r.specs) keys.insert(keys.end(), spec->config_keys.begin(), spec->config_keys.end());
  return keys;
}

std::vector<std::string> collective_algorithm_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& spec : r.specs) {
    if (spec->listed) names.push_back(spec->numeric_suffix ? spec->name + "[N]" : spec->name);
  }
  return names;
}

void register_collective_algorithm(CollectiveAlgorithmSpec spec) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  add_locked(r, std::move(spec));
}

CollectiveImplementation resolve_collective_implementation(std::string_view text) {
  CollectiveImplementation impl;
  std::string_view name = text;
  // The "one" prefix (oneRing, oneDirect, oneHalvingDoubling) flattens all
  // dimensions into one logical dimension.
  if (name.starts_with("one")) {
    impl.flattened = true;
    name.remove_prefix(3);
  }
  Registry& r = registry();
  const CollectiveAlgorithmSpec* found = nullptr;
  std::string_view suffix;
  {
    std::lock_guard lock(r.mutex);
    for (const auto& spec : r.specs) {
      if (!spec->listed) continue;
      const auto matches = [&](std::string_view candidate) {
        if (spec->numeric_suffix ? !name.starts_with(candidate) : name != candidate) return false;
        suffix = name.substr(candidate.size());
        return true;
      };
      if (matches(spec->name) || std::any_of(spec->aliases.begin(), spec->aliases.end(), matches)) {
        found = spec.get();
        break;
      }
    }
  }
  if (found == nullptr || (impl.flattened && !found->flattenable)) {
    throw Error(fmt::format("unknown collective implementation '{}' (registered: {}; as one* variants: {})", text,
                            listed_names(), flattenable_names()));
  }
  impl.algorithm = found;
  if (!suffix.empty()) {
    int parsed = 0;
    for (char c : suffix) {
      if (c < '0' || c > '9' || parsed > 1'000'000) {
        throw Error(fmt::format("collective implementation '{}': the number after '{}' must be a positive integer",
                                text, found->name));
      }
      parsed = parsed * 10 + (c - '0');
    }
    if (parsed <= 0) {
      throw Error(fmt::format("collective implementation '{}': the number after '{}' must be positive", text,
                              found->name));
    }
    impl.parameter = parsed;
  }
  return impl;
}

}  // namespace snr::dsim
