#include "infra/translate/translator.h"

#include <fmt/format.h>

#include <map>

#include "common/error.h"

namespace snr::infra {

namespace {
std::map<std::string, std::unique_ptr<Translator>, std::less<>>& registry() {
  static std::map<std::string, std::unique_ptr<Translator>, std::less<>> r;
  return r;
}
}  // namespace

bool register_translator(std::unique_ptr<Translator> translator) {
  const std::string name(translator->name());
  return registry().emplace(name, std::move(translator)).second;
}

const Translator* find_translator(std::string_view name) {
  auto it = registry().find(name);
  if (it != registry().end()) return it->second.get();
  std::string list;
  for (const auto& [n, t] : registry()) list += (list.empty() ? "" : ", ") + n;
  throw Error(fmt::format("unknown backend '{}' (translators: {})", name, list));
}

std::vector<const Translator*> all_translators() {
  std::vector<const Translator*> out;
  for (const auto& [n, t] : registry()) out.push_back(t.get());
  return out;
}

}  // namespace snr::infra
