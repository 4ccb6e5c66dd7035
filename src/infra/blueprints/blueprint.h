// Blueprints (seed 003 §4.6.3): parameterized generators of InfraGraph
// documents, registered by name, each in its own file with its own
// parameters. Device blueprints produce a bare Device document; fabric
// blueprints produce an Infrastructure that embeds the devices it uses.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/infragraph/model.h"

namespace snr::infra {

struct BlueprintParameter {
  std::string name;
  std::string default_value;
  std::string description;
};

// Parameter values after defaults and type checks; getters name the
// blueprint and parameter in their errors.
class BlueprintArgs {
 public:
  BlueprintArgs(std::string blueprint, std::map<std::string, std::string> values)
      : blueprint_(std::move(blueprint)), values_(std::move(values)) {}
  [[nodiscard]] int64_t get_int(const std::string& name, int64_t min, int64_t max) const;
  [[nodiscard]] double get_number(const std::string& name, double min, double max) const;
  [[nodiscard]] const std::string& get_string(const std::string& name) const;
  [[noreturn]] void fail(const std::string& name, const std::string& message) const;

 private:
  std::string blueprint_;
  std::map<std::string, std::string> values_;
};

class Blueprint {
 public:
  virtual ~Blueprint() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view description() const = 0;
  [[nodiscard]] virtual bool is_device() const = 0;
  [[nodiscard]] virtual std::vector<BlueprintParameter> parameters() const = 0;
  [[nodiscard]] virtual infragraph::Infrastructure build(const BlueprintArgs& args) const = 0;
};

bool register_blueprint(std::unique_ptr<Blueprint> blueprint);
[[nodiscard]] const Blueprint* find_blueprint(std::string_view name);
[[nodiscard]] std::vector<const Blueprint*> all_blueprints();  // sorted by name

// Builds `name` with `settings` (key=value pairs as given on the command
// line); unknown keys and malformed values are errors listing the valid ones.
infragraph::Infrastructure build_blueprint(std::string_view name,
                                           const std::vector<std::pair<std::string, std::string>>& settings);

// The device a device blueprint builds with its defaults overridden by
// `settings` (used by fabric blueprints to embed their hosts).
infragraph::Device build_device_blueprint(std::string_view name,
                                          const std::vector<std::pair<std::string, std::string>>& settings = {});

// Small helpers for writing blueprints.
infragraph::Link make_link(std::string name, std::string description, double gigabits_per_second,
                           double latency_ns = -1);
infragraph::Link make_link_gigabytes(std::string name, std::string description, double gigabytes_per_second,
                                     double latency_ns = -1);
infragraph::DeviceEdge device_edge(std::string ep1, std::string ep2, infragraph::Scheme scheme, std::string link);
infragraph::InfrastructureEdge infra_edge(std::string instance1, std::string component1, std::string instance2,
                                          std::string component2, std::string link);

}  // namespace snr::infra

#define SNR_REGISTER_BLUEPRINT(cls) \
  [[maybe_unused]] static const bool snr_blueprint_registered_##cls = ::snr::infra::register_blueprint(std::make_unique<cls>())
