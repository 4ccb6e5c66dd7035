#include "pathfind/roofline/gemm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "pathfind/roofline/dataflow.h"

namespace snr::pathfind {
namespace {

constexpr size_t kMaxValuesPerDim = 8;
constexpr size_t kMaxCandidates = kMaxValuesPerDim * kMaxValuesPerDim * kMaxValuesPerDim;
constexpr double kAccumulatorBytes = 4;  // partial sums stay 32-bit inside a chip

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Extents and tile counts of one tiling, computed once for all loop orders
// (the divisions dominate the enumeration otherwise).
struct TileCounts {
  double m, n, k, mt, nt, kt;
  TileCounts(GemmShape s, Tile t)
      : m(static_cast<double>(s.m)),
        n(static_cast<double>(s.n)),
        k(static_cast<double>(s.k)),
        mt(static_cast<double>(ceil_div(s.m, t.m))),
        nt(static_cast<double>(ceil_div(s.n, t.n))),
        kt(static_cast<double>(ceil_div(s.k, t.k))) {}
};

double traffic_from_counts(const TileCounts& c, char inner, double in_bytes, double out_bytes) {
  double a = c.m * c.k * (inner == 'n' ? 1.0 : c.nt);
  double b = c.k * c.n * (inner == 'm' ? 1.0 : c.mt);
  // Partial sums that leave and re-enter a level are 32-bit.
  double partial = inner == 'k' ? 0.0 : c.m * c.n * (2.0 * c.kt - 2.0);
  return (a + b) * in_bytes + c.m * c.n * out_bytes + partial * kAccumulatorBytes;
}

uint64_t next_pow2(uint64_t x) {
  uint64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

struct Occupancy {
  double bundle_slowdown = 1;  // bundle-scope levels
  double mcu_slowdown = 1;     // MCU-scope levels (bundle and in-bundle waves)
};

struct Candidate {
  Tile tile;
  uint8_t order = 0;
  Dataflow dataflow = Dataflow::kOutputStationary;
  double feeder_s = 0;  // bytes the next level supplies / its aggregate bandwidth
  double reg_s = 0;     // level 0 only: register accesses / register bandwidth
  double feeder_bytes = 0;
  double reg_bytes = 0;
  double own_s = 0;     // lower bound this tile puts on the kernel time
};

struct LevelCandidates {
  std::array<Candidate, kMaxCandidates> items;
  size_t count = 0;
};

// Per-thread scratch so the search never allocates.
thread_local std::array<LevelCandidates, kMaxLevels> g_scratch;

struct Values {
  std::array<uint64_t, 16> v{};
  size_t count = 0;
};

// Powers of two times `granule` up to `limit`; keeps the largest
// kMaxValuesPerDim (or the smallest, for the reduction dimension whose tile
// only has to fit).
Values dim_values(uint64_t granule, uint64_t limit, bool keep_smallest) {
  Values all;
  for (uint64_t x = granule; x <= std::max(granule, limit) && all.count < all.v.size(); x <<= 1) all.v[all.count++] = x;
  if (all.count <= kMaxValuesPerDim) return all;
  Values kept;
  size_t first = keep_smallest ? 0 : all.count - kMaxValuesPerDim;
  for (size_t i = 0; i < kMaxValuesPerDim; ++i) kept.v[kept.count++] = all.v[first + i];
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
  // search state
  std::array<size_t, kMaxLevels> pick{};
  std::array<size_t, kMaxLevels> best_pick{};
  double best_s = std::numeric_limits<double>::infinity();
  double best_compute_s = 0;
  double best_slowdown = 1;
  Occupancy best_occupancy;
  uint64_t visited = 0;
  double floor_s = 0;  // no combination can beat this: stop once reached
};

double aggregate_bandwidth(const DeviceSpec& d, const MemoryLevel& level) {
  return level.bandwidth_bytes_per_s * level.efficiency * d.instances(level.scope);
}

// How many times longer than with every unit busy a level's traffic takes,
// because a partial wave leaves bundles (or MCUs inside a bundle) idle and
// an idle unit draws no bandwidth. Padding a tile past the problem's edge is
// not in it: those bytes are already in the tile's traffic.
Occupancy occupancy(const Context& c, const Tile& t0, const Tile& tb) {
  const DeviceSpec& d = *c.device;
  Occupancy o;
  if (!c.spread_over_bundles) {
    const uint64_t tiles = ceil_div(c.shape.m, t0.m) * ceil_div(c.shape.n, t0.n);
    o.mcu_slowdown = static_cast<double>(ceil_div(tiles, d.mcu_count()) * d.mcu_count()) / static_cast<double>(tiles);
    return o;
  }
  const uint64_t bundle_tiles = ceil_div(c.shape.m, tb.m) * ceil_div(c.shape.n, tb.n);
  o.bundle_slowdown =
      static_cast<double>(ceil_div(bundle_tiles, d.bundles) * d.bundles) / static_cast<double>(bundle_tiles);
  const uint64_t mcu_tiles = ceil_div(tb.m, t0.m) * ceil_div(tb.n, t0.n);
  o.mcu_slowdown = o.bundle_slowdown *
                   static_cast<double>(ceil_div(mcu_tiles, d.mcus_per_bundle) * d.mcus_per_bundle) /
                   static_cast<double>(mcu_tiles);
  return o;
}

bool fits(const MemoryLevel& level, const Tile& t, double in_bytes, double out_bytes) {
  double c_bytes = level.scope == Scope::kGlobal ? out_bytes : kAccumulatorBytes;
  double need = static_cast<double>(t.m * t.k + t.k * t.n) * in_bytes + static_cast<double>(t.m * t.n) * c_bytes;
  return need <= level.capacity_bytes;
}

// Compute time of the kernel for MCU tile `t0` inside bundle tile `tb`.
double compute_s(const Context& c, const Tile& t0, const Tile& tb) {
  const DeviceSpec& d = *c.device;
  const double mcu_tile_s = 2.0 * static_cast<double>(t0.m * t0.n) * static_cast<double>(c.shape.k) / c.mcu_flops_per_s;
  if (!c.spread_over_bundles) {
    uint64_t tiles = ceil_div(c.shape.m, t0.m) * ceil_div(c.shape.n, t0.n);
    return static_cast<double>(ceil_div(tiles, d.mcu_count())) * mcu_tile_s;
  }
  uint64_t bundle_tiles = ceil_div(c.shape.m, tb.m) * ceil_div(c.shape.n, tb.n);
  uint64_t waves = ceil_div(bundle_tiles, d.bundles);
  uint64_t mcu_tiles = ceil_div(tb.m, t0.m) * ceil_div(tb.n, t0.n);
  uint64_t rounds = ceil_div(mcu_tiles, d.mcus_per_bundle);
  return static_cast<double>(waves * rounds) * mcu_tile_s;
}

// Lower bound of compute_s for any MCU tile inside `tb`.
double compute_lower_bound_s(const Context& c, const Tile& tb) {
  const DeviceSpec& d = *c.device;
  uint64_t bundle_tiles = ceil_div(c.shape.m, tb.m) * ceil_div(c.shape.n, tb.n);
  double waves = static_cast<double>(ceil_div(bundle_tiles, d.bundles));
  return waves * 2.0 * static_cast<double>(tb.m * tb.n) * static_cast<double>(c.shape.k) /
         (c.mcu_flops_per_s * d.mcus_per_bundle);
}

void enumerate_level(Context& c, size_t i, LevelCandidates& out, uint64_t& enumerated) {
  const DeviceSpec& d = *c.device;
  const MemoryLevel& level = d.levels[i];
  const MemoryLevel& feeder = d.levels[i + 1];
  const double feeder_bw = aggregate_bandwidth(d, feeder);
  const MemoryLevel& regs = d.levels[0];
  const double reg_bw = aggregate_bandwidth(d, regs);
  const double flops = 2.0 * static_cast<double>(c.shape.m) * static_cast<double>(c.shape.n) *
                       static_cast<double>(c.shape.k);
  // Largest extent along one dimension with the other two at the MCU granule.
  auto cap_along = [&](uint64_t g_other1, uint64_t g_other2) {
    double per_unit = (static_cast<double>(g_other1) + static_cast<double>(g_other2)) * c.in_bytes +
                      static_cast<double>(g_other2) * kAccumulatorBytes;
    return static_cast<uint64_t>(std::max(1.0, level.capacity_bytes / per_unit));
  };
  const uint64_t gm = d.mcu_rows, gn = d.mcu_cols, gk = d.mcu_rows;
  Values ms = dim_values(gm, std::min(next_pow2(c.shape.m), cap_along(gk, gn)), false);
  Values ns = dim_values(gn, std::min(next_pow2(c.shape.n), cap_along(gk, gm)), false);
  Values ks = dim_values(gk, next_pow2(c.shape.k), true);
  out.count = 0;
  for (size_t a = 0; a < ms.count; ++a) {
    for (size_t b = 0; b < ns.count; ++b) {
      // When partial sums cannot go back to the feeder, k stays innermost and
      // the traffic does not depend on the k extent: only the smallest (nests
      // in any outer tile) and the largest that fits (most output-stationary
      // reuse) can be best.
      size_t last_fit = ks.count;
      for (size_t e = ks.count; e-- > 0;) {
        if (fits(level, Tile{ms.v[a], ns.v[b], ks.v[e]}, c.in_bytes, c.out_bytes)) {
          last_fit = e;
          break;
        }
      }
      for (size_t e = 0; e < ks.count; ++e) {
        if (!feeder.partial_sums && e != 0 && e != last_fit) continue;
        Tile t{ms.v[a], ns.v[b], ks.v[e]};
        if (!fits(level, t, c.in_bytes, c.out_bytes)) continue;
        Candidate cand;
        cand.tile = t;
        cand.feeder_bytes = std::numeric_limits<double>::infinity();
        const TileCounts counts(c.shape, t);
        for (uint8_t o = 0; o < kLoopOrderNames.size(); ++o) {
          if (!feeder.partial_sums && kLoopOrderNames[o][2] != 'k') continue;
          double bytes = traffic_from_counts(counts, kLoopOrderNames[o][2], c.in_bytes, c.out_bytes);
          if (bytes < cand.feeder_bytes) {
            cand.feeder_bytes = bytes;
            cand.order = o;
          }
        }
        enumerated += feeder.partial_sums ? kLoopOrderNames.size() : 2;
        cand.feeder_s = cand.feeder_bytes / feeder_bw;
        cand.own_s = cand.feeder_s;
        if (i == 0) {
          DataflowChoice df = choose_dataflow(d.dataflow, flops, t.m, t.n, t.k, d.mcu_rows, d.mcu_cols);
          cand.dataflow = df.dataflow;
          cand.reg_bytes = df.accesses * c.in_bytes;
          cand.reg_s = cand.reg_bytes / reg_bw;
          cand.own_s = std::max(cand.own_s, cand.reg_s);
          if (!c.spread_over_bundles) cand.own_s = std::max(cand.own_s, compute_s(c, t, t));
        }
        if (c.spread_over_bundles && i == c.bundle_level) {
          cand.own_s = std::max(cand.own_s, compute_lower_bound_s(c, t));
        }
        out.items[out.count++] = cand;
      }
    }
  }
  std::sort(out.items.begin(), out.items.begin() + static_cast<std::ptrdiff_t>(out.count),
            [](const Candidate& x, const Candidate& y) {
              if (x.own_s != y.own_s) return x.own_s < y.own_s;
              if (x.tile.m != y.tile.m) return x.tile.m > y.tile.m;
              if (x.tile.n != y.tile.n) return x.tile.n > y.tile.n;
              return x.tile.k > y.tile.k;
            });
}

bool nests(const Tile& inner, const Tile& outer) {
  return inner.m <= outer.m && inner.n <= outer.n && inner.k <= outer.k;
}

double level_scale(const DeviceSpec& d, size_t level, const Occupancy& o) {
  switch (d.levels[level].scope) {
    case Scope::kGlobal: return 1.0;
    case Scope::kBundle: return o.bundle_slowdown;
    case Scope::kMcu: return o.mcu_slowdown;
  }
  return 1.0;
}

// Depth-first over tile levels from the outermost inwards.
void search(Context& c, size_t depth_level, double partial_s) {
  const LevelCandidates& cands = g_scratch[depth_level];
  const DeviceSpec& d = *c.device;
  for (size_t idx = 0; idx < cands.count; ++idx) {
    const Candidate& cand = cands.items[idx];
    double bound = std::max(partial_s, cand.own_s);
    // Sorted by own_s: nothing later is better (ties within rounding are not
    // worth visiting either).
    if (bound >= c.best_s * (1 - 1e-12)) break;
    if (c.best_s <= c.floor_s) return;
    if (depth_level + 1 < c.tile_levels) {
      const Candidate& outer = g_scratch[depth_level + 1].items[c.pick[depth_level + 1]];
      if (!nests(cand.tile, outer.tile)) continue;
    }
    c.pick[depth_level] = idx;
    if (depth_level > 0) {
      search(c, depth_level - 1, bound);
      continue;
    }
    ++c.visited;
    const Tile& tb = g_scratch[c.bundle_level].items[c.pick[c.bundle_level]].tile;
    double comp = compute_s(c, cand.tile, c.spread_over_bundles ? tb : cand.tile);
    double slowdown = std::max(1.0, comp / c.ideal_compute_s);
    const Occupancy occ = occupancy(c, cand.tile, c.spread_over_bundles ? tb : cand.tile);
    double total = comp;
    total = std::max(total, cand.reg_s * level_scale(d, 0, occ));
    for (size_t i = 0; i < c.tile_levels; ++i) {
      const Candidate& ci = g_scratch[i].items[c.pick[i]];
      total = std::max(total, ci.feeder_s * level_scale(d, i + 1, occ));
    }
    if (total < c.best_s) {
      c.best_s = total;
      c.best_pick = c.pick;
      c.best_compute_s = comp;
      c.best_slowdown = slowdown;
      c.best_occupancy = occ;
    }
  }
}

}  // namespace

double tile_traffic_bytes(GemmShape shape, Tile tile, uint8_t loop_order, double in_bytes, double out_bytes) {
  return traffic_from_counts(TileCounts(shape, tile), kLoopOrderNames[loop_order][2], in_bytes, out_bytes);
}

GemmPrediction predict_gemm(const DeviceSpec& device, GemmShape shape, DType dtype) {
  if (shape.m == 0 || shape.n == 0 || shape.k == 0) {
    throw Error(fmt::format("GEMM {}x{}x{}: every dimension must be positive", shape.m, shape.n, shape.k));
  }
  if (shape.m > (1ull << 40) || shape.n > (1ull << 40) || shape.k > (1ull << 40)) {
    throw Error(fmt::format("GEMM {}x{}x{}: dimensions above 2^40 are not modelled", shape.m, shape.n, shape.k));
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
  for (size_t i = 0; i < c.tile_levels; ++i) {
    if (device.levels[i].scope == Scope::kBundle) {
      c.bundle_level = i;
      c.spread_over_bundles = true;
    }
  }
  GemmPrediction p;
  p.flops = flops;
  for (size_t i = 0; i < c.tile_levels; ++i) {
    enumerate_level(c, i, g_scratch[i], p.tilings_enumerated);
    if (g_scratch[i].count == 0) {
      throw Error(fmt::format("device '{}': no tile of the {}x{} MCU fits memory level '{}'", device.name,
                              device.mcu_rows, device.mcu_cols, device.levels[i].name));
    }
  }
  c.floor_s = c.ideal_compute_s;
  for (size_t i = 0; i < c.tile_levels; ++i) c.floor_s = std::max(c.floor_s, g_scratch[i].items[0].own_s);
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
  const Candidate& c0 = g_scratch[0].items[c.best_pick[0]];
  p.dataflow = c0.dataflow;
  for (size_t i = 0; i < device.levels.size(); ++i) {
    LevelUse& use = p.levels[i];
    use.name = device.levels[i].name;
    use.scope = device.levels[i].scope;
    if (i < c.tile_levels) {
      const Candidate& ci = g_scratch[i].items[c.best_pick[i]];
      use.tile = ci.tile;
      use.loop_order = ci.order;
    } else {
      use.tile = Tile{shape.m, shape.n, shape.k};
    }
    double scale = level_scale(device, i, c.best_occupancy);
    if (i == 0) {
      use.accessed_bytes = c0.reg_bytes;
      use.time_s = c0.reg_s * scale;
    } else {
      const Candidate& inner = g_scratch[i - 1].items[c.best_pick[i - 1]];
      use.accessed_bytes = inner.feeder_bytes;
      use.time_s = inner.feeder_s * scale;
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
