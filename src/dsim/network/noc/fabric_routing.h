// Routing of the NoC-level fabric backend: shortest paths in hops over the
// configuration's directed links, with a deterministic choice among equal
// ones made by an ECMP policy chosen by name (as the GPU NoC chooses its
// mesh routing and link arbitration by name). A message's path is fixed
// when it is sent, so its segments stay in order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/network/noc/fabric_config.h"

namespace snr::dsim {

// How a node picks one of `candidates` (> 0) equal next hops toward `dst`
// for message `flow`; the same inputs always give the same choice.
struct NocEcmpPolicy {
  std::string_view name;
  std::string_view summary;
  uint32_t (*pick)(uint32_t candidates, uint64_t seed, uint64_t flow, uint32_t node, uint32_t dst);
};

const std::vector<NocEcmpPolicy>& noc_ecmp_policies();
// nullptr when no policy has that name.
const NocEcmpPolicy* find_noc_ecmp_policy(std::string_view name);
std::string noc_ecmp_names();  // "flow, first" for errors

// One direction of a configuration link.
struct NocDirectedLink {
  uint32_t from = 0;
  uint32_t to = 0;
  uint32_t config_link = 0;  // index into NocFabricConfig::links
};

class NocFabricRoutes {
 public:
  // Throws snr::Error for an unknown ECMP policy.
  explicit NocFabricRoutes(const NocFabricConfig& config);

  [[nodiscard]] const std::vector<NocDirectedLink>& links() const { return links_; }
  // The directed links from NPU `src` to NPU `dst` (src != dst), in order.
  void path(uint32_t src, uint32_t dst, uint64_t flow, std::vector<uint32_t>& out);

 private:
  // Hops from every node to NPU `dst` (UINT32_MAX: cannot reach it),
  // computed on first use: most runs talk to few destinations per source.
  const std::vector<uint32_t>& hops_to(uint32_t dst);

  const NocEcmpPolicy* policy_;
  uint64_t seed_;
  std::vector<NocDirectedLink> links_;
  std::vector<std::vector<uint32_t>> out_;  // per node: its outgoing directed links, in file order
  std::vector<std::vector<uint32_t>> in_;   // per node: its incoming directed links
  std::vector<std::vector<uint32_t>> hops_;  // per NPU, empty until asked
  std::vector<uint32_t> candidates_;         // scratch
};

// Whether every NPU reaches every other over the directed links; when not,
// `from` and `to` name one pair that does not.
bool noc_fabric_connected(const NocFabricConfig& config, uint32_t& from, uint32_t& to);

}  // namespace snr::dsim
