// `gd`: seed 004's projected gradient descent with exponential averaging in
// parameter space (§7, equation 6):
//
//   W~_t = W_{t-1} - eta_t * step(g_t)          normalized step
//   M_t  = beta * M_{t-1} + (1 - beta) * W~_t    averaging of the iterates
//   W_t  = Project(M_t) onto C_A, C_P, C_R       each class's simplex
//
// How the equation is read (docs/pathfind-search.md has the argument and
// the measurements behind the defaults):
//  - g_t is the gradient of ln f, not of f: times range from microseconds
//    (a GEMM) to hours (a training run); ln f makes a step mean the same for
//    any unit or workload.
//  - The normalization applies to the step, not to W: dividing W by ||W||
//    would pull every iterate onto the unit sphere, which holds the optimum
//    only by accident (a fixed point needs ||W|| = 1), and rescale every
//    fraction at once. A normalized step makes eta a length in fraction
//    space whatever the size of the gradient.
//  - That length is measured per fraction relative to its own size
//    (s_i = max(W_i, scale_floor)): the fractions differ a hundredfold (core
//    area 0.40, inter-package area 0.0035), and one absolute step would
//    wipe out the small components while barely moving the large ones. The
//    projection is Euclidean in the same scaled coordinates, and no
//    fraction loses more than half of itself in one step.
//  - eta_t: a step that descends is doubled while that keeps descending
//    (at most line_search times, up to max_lr) and the next starts longer
//    (growth); a step that does not descend shortens it (decay), and one
//    that lands on an infeasible design is not taken.
//  - Converged: (1 - beta) * eta below min_step, or the best time improved
//    by less than `tolerance` (relative) over the last `patience` steps.
//  - Gradients are one-sided finite differences of relative size fd_step,
//    forward where the class has slack, backward where it is full (a design
//    over budget cannot be evaluated). A neighbour that is infeasible
//    counts as ln 2 worse: a barrier that turns the step away from it.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "common/error.h"
#include "pathfind/search/registry.h"

namespace snr::pathfind::search {
namespace {

// Uniform draws tried when the given starting point is infeasible.
constexpr uint32_t kStartTries = 200;
// ln f of an infeasible finite-difference neighbour, relative to the point.
const double kBarrier = std::log(2.0);
// Doublings of a finite-difference step that found the time unchanged.
constexpr uint32_t kWidenings = 3;

struct GdConfig {
  uint64_t steps = 100;
  double lr = 0.5;
  double max_lr = 4.0;
  double beta = 0.3;
  double fd_step = 0.05;
  double decay = 0.5;
  double growth = 1.25;
  double min_step = 1e-3;
  double tolerance = 1e-3;
  uint64_t patience = 5;
  double scale_floor = 0.01;
  uint32_t line_search = 3;
};

class GdEngine final : public SearchEngine {
 public:
  explicit GdEngine(const GdConfig& c) : c_(c) {}

  StartResult run(Objective& objective, const StartContext& context) const override {
    Random random(context.seed);
    StartResult r;
    std::vector<double> x;
    double fx = kInfeasible;
    if (!feasible_start(objective, context, random, kStartTries, x, fx)) {
      r.w = x;
      return r;
    }
    r.feasible = true;
    r.value = fx;
    r.w = x;
    r.trajectory.push_back({0, fx, x});
    const size_t n = x.size();
    std::vector<double> m = x, scale(n), weight(n), g(n), probe(n);
    double eta = c_.lr;
    double best_before = fx;  // the best `patience` steps ago
    for (uint64_t t = 1; t <= c_.steps; ++t) {
      r.steps = t;
      for (size_t i = 0; i < n; ++i) {
        scale[i] = std::max(x[i], c_.scale_floor);
        weight[i] = scale[i] * scale[i];
      }
      gradient(objective, context.blocks, x, fx, scale, g, probe, r);
      // Normalized step in the scaled coordinates z_i = W_i / s_i:
      // dW_i = s_i * dz_i with dz = -eta * (s o g) / ||s o g||.
      double norm = 0;
      for (size_t i = 0; i < n; ++i) norm += (scale[i] * g[i]) * (scale[i] * g[i]);
      norm = std::sqrt(norm);
      if (!(norm > 0)) {  // flat in every direction at this resolution
        r.converged = true;
        break;
      }
      // Projected in the same scaled metric the step was taken in: entry i
      // gives up tau * s_i^2 of an excess, so a step that grows the core
      // cannot zero the few lanes of a network tier (and a projection in
      // another metric than the step's need not even descend).
      auto candidate = [&](double step_eta, std::vector<double>& average, std::vector<double>& w) {
        for (size_t i = 0; i < n; ++i) {
          // No fraction loses more than half in one step, however long it
          // is: a long step along one coordinate must not zero the others.
          const double stepped = std::max(x[i] - step_eta * weight[i] * g[i] / norm, x[i] / 2);
          average[i] = c_.beta * m[i] + (1 - c_.beta) * stepped;
        }
        w = average;
        project(w, context.blocks, weight);
        return objective.evaluate(w);
      };
      std::vector<double> m_next(n), next(n), m_try(n), w_try(n);
      double f_next = candidate(eta, m_next, next);
      // A step that descends is pushed further along the same direction
      // while that keeps descending (the gradient cost n evaluations, each
      // longer step one).
      for (uint32_t k = 0; k < c_.line_search && f_next < fx && 2 * eta <= c_.max_lr; ++k) {
        const double f_try = candidate(2 * eta, m_try, w_try);
        if (!(f_try < f_next)) break;
        eta *= 2;
        f_next = f_try;
        std::swap(m_next, m_try);
        std::swap(next, w_try);
      }
      if (f_next == kInfeasible) {
        eta *= c_.decay;
        m = x;  // forget the average that led there
      } else {
        // Bold driver: a step that descends keeps its length, grown, one
        // that does not is shortened.
        eta = f_next < fx ? std::min(eta * c_.growth, c_.max_lr) : eta * c_.decay;
        m = std::move(m_next);
        x = std::move(next);
        fx = f_next;
        r.trajectory.push_back({t, fx, x});
        keep_best(r, x, fx);
      }
      if ((1 - c_.beta) * eta < c_.min_step) {
        r.converged = true;
        break;
      }
      if (t % c_.patience == 0) {
        if (r.value > best_before * (1 - c_.tolerance)) {
          r.converged = true;
          break;
        }
        best_before = r.value;
      }
    }
    return r;
  }

 private:
  static void keep_best(StartResult& r, const std::vector<double>& w, double value) {
    if (value < r.value) {
      r.value = value;
      r.w = w;
    }
  }

  // One-sided differences of ln f at x, in W units; `probe` is scratch.
  // The generator counts units (MCUs, banks, memory devices, lanes), so f
  // is flat between counts: a probe that lands on a design the objective
  // has seen before (the same device) is pushed twice as far, up to
  // kWidenings times, until it reaches the next count; such repeats cost
  // the objective no prediction. A probe better than every design so far
  // is kept as the best: it is a design like any other.
  void gradient(Objective& objective, std::span<const SimplexBlock> blocks, const std::vector<double>& x, double fx,
                const std::vector<double>& scale, std::vector<double>& g, std::vector<double>& probe,
                StartResult& r) const {
    const double log_fx = std::log(fx);
    for (const SimplexBlock& b : blocks) {
      const double slack = std::max(0.0, 1 - block_sum(std::span<const double>(x).subspan(b.offset, b.count)));
      for (size_t i = b.offset; i < b.offset + b.count; ++i) {
        g[i] = 0;
        // Forward where the class has room, else backward (not below half).
        const bool forward = std::min(c_.fd_step * scale[i], slack) >= std::min(c_.fd_step * scale[i], x[i] / 2);
        const double limit = forward ? slack : x[i] / 2;
        for (uint32_t widening = 0; widening <= kWidenings; ++widening) {
          const double h = std::min(c_.fd_step * scale[i] * static_cast<double>(1u << widening), limit);
          if (!(h > 0)) break;
          probe = x;
          probe[i] += forward ? h : -h;
          enforce_simplex(std::span<double>(probe).subspan(b.offset, b.count));
          const double step = probe[i] - x[i];
          if (step == 0) break;
          const double f = objective.evaluate(probe);
          keep_best(r, probe, f);
          if (f == kInfeasible) {
            g[i] = kBarrier / step;
            break;
          }
          g[i] = (std::log(f) - log_fx) / step;
          if (f != fx || !objective.last_was_repeat() || h == limit) break;
        }
      }
    }
  }

  GdConfig c_;
};

}  // namespace

EngineInfo gd_engine_info() {
  const GdConfig d;
  return {
      "gd",
      "projected gradient descent with exponential averaging in parameter space (seed 004 equation 6), "
      "finite-difference gradients of ln(time), best of several starts",
      {
          {"steps", "gradient steps per start at most (T)", static_cast<double>(d.steps), 1, 100000, true},
          {"starts", "starting points (S): the given budget, then uniform random designs", 10, 1, 10000, true},
          {"lr", "first step (eta), relative to each fraction's size", d.lr, 1e-6, 10, false},
          {"max_lr", "longest step eta may grow to", d.max_lr, 1e-6, 10, false},
          {"beta", "averaging factor of the iterates", d.beta, 0, 0.99, false},
          {"fd_step", "finite-difference step, relative to each fraction's size", d.fd_step, 1e-6, 0.5, false},
          {"decay", "eta is multiplied by this after a step that does not descend", d.decay, 0.01, 0.99, false},
          {"growth", "and by this (up to max_lr) after one that does", d.growth, 1, 10, false},
          {"min_step", "converged when (1 - beta) * eta is below this", d.min_step, 1e-9, 0.5, false},
          {"tolerance", "converged when `patience` steps improve the best by less than this share", d.tolerance, 0,
           0.5, false},
          {"patience", "steps the tolerance is measured over", static_cast<double>(d.patience), 1, 100000, true},
          {"scale_floor", "smallest fraction size steps are relative to", d.scale_floor, 1e-6, 1, false},
          {"line_search", "doublings of a descending step tried per step", static_cast<double>(d.line_search), 0,
           20, true},
      },
      [](const EngineConfig& config) -> std::unique_ptr<SearchEngine> {
        GdConfig c;
        c.steps = static_cast<uint64_t>(config.at("steps"));
        c.lr = config.at("lr");
        c.max_lr = config.at("max_lr");
        if (c.lr > c.max_lr) {
          throw Error(fmt::format("search strategy 'gd': lr: {} is above max_lr {}", c.lr, c.max_lr));
        }
        c.beta = config.at("beta");
        c.fd_step = config.at("fd_step");
        c.decay = config.at("decay");
        c.growth = config.at("growth");
        c.min_step = config.at("min_step");
        c.tolerance = config.at("tolerance");
        c.patience = static_cast<uint64_t>(config.at("patience"));
        c.scale_floor = config.at("scale_floor");
        c.line_search = static_cast<uint32_t>(config.at("line_search"));
        return std::make_unique<GdEngine>(c);
      },
      // The start (the given budget, then up to kStartTries draws), then per
      // step every probe widened to the limit, the step and its doublings.
      [](const EngineConfig& config, size_t parameters) {
        const double per_step =
            static_cast<double>(parameters) * (kWidenings + 1) + 1 + config.at("line_search");
        return 1 + kStartTries + config.at("steps") * per_step;
      },
  };
}

}  // namespace snr::pathfind::search
