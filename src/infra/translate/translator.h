// Translators (seed 003 §4.7.1): one fully qualified, annotated graph to a
// network backend's own input files. Registered by name, one per file.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "infra/annotations.h"
#include "infra/graph.h"

namespace snr::infra {

struct TranslatedFile {
  std::string name;     // file name inside the output directory
  std::string content;
};

class Translator {
 public:
  virtual ~Translator() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view description() const = 0;
  // The backend's files; throws snr::Error when the graph cannot be
  // expressed for this backend, saying what does not fit.
  [[nodiscard]] virtual std::vector<TranslatedFile> translate(const Graph& graph,
                                                              const Annotations& annotations) const = 0;
  // The `snr sim --network-backend` names that read this translation, and
  // which of its files they take as --network-configuration (none: the
  // translation is for inspection or for another tool).
  [[nodiscard]] virtual std::vector<std::string_view> sim_backends() const { return {}; }
  [[nodiscard]] virtual std::string_view network_configuration_file() const { return {}; }
};

bool register_translator(std::unique_ptr<Translator> translator);
[[nodiscard]] const Translator* find_translator(std::string_view name);  // throws listing the names when unknown
[[nodiscard]] std::vector<const Translator*> all_translators();

// The translator whose output `snr sim --network-backend sim_backend` reads;
// throws naming the backends that have one when none does.
[[nodiscard]] const Translator* find_translator_for_sim_backend(std::string_view sim_backend);

// The --network-configuration text of `sim_backend` for an annotated graph,
// with every file of the translation (to write beside the results).
struct SimNetworkTranslation {
  std::string translator;
  std::string network_file;  // which of `files` is the network configuration
  std::string network_text;
  std::vector<TranslatedFile> files;
};
[[nodiscard]] SimNetworkTranslation translate_for_sim_backend(const Graph& graph, const Annotations& annotations,
                                                              std::string_view sim_backend);

}  // namespace snr::infra

#define SNR_REGISTER_TRANSLATOR(cls) \
  [[maybe_unused]] static const bool snr_translator_registered_##cls = ::snr::infra::register_translator(std::make_unique<cls>())
