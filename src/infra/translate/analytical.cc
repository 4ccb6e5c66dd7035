// The analytical translator (the paper's Simple translator): ranks become
// ASTRA-sim NPUs and the fabric becomes a multi-dimensional network of Ring,
// FullyConnected and Switch dimensions, dimension 0 varying fastest.
//
// Dimension 0 is the NPUs inside one device instance: a full mesh of direct
// links, a ring of direct links in rank order, or a set of switch
// components every NPU links to; a torus of direct links in rank order (TPU
// ICI) is one Ring dimension per torus dimension. Further dimensions come from the fabric:
// hosts that meet at switches of tier ≤ t form the groups of level t, and
// each level that merges groups is a Switch dimension whose size is the
// number of level t-1 groups per group. Without switches, hosts joined
// directly form one Ring or FullyConnected dimension.
//
// Per-dimension figures: bandwidth per NPU (the links into the level summed
// over the group, divided by its NPUs, and never above the level below nor
// the host's own way out, a PCIe link that is narrower than the NIC say);
// latency per hop (ASTRA-sim charges a Switch dimension two hops, one up
// and one down the tree) as an NPU's way out of its host (GPU to PCIe
// switch to NIC: the least latency, of the host's slowest NPU) plus the
// sum of the link latencies from the host up to the level's tier; hosts
// joined directly are one hop of both hosts' ways out and the link. Links
// that state no latency count 0 ns and are listed in translation.json.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "common/error.h"
#include "infra/queries.h"
#include "infra/translate/translator.h"

namespace snr::infra {
namespace {

using infragraph::ComponentChoice;

struct Dimension {
  std::string topology;
  uint64_t npus = 0;
  double bandwidth_bits_per_s = 0;
  double latency_ns = 0;
  std::string from;
};

class Context {
 public:
  explicit Context(const Graph& g) : g_(g) {}

  double bandwidth(LinkId l) {
    const auto& link = g_.links()[l];
    if (!link.bandwidth) {
      throw Error(fmt::format("analytical translation: link '{}' states no bandwidth, which this backend needs; "
                              "give the link one (physical: {{bandwidth: {{choice: gigabits_per_second, "
                              "gigabits_per_second: N}}}})",
                              link.qualified_name()));
    }
    return link.bandwidth_bits_per_s();
  }
  double latency(LinkId l) {
    const auto lat = g_.links()[l].latency_ns();
    if (!lat) missing_latency_.insert(g_.links()[l].qualified_name());
    return lat.value_or(0.0);
  }
  const std::set<std::string>& missing_latency() const { return missing_latency_; }

 private:
  const Graph& g_;
  std::set<std::string> missing_latency_;
};

// NPU i's next neighbour along the torus dimension of `size` NPUs whose
// coordinate steps by `stride` in rank order (wrapping around).
size_t torus_next(size_t i, size_t stride, size_t size) {
  const size_t coordinate = i / stride % size;
  return i - coordinate * stride + (coordinate + 1) % size * stride;
}

// The sizes of the k-ary torus that the direct links `direct` (pairs i < j)
// make of NPUs 0 .. n-1 in rank order, dimension 0 fastest, every dimension
// a ring of 3 or more (one dimension: a ring); empty when they are not one.
// Each size is the smallest that divides what is left and that NPU 0's
// links close as a ring (0 to stride and to (size - 1) * stride); the whole
// link set is then checked against that torus.
std::vector<size_t> torus_sizes(size_t n, const std::set<std::pair<size_t, size_t>>& direct) {
  std::vector<size_t> sizes;
  const auto linked = [&](size_t a, size_t b) { return direct.contains({std::min(a, b), std::max(a, b)}); };
  size_t stride = 1, left = n;
  while (left > 1) {
    if (!linked(0, stride)) return {};
    size_t size = 3;
    while (size <= left && (left % size != 0 || !linked(0, (size - 1) * stride))) ++size;
    if (size > left) return {};
    sizes.push_back(size);
    stride *= size;
    left /= size;
  }
  stride = 1;
  for (const size_t size : sizes) {
    for (size_t i = 0; i < n; ++i) {
      if (!linked(i, torus_next(i, stride, size))) return {};
    }
    stride *= size;
  }
  return direct.size() == n * sizes.size() ? sizes : std::vector<size_t>{};
}

// The dimensions of the NPUs `npus` (rank order) of one device instance:
// one, or a torus's rings (dimension 0 fastest).
std::vector<Dimension> local_dimensions(const Graph& g, Context& ctx, const std::vector<NodeId>& npus) {
  const size_t n = npus.size();
  std::map<NodeId, size_t> pos;
  for (size_t i = 0; i < n; ++i) pos[npus[i]] = i;
  // Direct NPU-NPU links.
  std::set<std::pair<size_t, size_t>> direct;
  double direct_bw = std::numeric_limits<double>::infinity(), direct_lat = 0;
  for (size_t i = 0; i < n; ++i) {
    for (const auto& adj : g.neighbours(npus[i])) {
      auto it = pos.find(adj.node);
      if (it == pos.end()) continue;
      direct.insert({std::min(i, it->second), std::max(i, it->second)});
      direct_bw = std::min(direct_bw, ctx.bandwidth(g.edges()[adj.edge].link));
      direct_lat = std::max(direct_lat, ctx.latency(g.edges()[adj.edge].link));
    }
  }
  const std::string host = g.device_instance_name(g.device_instance_of(npus[0]));
  if (direct.size() == n * (n - 1) / 2) {
    return {{"FullyConnected", n, direct_bw, direct_lat, host + ": full mesh of direct links"}};
  }
  if (const std::vector<size_t> sizes = torus_sizes(n, direct); sizes.size() == 1) {
    return {{"Ring", n, direct_bw, direct_lat, host + ": ring of direct links in rank order"}};
  } else if (!sizes.empty()) {
    // Each ring of the torus at its own links' bandwidth and latency.
    std::vector<Dimension> rings;
    size_t stride = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      double bw = std::numeric_limits<double>::infinity(), lat = 0;
      for (size_t i = 0; i < n; ++i) {
        const NodeId next = npus[torus_next(i, stride, sizes[d])];
        for (const auto& adj : g.neighbours(npus[i])) {
          if (adj.node != next) continue;
          bw = std::min(bw, ctx.bandwidth(g.edges()[adj.edge].link));
          lat = std::max(lat, ctx.latency(g.edges()[adj.edge].link));
        }
      }
      rings.push_back({"Ring", sizes[d], bw, lat,
                       fmt::format("{}: torus dimension {} of {} ({}) of direct links in rank order", host, d,
                                   sizes.size(), fmt::join(sizes, "x"))});
      stride *= sizes[d];
    }
    return rings;
  }
  // Switch components every NPU links to.
  const uint32_t dev = g.device_instance_of(npus[0]);
  std::map<NodeId, size_t> switch_hits;
  for (auto npu : npus) {
    std::set<NodeId> seen;
    for (const auto& adj : g.neighbours(npu)) {
      if (g.device_instance_of(adj.node) != dev || g.node_type(adj.node).choice != ComponentChoice::kSwitch) continue;
      if (seen.insert(adj.node).second) ++switch_hits[adj.node];
    }
  }
  std::set<NodeId> shared;
  for (const auto& [s, hits] : switch_hits) {
    if (hits == n) shared.insert(s);
  }
  // A switch shared by all NPUs, and several of them: prefer those that do
  // not also reach non-NPU components (scale-up switches over PCIe switches).
  if (!shared.empty()) {
    std::set<NodeId> pure;
    for (auto s : shared) {
      bool only_npus = true;
      for (const auto& adj : g.neighbours(s)) {
        const auto c = g.node_type(adj.node).choice;
        only_npus = only_npus && (pos.contains(adj.node) || c == ComponentChoice::kSwitch);
      }
      if (only_npus) pure.insert(s);
    }
    const std::set<NodeId>& use = pure.empty() ? shared : pure;
    double bw_min = std::numeric_limits<double>::infinity(), lat = 0;
    for (auto npu : npus) {
      double bw = 0;
      for (const auto& adj : g.neighbours(npu)) {
        if (!use.contains(adj.node)) continue;
        bw += ctx.bandwidth(g.edges()[adj.edge].link);
        lat = std::max(lat, ctx.latency(g.edges()[adj.edge].link));
      }
      bw_min = std::min(bw_min, bw);
    }
    return {{"Switch", n, bw_min, lat, fmt::format("{}: {} switch component(s) shared by all NPUs", host, use.size())}};
  }
  throw Error(fmt::format(
      "analytical translation: the {} NPUs of {} are joined neither by a full mesh, a ring in rank order, a torus "
      "in rank order (rings of 3 or more, the first dimension fastest), nor a switch component they all link to",
      n, host));
}

class AnalyticalTranslator final : public Translator {
 public:
  std::string_view name() const override { return "analytical"; }
  std::string_view description() const override {
    return "ASTRA-sim analytical network YAML (Ring / FullyConnected / Switch dimensions)";
  }
  std::vector<std::string_view> sim_backends() const override {
    return {"analytical-congestion-aware", "analytical-congestion-unaware"};
  }
  std::string_view network_configuration_file() const override { return "network.yml"; }

  std::vector<TranslatedFile> translate(const Graph& g, const Annotations& a) const override {
    Context ctx(g);
    const auto& npus = a.ranked_nodes;
    if (npus.size() < 2) throw Error("analytical translation: needs at least 2 ranked NPUs (xpu components)");
    // Hosts in rank order; their ranks must be contiguous and equal in number.
    std::vector<uint32_t> hosts;
    std::vector<std::vector<NodeId>> host_npus;
    std::map<uint32_t, size_t> host_index;
    for (auto n : npus) {
      const uint32_t d = g.device_instance_of(n);
      auto [it, inserted] = host_index.emplace(d, hosts.size());
      if (inserted) {
        hosts.push_back(d);
        host_npus.emplace_back();
      } else if (it->second != hosts.size() - 1) {
        throw Error(fmt::format("analytical translation: the ranks of {} are not contiguous; ASTRA-sim numbers NPUs "
                                "with dimension 0 (inside a host) varying fastest",
                                g.device_instance_name(d)));
      }
      host_npus[it->second].push_back(n);
    }
    const size_t per_host = host_npus[0].size();
    for (size_t h = 0; h < hosts.size(); ++h) {
      if (host_npus[h].size() != per_host) {
        throw Error(fmt::format("analytical translation: {} has {} NPUs but {} has {}; dimensions must be regular",
                                g.device_instance_name(hosts[h]), host_npus[h].size(), g.device_instance_name(hosts[0]),
                                per_host));
      }
    }
    std::vector<Dimension> dims;
    if (per_host > 1) {
      const std::vector<Dimension> local = local_dimensions(g, ctx, host_npus[0]);
      const auto shape = [](const std::vector<Dimension>& ds) {
        std::vector<std::string> parts;
        for (const Dimension& d : ds) parts.push_back(fmt::format("{} {}", d.topology, d.npus));
        return fmt::format("{}", fmt::join(parts, " x "));
      };
      for (size_t h = 1; h < hosts.size(); ++h) {
        const std::vector<Dimension> other = local_dimensions(g, ctx, host_npus[h]);
        const bool same = std::equal(local.begin(), local.end(), other.begin(), other.end(),
                                     [](const Dimension& x, const Dimension& y) {
                                       return x.topology == y.topology && x.npus == y.npus &&
                                              x.bandwidth_bits_per_s == y.bandwidth_bits_per_s &&
                                              x.latency_ns == y.latency_ns;
                                     });
        if (!same) {
          throw Error(fmt::format("analytical translation: {} is {} but {} is {}; every host must look the same",
                                  g.device_instance_name(hosts[h]), shape(other), g.device_instance_name(hosts[0]),
                                  shape(local)));
        }
      }
      dims.insert(dims.end(), local.begin(), local.end());
    }
    if (hosts.size() > 1) fabric_dimensions(g, a, ctx, host_npus, hosts, per_host, dims);

    uint64_t total = 1;
    for (const auto& d : dims) total *= d.npus;
    if (total != npus.size()) {
      throw Error(fmt::format("analytical translation: dimensions multiply to {} NPUs but the graph ranks {}", total,
                              npus.size()));
    }
    return {{"network.yml", yaml(g, dims)}, {"translation.json", report(g, a, ctx, dims)}};
  }

 private:
  static std::string number(double v) { return fmt::format("{:.12g}", v); }
  // How much of a hop's latency is the way out of the hosts (`ends` of them).
  static std::string host_exit_note(double host_exit_ns, int ends) {
    if (host_exit_ns <= 0) return "";
    return ends == 1 ? fmt::format("; latency includes {} ns from an NPU out of its host", number(host_exit_ns))
                     : fmt::format("; latency includes {} × {} ns from an NPU out of its host", ends,
                                   number(host_exit_ns));
  }
  static double gib_per_s(double bits_per_s) { return bits_per_s / 8.0 / static_cast<double>(1ULL << 30); }

  static std::string yaml(const Graph& g, const std::vector<Dimension>& dims) {
    std::string topo, count, bw, lat;
    for (size_t i = 0; i < dims.size(); ++i) {
      const char* sep = i == 0 ? "" : ", ";
      topo += sep + dims[i].topology;
      count += sep + std::to_string(dims[i].npus);
      bw += sep + number(gib_per_s(dims[i].bandwidth_bits_per_s));
      lat += sep + number(dims[i].latency_ns);
    }
    std::string out = fmt::format("# ASTRA-sim analytical network translated from InfraGraph '{}'\n", g.name());
    for (size_t i = 0; i < dims.size(); ++i) out += fmt::format("# dim {}: {}\n", i, dims[i].from);
    out += fmt::format("topology: [ {} ]\nnpus_count: [ {} ]\nbandwidth: [ {} ]  # GB/s (1 GB = 2^30 B)\n"
                       "latency: [ {} ]  # ns\n",
                       topo, count, bw, lat);
    return out;
  }

  static std::string report(const Graph& g, const Annotations& a, const Context& ctx, const std::vector<Dimension>& dims) {
    nlohmann::ordered_json j;
    j["infrastructure"] = g.name();
    j["npus"] = a.ranked_nodes.size();
    j["dimensions"] = nlohmann::ordered_json::array();
    for (const auto& d : dims) {
      j["dimensions"].push_back({{"topology", d.topology},
                                 {"npus_count", d.npus},
                                 {"bandwidth_bits_per_s", d.bandwidth_bits_per_s},
                                 {"latency_ns", d.latency_ns},
                                 {"from", d.from}});
    }
    j["links_without_latency"] = ctx.missing_latency();
    auto& ranks = j["ranks"] = nlohmann::ordered_json::array();
    for (auto n : a.ranked_nodes) ranks.push_back(g.node_name(n));
    return j.dump(2) + "\n";
  }

  static void fabric_dimensions(const Graph& g, const Annotations& a, Context& ctx,
                                const std::vector<std::vector<NodeId>>& host_npus, const std::vector<uint32_t>& hosts,
                                size_t per_host, std::vector<Dimension>& dims) {
    // Every fabric dimension's traffic leaves the host through its inside
    // (GPU to PCIe switch to NIC), so what the NPUs can push out of their
    // host bounds the first fabric dimension and, through it, the rest.
    double egress_per_npu = std::numeric_limits<double>::infinity();
    for (size_t h = 0; h < hosts.size(); ++h) {
      const double egress = instance_egress_bits_per_s(g, host_npus[h]);
      if (egress <= 0) {
        throw Error(fmt::format("analytical translation: the NPUs of {} have no path inside it to a component that "
                                "links outside it",
                                g.device_instance_name(hosts[h])));
      }
      egress_per_npu = std::min(egress_per_npu, egress / static_cast<double>(per_host));
    }
    // Every fabric hop also crosses the hosts' insides, at both ends.
    double host_exit_ns = 0;
    for (const auto& npus : host_npus) {
      for (const NodeId npu : npus) {
        const auto path = instance_egress_path(g, npu);
        if (!path) {
          throw Error(fmt::format("analytical translation: {} has no path inside its host to a component that "
                                  "links outside it",
                                  g.node_name(npu)));
        }
        double exit_ns = 0;
        for (const LinkId link : *path) exit_ns += ctx.latency(link);
        host_exit_ns = std::max(host_exit_ns, exit_ns);
      }
    }
    const size_t nd = g.device_instance_count();
    int32_t max_tier = 0;
    for (size_t d = 0; d < nd; ++d) {
      if (a.device_role[d] == Role::kSwitch) max_tier = std::max(max_tier, a.device_tier[d]);
    }
    if (max_tier == 0) {
      direct_host_dimension(g, ctx, hosts, per_host, egress_per_npu, host_exit_ns, dims);
      return;
    }
    // A tree of tiers has no link between two switches of one tier (a
    // dragonfly's local and global links, a torus of switches, an MLAG peer
    // link): merging groups through it would make one flat Switch dimension
    // of what is several switch hops with less bandwidth between groups.
    for (const auto& e : g.edges()) {
      const uint32_t da = g.device_instance_of(e.a), db = g.device_instance_of(e.b);
      if (da == db || a.device_role[da] != Role::kSwitch || a.device_role[db] != Role::kSwitch) continue;
      if (a.device_tier[da] != a.device_tier[db]) continue;
      throw Error(fmt::format(
          "analytical translation: {} and {} are both tier-{} switches joined by a link ({} - {}); the analytical "
          "backends take a tree of switch tiers, where links join adjacent tiers only. Use --network-backend noc "
          "or ns3, which route over any graph",
          g.device_instance_name(da), g.device_instance_name(db), a.device_tier[da], g.node_name(e.a),
          g.node_name(e.b)));
    }
    std::vector<uint32_t> parent(nd);
    auto find = [&](uint32_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    std::iota(parent.begin(), parent.end(), 0);
    size_t group_hosts = 1;  // hosts per group at the previous level
    double bw_below = egress_per_npu;
    double latency_up = host_exit_ns;
    for (int32_t t = 1; t <= max_tier; ++t) {
      // Links from tier t-1 devices up to tier t switches.
      double tier_latency = 0;
      for (const auto& e : g.edges()) {
        const uint32_t da = g.device_instance_of(e.a), db = g.device_instance_of(e.b);
        if (da == db) continue;
        const int32_t ta = a.device_tier[da], tb = a.device_tier[db];
        if (ta < 0 || tb < 0 || std::max(ta, tb) != t) continue;
        if (std::min(ta, tb) == t - 1) tier_latency = std::max(tier_latency, ctx.latency(e.link));
        if (a.device_role[da] == Role::kHost && a.device_role[db] == Role::kHost) continue;
        parent[find(da)] = find(db);
      }
      latency_up += tier_latency;
      // Groups of hosts, in host order; they must be contiguous and equal.
      std::map<uint32_t, size_t> group_size;
      for (auto h : hosts) ++group_size[find(h)];
      const size_t size = group_size[find(hosts[0])];
      for (size_t i = 0; i < hosts.size(); ++i) {
        if (group_size[find(hosts[i])] != size || find(hosts[i]) != find(hosts[i - i % size])) {
          throw Error(fmt::format(
              "analytical translation: at switch tier {} the hosts do not split into equal groups of consecutive "
              "ranks ({} is grouped differently); the fabric is not a regular hierarchy",
              t, g.device_instance_name(hosts[i])));
        }
      }
      if (size == group_hosts) continue;  // this tier merges nothing
      if (size % group_hosts != 0) {
        throw Error(fmt::format("analytical translation: tier {} groups {} hosts, not a multiple of {}", t, size,
                                group_hosts));
      }
      // Bandwidth into this level per NPU, over the first group.
      const uint32_t root = find(hosts[0]);
      double bw = 0;
      for (const auto& e : g.edges()) {
        const uint32_t da = g.device_instance_of(e.a), db = g.device_instance_of(e.b);
        if (da == db || find(da) != root) continue;
        const int32_t ta = a.device_tier[da], tb = a.device_tier[db];
        if (std::max(ta, tb) == t && std::min(ta, tb) == t - 1) bw += ctx.bandwidth(e.link);
      }
      bw /= static_cast<double>(size * per_host);
      bw = std::min(bw, bw_below);
      bw_below = bw;
      dims.push_back({"Switch", size / group_hosts, bw, latency_up,
                      fmt::format("switch tier {}: {} groups of {} hosts per group{}", t, size / group_hosts,
                                  group_hosts, host_exit_note(host_exit_ns, 1))});
      group_hosts = size;
    }
    if (group_hosts != hosts.size()) {
      throw Error(fmt::format("analytical translation: the fabric leaves the hosts in {} disconnected groups",
                              hosts.size() / group_hosts));
    }
  }

  static void direct_host_dimension(const Graph& g, Context& ctx, const std::vector<uint32_t>& hosts, size_t per_host,
                                    double egress_per_npu, double host_exit_ns, std::vector<Dimension>& dims) {
    const size_t m = hosts.size();
    std::map<uint32_t, size_t> pos;
    for (size_t i = 0; i < m; ++i) pos[hosts[i]] = i;
    std::map<std::pair<size_t, size_t>, double> pair_bw;
    double lat = 0;
    for (const auto& e : g.edges()) {
      auto ia = pos.find(g.device_instance_of(e.a));
      auto ib = pos.find(g.device_instance_of(e.b));
      if (ia == pos.end() || ib == pos.end() || ia->second == ib->second) continue;
      pair_bw[{std::min(ia->second, ib->second), std::max(ia->second, ib->second)}] += ctx.bandwidth(e.link);
      lat = std::max(lat, ctx.latency(e.link));
    }
    lat += 2 * host_exit_ns;
    double bw = egress_per_npu;
    for (const auto& [p, b] : pair_bw) bw = std::min(bw, b / static_cast<double>(per_host));
    if (pair_bw.size() == m * (m - 1) / 2) {
      dims.push_back({"FullyConnected", m, bw, lat,
                      "hosts joined by direct links, full mesh" + host_exit_note(host_exit_ns, 2)});
      return;
    }
    bool ring = m >= 3 && pair_bw.size() == m;
    for (size_t i = 0; ring && i < m; ++i) ring = pair_bw.contains({std::min(i, (i + 1) % m), std::max(i, (i + 1) % m)});
    if (ring) {
      dims.push_back({"Ring", m, bw, lat,
                      "hosts joined by direct links in a ring in rank order" + host_exit_note(host_exit_ns, 2)});
      return;
    }
    throw Error("analytical translation: the hosts have no switches between them and their direct links form "
                "neither a full mesh nor a ring in rank order");
  }
};
SNR_REGISTER_TRANSLATOR(AnalyticalTranslator);

}  // namespace
}  // namespace snr::infra
