// Fuzz target for the NoC-level fabric backend's configuration reader: bad
// input must end in snr::Error, and whatever reads must write back to YAML
// that reads again to the same configuration.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/error.h"
#include "dsim/network/noc/fabric_config.h"

namespace {

bool same_links(const snr::dsim::NocFabricConfig& a, const snr::dsim::NocFabricConfig& b) {
  if (a.links.size() != b.links.size()) return false;
  for (size_t i = 0; i < a.links.size(); ++i) {
    const auto& x = a.links[i];
    const auto& y = b.links[i];
    if (x.from != y.from || x.to != y.to || x.bandwidth_gbps != y.bandwidth_gbps || x.latency_ns != y.latency_ns ||
        x.bidirectional != y.bidirectional) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  snr::dsim::NocFabricConfig config;
  try {
    config = snr::dsim::parse_noc_fabric(text, "fuzz");
  } catch (const snr::Error&) {
    return 0;
  }
  // A count of a few bytes makes up to 2^20 named nodes, all valid; writing
  // and reading such a fabric back costs seconds of YAML, not coverage, so
  // the round trip is checked on fabrics of up to this many nodes.
  constexpr size_t kMaxRoundTripNodes = 4096;
  if (config.npu_names.size() + config.switch_names.size() > kMaxRoundTripNodes) return 0;
  const auto back = snr::dsim::parse_noc_fabric(snr::dsim::noc_fabric_yaml(config, "fuzz"), "written");
  if (back.npu_names != config.npu_names || back.switch_names != config.switch_names || !same_links(back, config) ||
      back.segment_bytes != config.segment_bytes || back.segment_header_bytes != config.segment_header_bytes ||
      back.ecmp != config.ecmp || back.ecmp_seed != config.ecmp_seed || back.logical_dims != config.logical_dims) {
    std::abort();
  }
  return 0;
}
