#include "pathfind/roofline/gemm.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "pathfind/roofline/dataflow.h"

namespace snr::pathfind {
namespace {

constexpr size_t kMaxValuesPerDim = 8;
constexpr size_t kMaxCandidates = kMaxValuesPerDim * kMaxValuesPerDim * kMaxValuesPerDim;
constexpr size_t kMaskWords = kMaxCandidates / 64;
// Tile extents are the MCU granule times 2^e with e < kMaxExponents (the
// most doublings dim_values makes).
constexpr size_t kMaxExponents = 16;
constexpr double kAccumulatorBytes = 4;  // partial sums stay 32-bit inside a chip

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The same value as the unsigned conversion for every count below 2^63
// (problem extents and tile counts, at most 2^40), without the branch that
// conversion compiles to.
double to_double(uint64_t x) { return static_cast<double>(static_cast<int64_t>(x)); }

// Products of the problem extents, shared by every tiling.
struct ProblemProducts { double mk, kn, mn; };

ProblemProducts problem_products(GemmShape s) {
  const double m = to_double(s.m), n = to_double(s.n), k = to_double(s.k);
  return {m * k, k * n, m * n};
}

// mt, nt, kt: tiles along m, n and k.
double traffic(const ProblemProducts& p, double mt, double nt, double kt, char inner, double in_bytes,
               double out_bytes) {
  double a = p.mk * (inner == 'n' ? 1.0 : nt);
  double b = p.kn * (inner == 'm' ? 1.0 : mt);
  // Partial sums that leave and re-enter a level are 32-bit.
  double partial = inner == 'k' ? 0.0 : p.mn * (2.0 * kt - 2.0);
  return (a + b) * in_bytes + p.mn * out_bytes + partial * kAccumulatorBytes;
}

struct OrderChoice { uint8_t order; double bytes; };

// Loop orders with the same innermost loop move the same bytes, so only the
// first order of each innermost loop ("mnk", "mkn", "nkm") is evaluated; the
// strict comparison keeps the first of equal orders as a scan of all six does.
OrderChoice choose_order(const ProblemProducts& p, double mt, double nt, double kt, bool partial_sums,
                         double in_bytes, double out_bytes) {
  OrderChoice best{0, traffic(p, mt, nt, kt, 'k', in_bytes, out_bytes)};
  if (!partial_sums) return best;
  for (uint8_t o : {uint8_t{1}, uint8_t{3}}) {
    double bytes = traffic(p, mt, nt, kt, kLoopOrderNames[o][2], in_bytes, out_bytes);
    if (bytes < best.bytes) best = {o, bytes};
  }
  return best;
}

uint64_t next_pow2(uint64_t x) {
  uint64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

// How many times longer than with every unit busy a level's traffic takes,
// because a partial wave leaves bundles (or MCUs inside a bundle) idle and an
// idle unit draws no bandwidth. Padding a tile past the problem's edge is not
// in it: those bytes are already in the tile's traffic.
struct Occupancy {
  double bundle_slowdown = 1;  // bundle-scope levels
  double mcu_slowdown = 1;     // MCU-scope levels (bundle and in-bundle waves)
};

// What the search needs of one tile; the tile itself and its dataflow are
// recomputed for the chosen tiles only.
struct Candidate {
  std::array<uint8_t, 3> exponent{};  // extent = MCU granule * 2^exponent along m, n, k
  uint8_t order = 0;
  double feeder_bytes = 0;  // bytes the next level supplies
  double feeder_s = 0;      // feeder_bytes / the next level's aggregate bandwidth
  double reg_s = 0;     // level 0 only: register accesses / register bandwidth
  double own_s = 0;     // lower bound this tile puts on the kernel time
  // Parts of the compute time and occupancy fixed by this tile alone, so the
  // innermost loop of the search does no integer division.
  double mcu_tile_s = 0;          // level 0: one MCU tile over the whole reduction
  double alone_compute_s = 0;     // level 0, no bundle level: compute_s
  double alone_mcu_slowdown = 1;  // level 0, no bundle level
  double bundle_slowdown = 1;     // bundle level
  uint64_t waves = 0;             // bundle level: waves of bundle tiles over the bundles
  double least_leaf_s = 0;        // bundle level: see least_leaf_s()
};

// One tile level: candidates in enumeration order, their order by own_s
// (rank), and per dimension and exponent e the ranks whose extent is at most
// granule * 2^e, which test all candidates against an outer tile at once.
struct LevelCandidates {
  std::array<Candidate, kMaxCandidates> items;
  std::array<uint16_t, kMaxCandidates> by_rank{};  // index into items
  std::array<double, kMaxCandidates> own_by_rank{};
  std::array<std::array<std::array<uint64_t, kMaskWords>, kMaxExponents>, 3> within{};
  size_t count = 0;
};

// Per-thread scratch (main memory holds no tile) so the search never allocates.
thread_local std::array<LevelCandidates, kMaxLevels - 1> g_scratch;

struct Values {
  std::array<uint64_t, kMaxExponents> v{};
  std::array<uint8_t, kMaxExponents> exponent{};
  std::array<uint64_t, kMaxExponents> tiles{};  // ceil(problem extent / v)
  size_t count = 0;
};

// Powers of two times `granule` up to `limit`; keeps the largest
// kMaxValuesPerDim (or the smallest, for the reduction dimension whose tile
// only has to fit).
Values dim_values(uint64_t granule, uint64_t limit, bool keep_smallest, uint64_t extent) {
  size_t all = 0;
  while (all < kMaxExponents && (granule << all) <= std::max(granule, limit)) ++all;
  Values kept;
  const size_t first = all <= kMaxValuesPerDim || keep_smallest ? 0 : all - kMaxValuesPerDim;
  for (size_t e = first; e < all && kept.count < kMaxValuesPerDim; ++e, ++kept.count) {
    kept.v[kept.count] = granule << e;
    kept.exponent[kept.count] = static_cast<uint8_t>(e);
    kept.tiles[kept.count] = ceil_div(extent, granule << e);
  }
  return kept;
}

struct Context {
  const DeviceSpec* device = nullptr;
  GemmShape shape;
  double in_bytes = 2;
  double out_bytes = 2;
  double mcu_flops_per_s = 0;  // with max utilization
  double ideal_compute_s = 0;
  size_t tile_levels = 0;      // levels.size() - 1
  size_t bundle_level = 0;
  bool spread_over_bundles = false;
  // Levels 0 and 1 both below global scope, under a bundle level above 0:
  // their times are scaled by at least the bundle slowdown.
  bool inner_scaled_by_bundle = false;
  std::array<Scope, kMaxLevels> scope{};
  // Per s: rounds of 2^s MCU tiles over a bundle's MCUs, and rounds * MCUs.
  std::array<uint64_t, 2 * kMaxExponents> rounds{};
  std::array<double, 2 * kMaxExponents> round_slots{};
  // search state
  std::array<size_t, kMaxLevels> pick{};  // rank at each level
  std::array<size_t, kMaxLevels> best_pick{};
  double best_s = std::numeric_limits<double>::infinity();
  double best_compute_s = 0;
  double best_slowdown = 1;
  Occupancy best_occupancy;
  uint64_t visited = 0;
  double floor_s = 0;  // no combination can beat this: stop once reached
};

const Candidate& picked(const Context& c, size_t level) {
  const LevelCandidates& l = g_scratch[level];
  return l.items[l.by_rank[c.pick[level]]];
}

Tile tile_of(const DeviceSpec& d, const Candidate& cand) {
  return {uint64_t{d.mcu_rows} << cand.exponent[0], uint64_t{d.mcu_cols} << cand.exponent[1],
          uint64_t{d.mcu_rows} << cand.exponent[2]};
}

double aggregate_bandwidth(const DeviceSpec& d, const MemoryLevel& level) {
  return level.bandwidth_bytes_per_s * level.efficiency * d.instances(level.scope);
}

struct RankKey { double own_s; uint32_t index; };

bool ranks_before(const RankKey& x, const RankKey& y) {
  return x.own_s != y.own_s ? x.own_s < y.own_s : x.index > y.index;
}

// Ranks candidates by own_s, ties to the larger m, then n, then k, which is
// the later enumerated. A positive double orders like its bit pattern, so a
// bucket pass on the bits (half to one bucket per candidate over the level's
// bit range, about even in log(own_s)) leaves a few candidates per bucket to
// sort by comparison: a comparison sort of all of them mispredicts a branch
// per comparison and cost more than the enumeration. Fed in reverse
// enumeration order, the stable bucket pass and insertion sort order ties as
// required. A NaN or negative own_s, which no valid device produces, falls
// back to the comparison sort.
void rank_candidates(LevelCandidates& out, bool outermost) {
  constexpr uint64_t kPositiveInfinity = 0x7ff0000000000000;
  const size_t n = out.count;
  std::array<RankKey, kMaxCandidates> keys;
  std::array<uint64_t, kMaxCandidates> bits;
  uint64_t low = kPositiveInfinity, high = 0;
  for (size_t r = 0; r < n; ++r) {
    const size_t i = n - 1 - r;
    keys[r] = {out.items[i].own_s, static_cast<uint32_t>(i)};
    bits[r] = std::bit_cast<uint64_t>(out.items[i].own_s);
    low = std::min(low, bits[r]);
    high = std::max(high, bits[r]);
  }
  std::array<RankKey, kMaxCandidates> ranked;
  if (high > kPositiveInfinity) {
    std::copy(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n), ranked.begin());
    std::sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(n), ranks_before);
  } else if (n > 0) {
    const auto bucket_bits = std::bit_width(n) - 1;
    const auto width = std::bit_width(high - low);
    const unsigned shift = width > bucket_bits ? static_cast<unsigned>(width - bucket_bits) : 0;
    const size_t buckets = size_t{1} << bucket_bits;
    std::array<uint16_t, kMaxCandidates + 1> start;
    std::fill(start.begin(), start.begin() + static_cast<std::ptrdiff_t>(buckets + 1), uint16_t{0});
    for (size_t r = 0; r < n; ++r) ++start[((bits[r] - low) >> shift) + 1];
    for (size_t b = 1; b <= buckets; ++b) start[b] = static_cast<uint16_t>(start[b] + start[b - 1]);
    std::array<uint16_t, kMaxCandidates> fill;
    std::copy(start.begin(), start.begin() + static_cast<std::ptrdiff_t>(buckets), fill.begin());
    for (size_t r = 0; r < n; ++r) ranked[fill[(bits[r] - low) >> shift]++] = keys[r];
    for (size_t b = 0; b < buckets; ++b) {
      RankKey* first = ranked.data() + start[b];
      RankKey* last = ranked.data() + start[b + 1];
      if (last - first > 32) {
        std::sort(first, last, ranks_before);
        continue;
      }
      for (RankKey* p = first + 1; p < last; ++p) {
        const RankKey key = *p;
        RankKey* q = p;
        for (; q > first && key.own_s < (q - 1)->own_s; --q) *q = *(q - 1);
        *q = key;
      }
    }
  }
  for (size_t r = 0; r < n; ++r) {
    out.by_rank[r] = static_cast<uint16_t>(ranked[r].index);
    out.own_by_rank[r] = ranked[r].own_s;
  }
  if (outermost) return;  // nothing to nest in
  const size_t words = (n + 63) / 64;
  for (auto& dim : out.within) {
    for (auto& mask : dim) std::fill(mask.begin(), mask.begin() + static_cast<std::ptrdiff_t>(words), 0);
  }
  for (size_t r = 0; r < n; ++r) {
    const Candidate& cand = out.items[out.by_rank[r]];
    for (size_t dim = 0; dim < 3; ++dim) out.within[dim][cand.exponent[dim]][r / 64] |= uint64_t{1} << (r % 64);
  }
  for (auto& dim : out.within) {
    for (size_t e = 1; e < kMaxExponents; ++e) {
      for (size_t w = 0; w < words; ++w) dim[e][w] |= dim[e - 1][w];
    }
  }
}

void enumerate_level(Context& c, size_t i, LevelCandidates& out, uint64_t& enumerated) {
  const DeviceSpec& d = *c.device;
  const MemoryLevel& level = d.levels[i];
  const MemoryLevel& feeder = d.levels[i + 1];
  const double feeder_bw = aggregate_bandwidth(d, feeder);
  const double reg_bw = aggregate_bandwidth(d, d.levels[0]);
  const double flops = 2.0 * static_cast<double>(c.shape.m) * static_cast<double>(c.shape.n) *
                       static_cast<double>(c.shape.k);
  // Largest extent along one dimension with the other two at the MCU granule.
  auto cap_along = [&](uint64_t g_other1, uint64_t g_other2) {
    double per_unit = (static_cast<double>(g_other1) + static_cast<double>(g_other2)) * c.in_bytes +
                      static_cast<double>(g_other2) * kAccumulatorBytes;
    return static_cast<uint64_t>(std::max(1.0, level.capacity_bytes / per_unit));
  };
  const uint64_t gm = d.mcu_rows, gn = d.mcu_cols, gk = d.mcu_rows;
  const Values ms = dim_values(gm, std::min(next_pow2(c.shape.m), cap_along(gk, gn)), false, c.shape.m);
  const Values ns = dim_values(gn, std::min(next_pow2(c.shape.n), cap_along(gk, gm)), false, c.shape.n);
  const Values ks = dim_values(gk, next_pow2(c.shape.k), true, c.shape.k);
  const bool bundle_level = c.spread_over_bundles && i == c.bundle_level;
  const ProblemProducts products = problem_products(c.shape);
  const double c_bytes = level.scope == Scope::kGlobal ? c.out_bytes : kAccumulatorBytes;
  out.count = 0;
  for (size_t a = 0; a < ms.count; ++a) {
    for (size_t b = 0; b < ns.count; ++b) {
      const uint64_t tm = ms.v[a], tn = ns.v[b];
      // A and B tiles at the input width, C at c_bytes: the bytes grow with
      // the k extent, so the extents that fit are those up to the largest
      // that does.
      const double c_need = static_cast<double>(tm * tn) * c_bytes;
      size_t last_fit = ks.count;
      for (size_t e = ks.count; e-- > 0;) {
        if (static_cast<double>(tm * ks.v[e] + ks.v[e] * tn) * c.in_bytes + c_need <= level.capacity_bytes) {
          last_fit = e;
          break;
        }
      }
      if (last_fit == ks.count) continue;
      // What depends on the m and n extents alone, once for every k extent.
      const uint64_t mn_tiles = ms.tiles[a] * ns.tiles[b];
      double mcu_tile_s = 0, alone_compute_s = 0, alone_mcu_slowdown = 1, bundle_slowdown = 1;
      uint64_t waves = 0;
      double compute_floor_s = 0;
      if (i == 0) {
        mcu_tile_s = 2.0 * static_cast<double>(tm * tn) * static_cast<double>(c.shape.k) / c.mcu_flops_per_s;
      }
      if (i == 0 && !c.spread_over_bundles) {
        // The kernel's compute_s and occupancy when MCU tiles fill the whole
        // device directly.
        const uint64_t mcus = d.mcu_count();
        alone_compute_s = static_cast<double>(ceil_div(mn_tiles, mcus)) * mcu_tile_s;
        alone_mcu_slowdown = static_cast<double>(ceil_div(mn_tiles, mcus) * mcus) / static_cast<double>(mn_tiles);
        compute_floor_s = alone_compute_s;
      }
      if (bundle_level) {
        waves = ceil_div(mn_tiles, d.bundles);
        bundle_slowdown = static_cast<double>(waves * d.bundles) / static_cast<double>(mn_tiles);
        // No MCU tile inside this bundle tile computes faster than the
        // bundle's MCUs sharing it perfectly.
        compute_floor_s = std::max(compute_floor_s, static_cast<double>(waves) * 2.0 *
                                                        static_cast<double>(tm * tn) * static_cast<double>(c.shape.k) /
                                                        (c.mcu_flops_per_s * d.mcus_per_bundle));
      }
      for (size_t e = 0; e <= last_fit; ++e) {
        // When partial sums cannot go back to the feeder, k stays innermost
        // and the traffic does not depend on the k extent: only the smallest
        // (nests in any outer tile) and the largest that fits (most
        // output-stationary reuse) can be best.
        if (!feeder.partial_sums && e != 0 && e != last_fit) continue;
        Candidate& cand = out.items[out.count++];
        cand.exponent = {ms.exponent[a], ns.exponent[b], ks.exponent[e]};
        const OrderChoice order = choose_order(products, to_double(ms.tiles[a]), to_double(ns.tiles[b]),
                                               to_double(ks.tiles[e]), feeder.partial_sums, c.in_bytes, c.out_bytes);
        enumerated += feeder.partial_sums ? kLoopOrderNames.size() : 2;
        cand.order = order.order;
        cand.feeder_bytes = order.bytes;
        cand.feeder_s = order.bytes / feeder_bw;
        cand.own_s = cand.feeder_s;
        if (i == 0) {
          DataflowChoice df = choose_dataflow(d.dataflow, flops, tm, tn, ks.v[e], d.mcu_rows, d.mcu_cols);
          cand.reg_s = df.accesses * c.in_bytes / reg_bw;
          cand.own_s = std::max(cand.own_s, cand.reg_s);
        }
        cand.own_s = std::max(cand.own_s, compute_floor_s);
        // Field by field: copying a Candidate built just before stalls on
        // store forwarding.
        cand.mcu_tile_s = mcu_tile_s;
        cand.alone_compute_s = alone_compute_s;
        cand.alone_mcu_slowdown = alone_mcu_slowdown;
        cand.bundle_slowdown = bundle_slowdown;
        cand.waves = waves;
      }
    }
  }
  rank_candidates(out, i + 1 == c.tile_levels);
}

double level_scale(Scope scope, const Occupancy& o) {
  return scope == Scope::kBundle ? o.bundle_slowdown : scope == Scope::kMcu ? o.mcu_slowdown : 1.0;
}

// The candidates of a level nesting in an outer tile, 64 ranks at a time.
class NestingRanks {
 public:
  // Candidates of `level` nesting in `outer`; all of them for a null `outer`.
  NestingRanks(size_t level, const Candidate* outer) : cands_(g_scratch[level]), words_((cands_.count + 63) / 64) {
    if (outer != nullptr) {
      for (size_t dim = 0; dim < 3; ++dim) within_[dim] = &cands_.within[dim][outer->exponent[dim]];
    }
  }
  NestingRanks(const Context& c, size_t level)
      : NestingRanks(level, level + 1 < c.tile_levels ? &picked(c, level + 1) : nullptr) {}
  [[nodiscard]] size_t words() const { return words_; }
  [[nodiscard]] uint64_t word(size_t w) const {
    uint64_t bits = ~uint64_t{0};
    if (within_[0] != nullptr) bits = (*within_[0])[w] & (*within_[1])[w] & (*within_[2])[w];
    if (w + 1 == words_ && cands_.count % 64 != 0) bits &= (uint64_t{1} << (cands_.count % 64)) - 1;
    return bits;
  }

 private:
  const LevelCandidates& cands_;
  size_t words_;
  std::array<const std::array<uint64_t, kMaskWords>*, 3> within_{};
};

// 2^s MCU tiles fit a bundle tile: both are granule * 2^e and nest.
size_t mcu_tiles_log2(const Candidate& bundle_tile, const Candidate& t0) {
  return size_t{bundle_tile.exponent[0]} - t0.exponent[0] + size_t{bundle_tile.exponent[1]} - t0.exponent[1];
}

// Where inner_scaled_by_bundle holds, every combination with bundle tile `tb`
// and MCU tile t0 takes at least max(compute_s, own_s(t0) * tb's bundle
// slowdown) (see search_innermost), so the least of that over the MCU tiles
// nesting in `tb` bounds every combination with `tb`. Walking them by rank,
// own_s alone soon reaches the least found.
double least_leaf_s(const Context& c, const Candidate& tb) {
  const LevelCandidates& cands = g_scratch[0];
  const NestingRanks nesting(0, &tb);
  double least = std::numeric_limits<double>::infinity();
  for (size_t w = 0; w < nesting.words(); ++w) {
    for (uint64_t bits = nesting.word(w); bits != 0; bits &= bits - 1) {
      const size_t rank = w * 64 + static_cast<size_t>(std::countr_zero(bits));
      const double own_term = cands.own_by_rank[rank] * tb.bundle_slowdown;
      if (own_term >= least) return least;
      const Candidate& t0 = cands.items[cands.by_rank[rank]];
      const double comp = static_cast<double>(tb.waves * c.rounds[mcu_tiles_log2(tb, t0)]) * t0.mcu_tile_s;
      least = std::min(least, std::max(comp, own_term));
    }
  }
  return least;
}

// Level 0, where each pick completes a combination. Its kernel time is the
// largest of the compute time and the scaled level times, and replaces the
// best only when strictly smaller, so a combination with any one term at or
// above best_s is passed over without the rest, and the loop ends where a
// term that only grows along the ranks reaches best_s. None of that changes
// the result, only `combinations_visited`, which counts the combinations
// whose compute time was looked at.
void search_innermost(Context& c, double partial_s) {
  const LevelCandidates& cands = g_scratch[0];
  const NestingRanks nesting(c, 0);
  const Candidate* tb = c.spread_over_bundles && c.bundle_level > 0 ? &picked(c, c.bundle_level) : nullptr;
  // Terms of levels 1.. by the scope of the level feeding them; those of
  // global scope are final, and so are those of bundle scope once the bundle
  // tile is picked.
  double global_s = 0, bundle_feeder_s = 0, mcu_feeder_s = 0;
  for (size_t i = 1; i < c.tile_levels; ++i) {
    const double f = picked(c, i).feeder_s;
    switch (c.scope[i + 1]) {
      case Scope::kGlobal: global_s = std::max(global_s, f); break;
      case Scope::kBundle: bundle_feeder_s = std::max(bundle_feeder_s, f); break;
      case Scope::kMcu: mcu_feeder_s = std::max(mcu_feeder_s, f); break;
    }
  }
  const double known_s = tb != nullptr ? std::max(global_s, bundle_feeder_s * tb->bundle_slowdown) : global_s;
  // Level 0's own_s is the larger of its register and feeder times; where
  // both scale by a slowdown of at least the bundle tile's (the MCU slowdown
  // includes it), own_s times that bounds the combination. Elsewhere the
  // factor is 0, which bounds nothing.
  const double own_scale = c.inner_scaled_by_bundle ? tb->bundle_slowdown : 0.0;
  for (size_t w = 0; w < nesting.words(); ++w) {
    for (uint64_t bits = nesting.word(w); bits != 0; bits &= bits - 1) {
      const size_t rank = w * 64 + static_cast<size_t>(std::countr_zero(bits));
      const double own_s = cands.own_by_rank[rank];
      // Ranked by own_s: nothing later is better (ties within rounding are
      // not worth visiting either).
      if (std::max(partial_s, own_s) >= c.best_s * (1 - 1e-12)) return;
      if (c.best_s <= c.floor_s || known_s >= c.best_s || own_s * own_scale >= c.best_s) return;
      const Candidate& t0 = cands.items[cands.by_rank[rank]];
      c.pick[0] = rank;
      ++c.visited;
      // compute_s: waves of bundle tiles over the bundles x rounds of the
      // bundle tile's MCU tiles over its MCUs x one MCU tile's time (MCU
      // tiles straight over all MCUs without a bundle level).
      Occupancy occ;
      double comp = 0;
      if (c.spread_over_bundles) {
        const Candidate& bundle_tile = tb != nullptr ? *tb : t0;
        const size_t s = mcu_tiles_log2(bundle_tile, t0);
        comp = static_cast<double>(bundle_tile.waves * c.rounds[s]) * t0.mcu_tile_s;
        if (comp >= c.best_s) continue;
        occ.bundle_slowdown = bundle_tile.bundle_slowdown;
        occ.mcu_slowdown = bundle_tile.bundle_slowdown * c.round_slots[s] / static_cast<double>(uint64_t{1} << s);
      } else {
        comp = t0.alone_compute_s;
        if (comp >= c.best_s) continue;
        occ.mcu_slowdown = t0.alone_mcu_slowdown;
      }
      double total = std::max(comp, known_s);
      total = std::max(total, bundle_feeder_s * occ.bundle_slowdown);
      total = std::max(total, mcu_feeder_s * occ.mcu_slowdown);
      total = std::max(total, t0.reg_s * level_scale(c.scope[0], occ));
      total = std::max(total, t0.feeder_s * level_scale(c.scope[1], occ));
      if (total < c.best_s) {
        c.best_s = total;
        c.best_pick = c.pick;
        c.best_compute_s = comp;
        c.best_slowdown = std::max(1.0, comp / c.ideal_compute_s);
        c.best_occupancy = occ;
      }
    }
  }
}

// Depth-first over tile levels from the outermost inwards, each level's
// candidates in rank order. Only candidates nesting in the outer pick are
// walked; skipping the others changes nothing, since a skipped candidate
// that would have ended the loop (bound or floor reached) ends it at the next
// nesting one just the same: own_s only grows along the ranks and best_s only
// changes inside a recursion. A bundle tile whose least_leaf_s reaches
// best_s holds no better combination and is skipped.
void search(Context& c, size_t depth_level, double partial_s) {
  if (depth_level == 0) {
    search_innermost(c, partial_s);
    return;
  }
  const LevelCandidates& cands = g_scratch[depth_level];
  const NestingRanks nesting(c, depth_level);
  const bool bounded = c.inner_scaled_by_bundle && depth_level == c.bundle_level;
  for (size_t w = 0; w < nesting.words(); ++w) {
    for (uint64_t bits = nesting.word(w); bits != 0; bits &= bits - 1) {
      const size_t rank = w * 64 + static_cast<size_t>(std::countr_zero(bits));
      double bound = std::max(partial_s, cands.own_by_rank[rank]);
      if (bound >= c.best_s * (1 - 1e-12)) return;
      if (c.best_s <= c.floor_s) return;
      if (bounded && cands.items[cands.by_rank[rank]].least_leaf_s >= c.best_s) continue;
      c.pick[depth_level] = rank;
      search(c, depth_level - 1, bound);
    }
  }
}

}  // namespace

double tile_traffic_bytes(GemmShape shape, Tile tile, uint8_t loop_order, double in_bytes, double out_bytes) {
  return traffic(problem_products(shape), to_double(ceil_div(shape.m, tile.m)), to_double(ceil_div(shape.n, tile.n)),
                 to_double(ceil_div(shape.k, tile.k)), kLoopOrderNames[loop_order][2], in_bytes, out_bytes);
}

GemmPrediction predict_gemm(const DeviceSpec& device, GemmShape shape, DType dtype) {
  if (shape.m == 0 || shape.n == 0 || shape.k == 0) {
    throw Error(fmt::format("GEMM {}x{}x{}: every dimension must be positive", shape.m, shape.n, shape.k));
  }
  if (shape.m > (1ull << 40) || shape.n > (1ull << 40) || shape.k > (1ull << 40)) {
    throw Error(fmt::format("GEMM {}x{}x{}: dimensions above 2^40 are not modelled", shape.m, shape.n, shape.k));
  }
  // Tile counts and operand sizes are whole numbers of 64 bits: an operand
  // of 2^60 elements or more would wrap them (compute time 0, a kernel
  // faster than its peak, operands of 0 bytes).
  constexpr double kMaxOperandElements = 0x1p60;
  const double mf = static_cast<double>(shape.m), nf = static_cast<double>(shape.n), kf = static_cast<double>(shape.k);
  if (mf * nf >= kMaxOperandElements || mf * kf >= kMaxOperandElements || kf * nf >= kMaxOperandElements) {
    throw Error(fmt::format("GEMM {}x{}x{}: operands of 2^60 elements or more are not modelled", shape.m, shape.n,
                            shape.k));
  }
  if (device.levels.size() < 2 || device.levels.size() > kMaxLevels) {
    throw Error(fmt::format("device '{}': the GEMM model needs 2..{} memory levels", device.name, kMaxLevels));
  }
  Context c;
  c.device = &device;
  c.shape = shape;
  c.in_bytes = dtype_bytes(dtype);
  c.out_bytes = dtype_bytes(dtype);
  c.mcu_flops_per_s = device.mcu_flops_per_s(dtype) * device.max_utilization;
  const double flops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
  c.ideal_compute_s = flops / (c.mcu_flops_per_s * device.mcu_count());
  c.tile_levels = device.levels.size() - 1;
  for (size_t i = 0; i < device.levels.size(); ++i) c.scope[i] = device.levels[i].scope;
  for (size_t i = 0; i < c.tile_levels; ++i) {
    if (device.levels[i].scope == Scope::kBundle) {
      c.bundle_level = i;
      c.spread_over_bundles = true;
    }
  }
  c.inner_scaled_by_bundle = c.spread_over_bundles && c.bundle_level > 0 && c.scope[0] != Scope::kGlobal &&
                             c.scope[1] != Scope::kGlobal;
  GemmPrediction p;
  p.flops = flops;
  for (size_t i = 0; i < c.tile_levels; ++i) {
    enumerate_level(c, i, g_scratch[i], p.tilings_enumerated);
    if (g_scratch[i].count == 0) {
      throw Error(fmt::format("device '{}': no tile of the {}x{} MCU fits memory level '{}'", device.name,
                              device.mcu_rows, device.mcu_cols, device.levels[i].name));
    }
  }
  for (size_t s = 0; s < c.rounds.size() && device.mcus_per_bundle > 0; ++s) {
    c.rounds[s] = ceil_div(uint64_t{1} << s, device.mcus_per_bundle);
    c.round_slots[s] = static_cast<double>(c.rounds[s] * device.mcus_per_bundle);
  }
  c.floor_s = c.ideal_compute_s;
  for (size_t i = 0; i < c.tile_levels; ++i) c.floor_s = std::max(c.floor_s, g_scratch[i].own_by_rank[0]);
  if (c.inner_scaled_by_bundle) {
    // Every combination has a bundle tile, so none beats the least bound of
    // all bundle tiles either.
    LevelCandidates& bundle = g_scratch[c.bundle_level];
    double least = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < bundle.count; ++i) {
      bundle.items[i].least_leaf_s = least_leaf_s(c, bundle.items[i]);
      least = std::min(least, bundle.items[i].least_leaf_s);
    }
    c.floor_s = std::max(c.floor_s, least);
  }
  search(c, c.tile_levels - 1, 0.0);
  if (!std::isfinite(c.best_s)) {
    throw Error(fmt::format("device '{}': no nested tiling fits its memory levels", device.name));
  }
  p.combinations_visited = c.visited;
  p.compute_s = c.best_compute_s;
  p.parallel_efficiency = 1.0 / c.best_slowdown;
  p.bundle_level = c.bundle_level;
  p.level_count = device.levels.size();
  p.bound = "compute";
  double worst = c.best_compute_s;
  c.pick = c.best_pick;
  for (size_t i = 0; i < device.levels.size(); ++i) {
    LevelUse& use = p.levels[i];
    use.name = device.levels[i].name;
    use.scope = device.levels[i].scope;
    if (i < c.tile_levels) {
      const Candidate& ci = picked(c, i);
      use.tile = tile_of(device, ci);
      use.loop_order = ci.order;
    } else {
      use.tile = Tile{shape.m, shape.n, shape.k};
    }
    double scale = level_scale(device.levels[i].scope, c.best_occupancy);
    if (i == 0) {
      const DataflowChoice df = choose_dataflow(device.dataflow, flops, use.tile.m, use.tile.n, use.tile.k,
                                                device.mcu_rows, device.mcu_cols);
      p.dataflow = df.dataflow;
      use.accessed_bytes = df.accesses * c.in_bytes;
      use.time_s = picked(c, 0).reg_s * scale;
    } else {
      use.accessed_bytes = picked(c, i - 1).feeder_bytes;
      use.time_s = picked(c, i - 1).feeder_s * scale;
    }
    if (use.time_s > worst) {
      worst = use.time_s;
      p.bound = use.name;
    }
  }
  p.time_s = device.kernel_overhead_s + c.best_s;
  return p;
}

double predict_streaming_s(const DeviceSpec& device, double bytes, double flops) {
  const MemoryLevel& mem = device.main_memory();
  double memory_s = bytes / (mem.bandwidth_bytes_per_s * mem.efficiency);
  double vector_s = flops / device.vector_flops_per_s;
  return device.kernel_overhead_s + std::max(memory_s, vector_s);
}

}  // namespace snr::pathfind
