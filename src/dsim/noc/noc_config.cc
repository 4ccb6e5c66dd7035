#include "dsim/noc/noc_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/yaml_input.h"
#include "dsim/noc/arbitration.h"
#include "dsim/noc/routing.h"

namespace snr::dsim::noc {

std::vector<uint32_t> NocConfig::side_routers(const std::vector<Side>& sides) const {
  std::vector<uint32_t> out;
  for (Side side : sides) {
    switch (side) {
      case Side::kTop:
        for (uint32_t x = 0; x < columns; ++x) out.push_back(x);
        break;
      case Side::kBottom:
        for (uint32_t x = 0; x < columns; ++x) out.push_back((rows - 1) * columns + x);
        break;
      case Side::kLeft:
        for (uint32_t y = 0; y < rows; ++y) out.push_back(y * columns);
        break;
      case Side::kRight:
        for (uint32_t y = 0; y < rows; ++y) out.push_back(y * columns + columns - 1);
        break;
    }
  }
  return out;
}

std::vector<std::string> noc_presets() {
  return {"generic-448", "dgx-a100", "dgx-h100"};
}

bool is_noc_preset(std::string_view name) {
  const auto presets = noc_presets();
  return std::find(presets.begin(), presets.end(), name) != presets.end();
}

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
double gib_per_s(double gb_per_s) { return gb_per_s * 1e9 / kGiB; }

// DGX A100 and DGX H100 (docs/nccl-fidelity.md). Inside the GPU a 4x3 mesh:
// each router stands for a slice of the crossbar with 9 (A100) or 11 (H100)
// SMs; the 8 top and bottom routers hold the HBM channels (A100: 5 HBM2e
// stacks x 8 channels = 40, 2039 GB/s; H100: 5 HBM3 stacks x 16 channels =
// 80, 3350 GB/s), the 6 left and right routers the NVLink ports (A100: 12
// NVLink3, H100: 18 NVLink4, 25 GB/s per direction each). Port p of every GPU
// reaches switch plane p: the NVSwitch chips (6 on DGX A100, 4 on DGX H100)
// are non-blocking crossbars, so one plane per GPU link carries the same
// traffic. The mesh is kept small on purpose: on-chip traffic does not bound
// these collectives and every hop costs simulation time.
//
// Two constants are fitted to measured NCCL all-reduce times on DGX A100
// (bench/collectives/nccl_fidelity.py) and used unchanged for H100:
//   kNvlinkDataEfficiency  the share of a link's 25 GB/s that carries
//                          payload (NVLink packet headers and flow control);
//   kNvlinkLatencyNs       one-way latency of a store from an NVLink port
//                          through an NVSwitch to the peer's port, including
//                          the receiver noticing it (its poll loop).
// The HBM access latency is published, not fitted: about 400 SM cycles of
// global-memory latency on both GPUs (less the few on-chip hops).
constexpr double kNvlinkGbPerS = 25.0;
constexpr double kNvlinkDataEfficiency = 0.70;
constexpr double kNvlinkLatencyNs = 1300;
constexpr double kHbmAccessLatencyNs = 250;

NocConfig dgx_network(std::string name, uint32_t sms_per_router, uint32_t channels_per_router,
                      double hbm_gb_per_s, uint32_t ports_per_router, double sm_link_gb_per_s) {
  NocConfig c;
  c.name = std::move(name);
  c.columns = 4;
  c.rows = 3;
  c.router_link = {2048, 2};
  c.cus_per_router = sms_per_router;
  c.cu_link = {gib_per_s(sm_link_gb_per_s), 0};
  c.hbm_sides = {Side::kTop, Side::kBottom};
  c.hbm_per_router = channels_per_router;
  c.hbm_link = {gib_per_s(hbm_gb_per_s / (8.0 * channels_per_router)), 0};
  c.hbm_access_latency_ns = kHbmAccessLatencyNs;
  c.io_sides = {Side::kLeft, Side::kRight};
  c.io_per_router = ports_per_router;
  const double link = gib_per_s(kNvlinkGbPerS * kNvlinkDataEfficiency);
  c.io_link = {link, 0};
  c.scale_up_link = {link, kNvlinkLatencyNs};
  return c;
}

}  // namespace

NocConfig noc_config_preset(std::string_view name) {
  if (name == "generic-448") return NocConfig{};
  // An SM moves 64 bytes per cycle to and from the memory system.
  if (name == "dgx-a100") return dgx_network("dgx-a100", 9, 5, 2039, 2, 64 * 1.41);
  if (name == "dgx-h100") {
    NocConfig c = dgx_network("dgx-h100", 11, 10, 3350, 3, 64 * 1.98);
    // Third-generation NVSwitch multicasts and reduces in the switch (NVLS).
    // No per-port reduction rate is published: the plane's engine is given
    // the raw NVLink rate of each of the node's 8 GPU ports, so the links,
    // not the reduction, bound it.
    c.scale_up_multicast = true;
    c.switch_reduce = {gib_per_s(8 * kNvlinkGbPerS), 0};
    return c;
  }
  throw Error(fmt::format("unknown network preset '{}' (known: generic-448, dgx-a100, dgx-h100; or give a YAML file)",
                          name));
}

namespace {

int line_of(const YAML::Node& node) {
  return node.Mark().line + 1;
}

uint32_t read_count(const YAML::Node& v, const std::string& key, uint32_t min, uint32_t max) {
  uint64_t value = 0;
  try {
    if (!v.IsScalar() || v.Scalar().empty() || v.Scalar()[0] == '-' || v.Scalar()[0] == '+') {
      throw YAML::Exception(v.Mark(), "");
    }
    value = v.as<uint64_t>();
  } catch (const YAML::Exception&) {
    throw Error(fmt::format("key '{}' must be a whole number (line {})", key, line_of(v)));
  }
  if (value < min || value > max) {
    throw Error(
        fmt::format("key '{}' = {} is out of range (line {}): valid {} .. {}", key, value, line_of(v), min, max));
  }
  return static_cast<uint32_t>(value);
}

double read_real(const YAML::Node& v, const std::string& key, double min, double max) {
  double value = 0;
  try {
    if (!v.IsScalar()) throw YAML::Exception(v.Mark(), "");
    value = v.as<double>();
  } catch (const YAML::Exception&) {
    throw Error(fmt::format("key '{}' must be a number (line {})", key, line_of(v)));
  }
  if (!std::isfinite(value) || value < min || value > max) {
    throw Error(fmt::format("key '{}' = {} is out of range (line {}): valid {:g} .. {:g}", key, v.Scalar(), line_of(v),
                            min, max));
  }
  return value;
}

bool read_flag(const YAML::Node& v, const std::string& key) {
  if (v.IsScalar() && (v.Scalar() == "true" || v.Scalar() == "false")) return v.Scalar() == "true";
  throw Error(fmt::format("key '{}' must be true or false (line {})", key, line_of(v)));
}

std::string read_name(const YAML::Node& v, const std::string& key) {
  if (!v.IsScalar()) throw Error(fmt::format("key '{}' must be a name (line {})", key, line_of(v)));
  return v.Scalar();
}

using Setter = std::function<void(const YAML::Node&, const std::string&)>;

// Walks a mapping, calling the setter of each known key; anything else is
// an error naming the full key path.
void walk(const YAML::Node& map, const std::string& path, const std::map<std::string, Setter>& setters) {
  if (!map.IsMap()) throw Error(fmt::format("key '{}' must be a mapping (line {})", path, line_of(map)));
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) throw Error(fmt::format("keys must be plain names (line {})", line_of(entry.first)));
    const std::string key = entry.first.Scalar();
    const std::string full = path.empty() ? key : path + "." + key;
    auto it = setters.find(key);
    if (it == setters.end()) {
      std::string known;
      for (const auto& [name, setter] : setters) known += (known.empty() ? "" : ", ") + name;
      throw Error(fmt::format("unknown key '{}' (line {}): expected {}", full, line_of(entry.first), known));
    }
    it->second(entry.second, full);
  }
}

std::map<std::string, Setter> link_keys(LinkSpec& link) {
  return {
      {"bandwidth_gib_per_s",
       [&](const YAML::Node& v, const std::string& k) { link.bandwidth_gib_per_s = read_real(v, k, 1e-3, 1e6); }},
      {"latency_ns", [&](const YAML::Node& v, const std::string& k) { link.latency_ns = read_real(v, k, 0, 1e9); }}};
}

std::vector<Side> read_sides(const YAML::Node& v, const std::string& key) {
  if (!v.IsSequence() || v.size() == 0) {
    throw Error(
        fmt::format("key '{}' must be a non-empty list of top, bottom, left, right (line {})", key, line_of(v)));
  }
  std::vector<Side> sides;
  for (const YAML::Node& item : v) {
    const std::string name = read_name(item, key);
    if (name == "top")
      sides.push_back(Side::kTop);
    else if (name == "bottom")
      sides.push_back(Side::kBottom);
    else if (name == "left")
      sides.push_back(Side::kLeft);
    else if (name == "right")
      sides.push_back(Side::kRight);
    else
      throw Error(
          fmt::format("key '{}': unknown side '{}' (line {}): top, bottom, left or right", key, name, line_of(item)));
    if (std::find(sides.begin(), sides.end() - 1, sides.back()) != sides.end() - 1) {
      throw Error(fmt::format("key '{}': side '{}' is listed twice (line {})", key, name, line_of(item)));
    }
  }
  return sides;
}

}  // namespace

NocConfig parse_noc_config(std::string_view yaml_text, std::string_view source_name, const NocConfig& base) {
  return with_error_context(std::string(source_name), [&] {
    const YAML::Node root = load_yaml_document(yaml_text, source_name, "a network configuration");
    if (!root.IsMap()) throw Error("top level must be a mapping");
    NocConfig c = base;
    auto with_link = [](LinkSpec& link, std::map<std::string, Setter> extra) {
      std::map<std::string, Setter> keys = link_keys(link);
      keys.insert(extra.begin(), extra.end());
      return keys;
    };
    const std::map<std::string, Setter> network_keys{
        {"name", [&](const YAML::Node& v, const std::string& k) { c.name = read_name(v, k); }},
        {"mesh",
         [&](const YAML::Node& v, const std::string& k) {
           walk(v, k,
                {{"columns",
                  [&](const YAML::Node& n, const std::string& kk) { c.columns = read_count(n, kk, 1, 1024); }},
                 {"rows", [&](const YAML::Node& n, const std::string& kk) { c.rows = read_count(n, kk, 1, 1024); }}});
         }},
        {"routing",
         [&](const YAML::Node& v, const std::string& k) {
           c.routing = read_name(v, k);
           if (!has_routing(c.routing)) {
             throw Error(fmt::format("key '{}': unknown routing '{}' (line {}): {}", k, c.routing, line_of(v),
                                     routing_names()));
           }
         }},
        {"arbitration",
         [&](const YAML::Node& v, const std::string& k) {
           c.arbitration = read_name(v, k);
           if (!has_arbiter(c.arbitration)) {
             throw Error(fmt::format("key '{}': unknown arbitration '{}' (line {}): {}", k, c.arbitration, line_of(v),
                                     arbiter_names()));
           }
         }},
        {"router_link", [&](const YAML::Node& v, const std::string& k) { walk(v, k, link_keys(c.router_link)); }},
        {"compute_units",
         [&](const YAML::Node& v, const std::string& k) {
           walk(v, k, with_link(c.cu_link, {{"per_router", [&](const YAML::Node& n, const std::string& kk) {
                                               c.cus_per_router = read_count(n, kk, 1, 1024);
                                             }}}));
         }},
        {"hbm",
         [&](const YAML::Node& v, const std::string& k) {
           walk(v, k,
                with_link(
                    c.hbm_link,
                    {{"per_router", [&](const YAML::Node& n,
                                        const std::string& kk) { c.hbm_per_router = read_count(n, kk, 1, 1024); }},
                     {"sides", [&](const YAML::Node& n, const std::string& kk) { c.hbm_sides = read_sides(n, kk); }},
                     {"access_latency_ns", [&](const YAML::Node& n, const std::string& kk) {
                        c.hbm_access_latency_ns = read_real(n, kk, 0, 1e9);
                      }}}));
         }},
        {"io",
         [&](const YAML::Node& v, const std::string& k) {
           walk(v, k,
                with_link(
                    c.io_link,
                    {{"per_router", [&](const YAML::Node& n,
                                        const std::string& kk) { c.io_per_router = read_count(n, kk, 1, 1024); }},
                     {"sides", [&](const YAML::Node& n, const std::string& kk) { c.io_sides = read_sides(n, kk); }}}));
         }},
        {"scale_up",
         [&](const YAML::Node& v, const std::string& k) {
           walk(v, k,
                with_link(c.scale_up_link,
                          {{"topology",
                            [&](const YAML::Node& n, const std::string& kk) {
                              const std::string t = read_name(n, kk);
                              if (t != "switch") {
                                throw Error(fmt::format("key '{}': unknown topology '{}' (line {}): switch", kk, t,
                                                        line_of(n)));
                              }
                            }},
                           {"multicast",
                            [&](const YAML::Node& n, const std::string& kk) { c.scale_up_multicast = read_flag(n, kk); }},
                           {"reduction", [&](const YAML::Node& n, const std::string& kk) {
                              walk(n, kk, link_keys(c.switch_reduce));
                            }}}));
         }},
    };
    if (root["network"]) {
      walk(root, "",
           {{"network", [&](const YAML::Node& v, const std::string& k) { walk(v, k, network_keys); }},
            {"gpu", [](const YAML::Node&, const std::string&) {}}});
    } else {
      walk(root, "", network_keys);
    }
    if (uint64_t{c.endpoints()} > (uint64_t{1} << 22)) {
      throw Error(fmt::format("{} endpoints per GPU is more than the {} modelled", c.endpoints(), 1u << 22));
    }
    return c;
  });
}

NocConfig load_noc_config(const std::string& preset_or_path) {
  if (is_noc_preset(preset_or_path)) return noc_config_preset(preset_or_path);
  if (!std::filesystem::exists(preset_or_path)) {
    throw Error(fmt::format("'{}' is neither a network preset (generic-448, dgx-a100, dgx-h100) nor a file",
                            preset_or_path));
  }
  // A file that names no network is called by its path (see load_gpu_config).
  NocConfig base;
  base.name = preset_or_path;
  return parse_noc_config(read_file(preset_or_path), preset_or_path, base);
}

}  // namespace snr::dsim::noc
