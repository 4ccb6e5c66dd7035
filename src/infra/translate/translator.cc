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

const Translator* find_translator_for_sim_backend(std::string_view sim_backend) {
  std::string served;
  for (const auto& [n, t] : registry()) {
    for (std::string_view backend : t->sim_backends()) {
      if (backend == sim_backend) return t.get();
      served += fmt::format("{}{} (from '{}')", served.empty() ? "" : ", ", backend, n);
    }
  }
  throw Error(fmt::format("no InfraGraph translation feeds network backend '{}'; backends that read one: {}",
                          sim_backend, served.empty() ? "none" : served));
}

SimNetworkTranslation translate_for_sim_backend(const Graph& graph, const Annotations& annotations,
                                                std::string_view sim_backend) {
  const Translator* translator = find_translator_for_sim_backend(sim_backend);
  SimNetworkTranslation out;
  out.translator = translator->name();
  out.network_file = translator->network_configuration_file();
  out.files = translator->translate(graph, annotations);
  for (const TranslatedFile& file : out.files) {
    if (file.name == out.network_file) out.network_text = file.content;
  }
  if (out.network_text.empty()) {
    throw Error(fmt::format("translator '{}' wrote no '{}' for network backend '{}'", out.translator,
                            out.network_file, sim_backend));
  }
  return out;
}

}  // namespace snr::infra
