#include "dsim/network/noc/fabric_routing.h"

#include <fmt/format.h>

#include <deque>
#include <limits>

#include "common/error.h"
#include "common/hash.h"

namespace snr::dsim {
namespace {

constexpr uint32_t kFar = std::numeric_limits<uint32_t>::max();

uint32_t pick_first(uint32_t /*candidates*/, uint64_t /*seed*/, uint64_t /*flow*/, uint32_t /*node*/,
                    uint32_t /*dst*/) {
  return 0;
}

// Every node hashes with its own identity in the key, as switches seed
// their hash functions differently: otherwise each tier would make the
// same choice and use the same fraction of its uplinks.
uint32_t pick_by_flow(uint32_t candidates, uint64_t seed, uint64_t flow, uint32_t node, uint32_t dst) {
  uint64_t h = fnv1a64_u64(seed);
  h = fnv1a64_u64(flow, h);
  h = fnv1a64_u64((uint64_t{node} << 32) | dst, h);
  // FNV's low bits mix poorly for small counts; fold the high half in.
  return static_cast<uint32_t>((h ^ (h >> 29)) % candidates);
}

// Directed links of the configuration: a bidirectional link is two.
std::vector<NocDirectedLink> directed_links(const NocFabricConfig& config) {
  std::vector<NocDirectedLink> out;
  out.reserve(2 * config.links.size());
  for (uint32_t l = 0; l < config.links.size(); ++l) {
    const NocFabricLink& link = config.links[l];
    out.push_back({link.from, link.to, l});
    if (link.bidirectional) out.push_back({link.to, link.from, l});
  }
  return out;
}

// Nodes reachable from `start` following out-links (forward) or in-links.
std::vector<bool> reachable(uint32_t nodes, const std::vector<NocDirectedLink>& links, uint32_t start, bool forward) {
  std::vector<std::vector<uint32_t>> next(nodes);
  for (const NocDirectedLink& link : links) {
    if (forward) {
      next[link.from].push_back(link.to);
    } else {
      next[link.to].push_back(link.from);
    }
  }
  std::vector<bool> seen(nodes, false);
  std::vector<uint32_t> stack{start};
  seen[start] = true;
  while (!stack.empty()) {
    const uint32_t node = stack.back();
    stack.pop_back();
    for (const uint32_t peer : next[node]) {
      if (!seen[peer]) {
        seen[peer] = true;
        stack.push_back(peer);
      }
    }
  }
  return seen;
}

}  // namespace

const std::vector<NocEcmpPolicy>& noc_ecmp_policies() {
  static const std::vector<NocEcmpPolicy> policies = {
      {"flow", "a hash of (seed, message, node, destination): each message keeps one path, messages spread",
       &pick_by_flow},
      {"first", "the equal next hop listed first in the file (no multipath)", &pick_first},
  };
  return policies;
}

const NocEcmpPolicy* find_noc_ecmp_policy(std::string_view name) {
  for (const NocEcmpPolicy& policy : noc_ecmp_policies()) {
    if (policy.name == name) return &policy;
  }
  return nullptr;
}

std::string noc_ecmp_names() {
  std::string out;
  for (const NocEcmpPolicy& policy : noc_ecmp_policies()) out += fmt::format("{}{}", out.empty() ? "" : ", ", policy.name);
  return out;
}

bool noc_fabric_connected(const NocFabricConfig& config, uint32_t& from, uint32_t& to) {
  // Every pair is connected when NPU 0 reaches every NPU and every NPU
  // reaches NPU 0 (through it, if not directly).
  const std::vector<NocDirectedLink> links = directed_links(config);
  const std::vector<bool> out_of_0 = reachable(config.node_count(), links, 0, true);
  const std::vector<bool> into_0 = reachable(config.node_count(), links, 0, false);
  for (uint32_t npu = 1; npu < config.npus(); ++npu) {
    if (!out_of_0[npu]) {
      from = 0;
      to = npu;
      return false;
    }
    if (!into_0[npu]) {
      from = npu;
      to = 0;
      return false;
    }
  }
  return true;
}

NocFabricRoutes::NocFabricRoutes(const NocFabricConfig& config)
    : policy_(find_noc_ecmp_policy(config.ecmp)),
      seed_(config.ecmp_seed),
      links_(directed_links(config)),
      out_(config.node_count()),
      in_(config.node_count()),
      hops_(config.npus()) {
  if (policy_ == nullptr) {
    throw Error(fmt::format("noc backend: unknown ecmp policy '{}' (known: {})", config.ecmp, noc_ecmp_names()));
  }
  for (uint32_t l = 0; l < links_.size(); ++l) {
    out_[links_[l].from].push_back(l);
    in_[links_[l].to].push_back(l);
  }
}

const std::vector<uint32_t>& NocFabricRoutes::hops_to(uint32_t dst) {
  std::vector<uint32_t>& hops = hops_[dst];
  if (!hops.empty()) return hops;
  // Breadth first backwards from dst over incoming links.
  hops.assign(out_.size(), kFar);
  hops[dst] = 0;
  std::deque<uint32_t> frontier{dst};
  while (!frontier.empty()) {
    const uint32_t node = frontier.front();
    frontier.pop_front();
    for (const uint32_t l : in_[node]) {
      const uint32_t peer = links_[l].from;
      if (hops[peer] == kFar) {
        hops[peer] = hops[node] + 1;
        frontier.push_back(peer);
      }
    }
  }
  return hops;
}

void NocFabricRoutes::path(uint32_t src, uint32_t dst, uint64_t flow, std::vector<uint32_t>& out) {
  const std::vector<uint32_t>& hops = hops_to(dst);
  out.clear();
  if (hops[src] == kFar) {
    // The configuration was checked to be connected; this would be a bug.
    throw Error(fmt::format("noc backend: node {} has no path to NPU {}", src, dst));
  }
  uint32_t node = src;
  while (node != dst) {
    candidates_.clear();
    for (const uint32_t l : out_[node]) {
      if (hops[links_[l].to] + 1 == hops[node]) candidates_.push_back(l);
    }
    const uint32_t chosen = candidates_[policy_->pick(static_cast<uint32_t>(candidates_.size()), seed_, flow, node, dst)];
    out.push_back(chosen);
    node = links_[chosen].to;
  }
}

}  // namespace snr::dsim
