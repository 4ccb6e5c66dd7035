#include "dsim/perturbation/perturbation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"

namespace snr::dsim {
namespace {

using Json = nlohmann::json;

// Every entry is an object with these keys; `required` ones must be there.
void check_keys(const Json& entry, const std::string& where, std::initializer_list<std::string_view> required,
                std::initializer_list<std::string_view> optional) {
  if (!entry.is_object()) throw Error(fmt::format("{}: must be an object", where));
  for (const auto& [key, value] : entry.items()) {
    bool known = false;
    for (const auto k : required) known = known || key == k;
    for (const auto k : optional) known = known || key == k;
    if (!known) {
      std::vector<std::string_view> all(required);
      all.insert(all.end(), optional.begin(), optional.end());
      throw Error(fmt::format("{}: unknown key '{}' (keys: {})", where, key, fmt::join(all, ", ")));
    }
  }
  for (const auto k : required) {
    if (!entry.contains(k)) throw Error(fmt::format("{}: missing key '{}'", where, k));
  }
}

uint64_t read_index(const Json& value, const std::string& key) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) throw Error(fmt::format("{}: {} is negative", key, value.get<int64_t>()));
  throw Error(fmt::format("{}: must be a non-negative integer", key));
}

double read_factor(const Json& value, const std::string& key) {
  if (!value.is_number()) throw Error(fmt::format("{}: must be a number", key));
  const double factor = value.get<double>();
  if (!(factor >= kMinPerturbationFactor) || factor > kMaxPerturbationFactor) {
    throw Error(fmt::format("{}: {:g} is out of range [{:g}, {:g}]", key, factor, kMinPerturbationFactor,
                            kMaxPerturbationFactor));
  }
  return factor;
}

const Json& read_list(const Json& root, std::string_view key) {
  const Json& list = root.at(std::string(key));
  if (!list.is_array()) throw Error(fmt::format("{}: must be a list of objects", key));
  return list;
}

}  // namespace

PerturbationConfig parse_perturbation_config(std::string_view json_text, std::string_view source) {
  return with_error_context(fmt::format("perturbation configuration {}", source), [&] {
    const Json root = parse_json_input(json_text, "");
    if (!root.is_object()) throw Error("top level must be a JSON object");
    PerturbationConfig config;
    config.source = std::string(source);
    // The first entry naming each thing, for the duplicate message.
    std::map<uint64_t, size_t> compute_seen;
    std::map<std::pair<uint64_t, uint64_t>, size_t> link_seen;
    std::map<uint64_t, size_t> dimension_seen;
    std::map<std::pair<uint64_t, int64_t>, size_t> npu_link_seen;
    for (const auto& [key, value] : root.items()) {
      if (key == "description") {
        if (!value.is_string()) throw Error("description: must be a string");
      } else if (key == "compute") {
        const Json& list = read_list(root, key);
        for (size_t i = 0; i < list.size(); ++i) {
          const std::string where = fmt::format("compute[{}]", i);
          check_keys(list[i], where, {"npu", "slowdown"}, {});
          ComputeSlowdown entry{read_index(list[i]["npu"], where + ".npu"),
                                read_factor(list[i]["slowdown"], where + ".slowdown")};
          if (const auto [it, fresh] = compute_seen.emplace(entry.npu, i); !fresh) {
            throw Error(fmt::format("{}.npu: NPU {} is already slowed by compute[{}]", where, entry.npu, it->second));
          }
          config.compute.push_back(entry);
        }
      } else if (key == "links") {
        const Json& list = read_list(root, key);
        for (size_t i = 0; i < list.size(); ++i) {
          const std::string where = fmt::format("links[{}]", i);
          check_keys(list[i], where, {"src", "dst", "bandwidth_factor"}, {});
          LinkBandwidthEntry entry{read_index(list[i]["src"], where + ".src"),
                                   read_index(list[i]["dst"], where + ".dst"),
                                   read_factor(list[i]["bandwidth_factor"], where + ".bandwidth_factor")};
          if (entry.src == entry.dst) throw Error(fmt::format("{}: src and dst are both NPU {}", where, entry.src));
          if (const auto [it, fresh] = link_seen.emplace(std::pair{entry.src, entry.dst}, i); !fresh) {
            throw Error(fmt::format("{}: link {} -> {} is already given by links[{}]", where, entry.src, entry.dst,
                                    it->second));
          }
          config.links.push_back(entry);
        }
      } else if (key == "dimensions") {
        const Json& list = read_list(root, key);
        for (size_t i = 0; i < list.size(); ++i) {
          const std::string where = fmt::format("dimensions[{}]", i);
          check_keys(list[i], where, {"dimension", "bandwidth_factor"}, {});
          DimensionBandwidthEntry entry{read_index(list[i]["dimension"], where + ".dimension"),
                                        read_factor(list[i]["bandwidth_factor"], where + ".bandwidth_factor")};
          if (const auto [it, fresh] = dimension_seen.emplace(entry.dimension, i); !fresh) {
            throw Error(fmt::format("{}.dimension: dimension {} is already given by dimensions[{}]", where,
                                    entry.dimension, it->second));
          }
          config.dimensions.push_back(entry);
        }
      } else if (key == "npu_links") {
        const Json& list = read_list(root, key);
        for (size_t i = 0; i < list.size(); ++i) {
          const std::string where = fmt::format("npu_links[{}]", i);
          check_keys(list[i], where, {"npu", "bandwidth_factor"}, {"dimension"});
          NpuLinksBandwidthEntry entry;
          entry.npu = read_index(list[i]["npu"], where + ".npu");
          if (list[i].contains("dimension")) {
            const uint64_t dim = read_index(list[i]["dimension"], where + ".dimension");
            // Any real network has far fewer dimensions; the bound keeps the cast exact.
            if (dim > 1024) throw Error(fmt::format("{}.dimension: {} is out of range", where, dim));
            entry.dimension = static_cast<int64_t>(dim);
          }
          entry.factor = read_factor(list[i]["bandwidth_factor"], where + ".bandwidth_factor");
          if (const auto [it, fresh] = npu_link_seen.emplace(std::pair{entry.npu, entry.dimension}, i); !fresh) {
            throw Error(fmt::format("{}: NPU {}'s links are already given by npu_links[{}]", where, entry.npu,
                                    it->second));
          }
          config.npu_links.push_back(entry);
        }
      } else {
        throw Error(fmt::format("unknown key '{}' (keys: description, compute, links, dimensions, npu_links)", key));
      }
    }
    return config;
  });
}

PerturbationConfig load_perturbation_config(const std::filesystem::path& path) {
  return parse_perturbation_config(read_file(path), path.string());
}

double LinkBandwidthFactors::between(size_t dim, NpuId from, NpuId to) const {
  double factor = dimension_[dim] * npu_factor(dim, from) * npu_factor(dim, to);
  if (!links_.empty()) {
    const auto it = links_.find(link_key(dim, from, to));
    if (it != links_.end()) factor *= it->second;
  }
  return factor;
}

double LinkBandwidthFactors::to_switch(size_t dim, NpuId npu) const { return dimension_[dim] * npu_factor(dim, npu); }

double LinkBandwidthFactors::from_switch(size_t dim, NpuId npu) const {
  return dimension_[dim] * npu_factor(dim, npu);
}

class PerturbationResolver {
 public:
  static Perturbations resolve(const PerturbationConfig& config, const NetworkConfig& network) {
    return with_error_context(fmt::format("perturbation configuration {}", config.source), [&] {
      const uint64_t npus = network.npus_count();
      const size_t dims = network.dimensions.size();
      auto check_npu = [&](uint64_t npu, const std::string& key) {
        if (npu >= npus) {
          throw Error(fmt::format("{}: NPU {} does not exist (the network has {} NPUs)", key, npu, npus));
        }
      };
      auto check_dimension = [&](uint64_t dim, const std::string& key) {
        if (dim >= dims) {
          throw Error(fmt::format("{}: dimension {} does not exist (the network has {})", key, dim, dims));
        }
      };
      Perturbations result;
      if (!config.compute.empty()) {
        result.compute_slowdown.assign(npus, 1.0);
        for (size_t i = 0; i < config.compute.size(); ++i) {
          const auto& entry = config.compute[i];
          check_npu(entry.npu, fmt::format("compute[{}].npu", i));
          result.compute_slowdown[entry.npu] = entry.factor;
        }
      }
      LinkBandwidthFactors& bw = result.bandwidth;
      bw.npus_ = npus;
      bw.dimension_.assign(dims, 1.0);
      bw.npu_.resize(dims);
      bw.empty_ = config.links.empty() && config.dimensions.empty() && config.npu_links.empty();
      for (size_t i = 0; i < config.dimensions.size(); ++i) {
        const auto& entry = config.dimensions[i];
        check_dimension(entry.dimension, fmt::format("dimensions[{}].dimension", i));
        bw.dimension_[entry.dimension] = entry.factor;
      }
      for (size_t i = 0; i < config.npu_links.size(); ++i) {
        const auto& entry = config.npu_links[i];
        check_npu(entry.npu, fmt::format("npu_links[{}].npu", i));
        if (entry.dimension >= 0) {
          check_dimension(static_cast<uint64_t>(entry.dimension), fmt::format("npu_links[{}].dimension", i));
        }
        for (size_t d = 0; d < dims; ++d) {
          if (entry.dimension >= 0 && static_cast<size_t>(entry.dimension) != d) continue;
          if (bw.npu_[d].empty()) bw.npu_[d].assign(npus, 1.0);
          bw.npu_[d][entry.npu] *= entry.factor;
        }
      }
      const DimensionLayoutView layout(network);
      for (size_t i = 0; i < config.links.size(); ++i) {
        const auto& entry = config.links[i];
        const std::string where = fmt::format("links[{}]", i);
        check_npu(entry.src, where + ".src");
        check_npu(entry.dst, where + ".dst");
        const auto src = static_cast<NpuId>(entry.src);
        const auto dst = static_cast<NpuId>(entry.dst);
        const size_t dim = layout.only_differing_dimension(src, dst, where);
        const auto& d = network.dimensions[dim];
        const uint32_t a = layout.coordinate(src, dim);
        const uint32_t b = layout.coordinate(dst, dim);
        if (d.topology == TopologyKind::kSwitch) {
          throw Error(fmt::format("{}: NPUs {} and {} meet through dimension {}'s switch, not a direct link; give "
                                  "their switch links with npu_links",
                                  where, src, dst, dim));
        }
        if (d.topology == TopologyKind::kRing && (a + 1) % d.npus_count != b && (b + 1) % d.npus_count != a) {
          throw Error(fmt::format("{}: NPUs {} and {} are not neighbours in Ring dimension {} (positions {} and {} "
                                  "of {})",
                                  where, src, dst, dim, a, b, d.npus_count));
        }
        bw.links_[bw.link_key(dim, src, dst)] = entry.factor;
      }
      return result;
    });
  }

 private:
  // Coordinates with dimension 0 varying fastest, as the network lays NPUs out.
  class DimensionLayoutView {
   public:
    explicit DimensionLayoutView(const NetworkConfig& network) : network_(network) {
      uint64_t stride = 1;
      for (const auto& d : network.dimensions) {
        strides_.push_back(stride);
        stride *= d.npus_count;
      }
    }
    [[nodiscard]] uint32_t coordinate(NpuId npu, size_t dim) const {
      return static_cast<uint32_t>((npu / strides_[dim]) % network_.dimensions[dim].npus_count);
    }
    [[nodiscard]] size_t only_differing_dimension(NpuId src, NpuId dst, const std::string& where) const {
      std::vector<size_t> differing;
      for (size_t d = 0; d < strides_.size(); ++d) {
        if (coordinate(src, d) != coordinate(dst, d)) differing.push_back(d);
      }
      if (differing.size() != 1) {
        throw Error(fmt::format("{}: NPUs {} and {} differ in {} dimensions ({}); a link joins NPUs that differ in "
                                "exactly one",
                                where, src, dst, differing.size(), fmt::join(differing, ", ")));
      }
      return differing.front();
    }

   private:
    const NetworkConfig& network_;
    std::vector<uint64_t> strides_;
  };
};

Perturbations resolve_perturbations(const PerturbationConfig& config, const NetworkConfig& network) {
  return PerturbationResolver::resolve(config, network);
}

}  // namespace snr::dsim
