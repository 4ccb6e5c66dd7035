// Fuzz target for the perturbation configuration reader: any bytes are read
// as a perturbation file and resolved against a small three-dimensional
// network (Ring 4 x FullyConnected 3 x Switch 2); bad input must end in
// snr::Error, never a crash, and resolved factors must be in range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/error.h"
#include "dsim/perturbation/perturbation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const snr::dsim::NetworkConfig network = snr::dsim::parse_network_config(
      "topology: [Ring, FullyConnected, Switch]\nnpus_count: [4, 3, 2]\nbandwidth: [50, 50, 50]\n"
      "latency: [500, 500, 500]\n",
      "fuzz");
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto perturbations =
        snr::dsim::resolve_perturbations(snr::dsim::parse_perturbation_config(text, "fuzz"), network);
    for (const double factor : perturbations.compute_slowdown) {
      if (!(factor >= snr::dsim::kMinPerturbationFactor) || factor > snr::dsim::kMaxPerturbationFactor) std::abort();
    }
    if (!perturbations.bandwidth.empty()) {
      for (uint32_t npu = 0; npu < 24; ++npu) {
        if (!(perturbations.bandwidth.to_switch(2, npu) > 0)) std::abort();
        if (!(perturbations.bandwidth.between(0, npu, npu - npu % 4 + (npu + 1) % 4) > 0)) std::abort();
      }
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
