// snr pathfind search --tech T --arch A --budget B --model W.yaml
//   (--parallelism P | --parallelism search[,OPTIONS] --devices N)
//   [--strategy gd|random] [--steps T] [--starts S] [--samples N] [--seed N]
//   [--set KEY=VALUE]... [-o DIR] [--json] [--list-strategies]
// The design-space search of seed 004 (§3.2, §3.3, §7): how a chip's area,
// power and perimeter are best shared among its components for a workload,
// over one parallelism strategy or all of them. Under mpirun the
// (strategy, start) tasks spread over the ranks; rank 0 prints and writes.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/pathfind_generated_report.h"
#include "cli/pathfind_predict_options.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/output.h"
#include "pathfind/inputs/device_writer.h"
#include "pathfind/search/parameters.h"
#include "pathfind/search/registry.h"
#include "pathfind/search/search.h"
#include "pathfind/search/strategies.h"
#include "taskfarm/farm.h"

namespace {

using namespace snr::pathfind;
namespace ps = snr::pathfind::search;

struct SearchArgs {
  snr::cli::PredictOptions inputs;
  std::string engine = "gd";
  std::optional<uint64_t> steps, starts, samples;
  std::vector<std::string> settings;
  uint64_t seed = 1;
  uint64_t max_designs = static_cast<uint64_t>(ps::kMaxSearchEvaluations);
  std::string output;
  bool json = false;
  bool list = false;
};

// KEY=VALUE with a number after the sign.
std::pair<std::string, double> parse_setting(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw snr::Error(fmt::format("--set '{}': write KEY=VALUE", text));
  const std::string value = text.substr(eq + 1);
  try {
    size_t used = 0;
    const double v = std::stod(value, &used);
    if (used == value.size()) return {text.substr(0, eq), v};
  } catch (const std::exception&) {
  }
  throw snr::Error(fmt::format("--set '{}': {} is not a number", text, value));
}

ps::SearchInputs load_inputs(const SearchArgs& a) {
  using snr::with_error_context;
  const snr::cli::PredictOptions& o = a.inputs;
  if (o.tech.empty() || o.arch.empty() || o.budget.empty() || o.model.empty() || o.parallelism.empty()) {
    throw snr::Error("give --tech, --arch, --budget, --model and --parallelism (or --list-strategies)");
  }
  ps::SearchInputs in;
  in.tech = age::load_technology(o.tech);
  in.arch = age::load_template(o.arch);
  in.budget = age::load_budget(o.budget);
  in.workload = load_workload(o.model);
  in.strategies = with_error_context("--parallelism", [&] {
    return ps::strategies_to_search(in.workload, o.parallelism, o.devices);
  });
  in.engine = a.engine;
  // Only what was given: the engine refuses a key it does not declare.
  if (a.steps) in.config["steps"] = static_cast<double>(*a.steps);
  if (a.starts) in.config["starts"] = static_cast<double>(*a.starts);
  if (a.samples) in.config["samples"] = static_cast<double>(*a.samples);
  for (const std::string& s : a.settings) {
    auto [key, value] = parse_setting(s);
    in.config.insert_or_assign(key, value);
  }
  in.seed = a.seed;
  in.max_evaluations = static_cast<double>(a.max_designs);
  return in;
}

void print_engines() {
  for (const ps::EngineInfo& e : ps::engines()) {
    fmt::print("{}: {}\n", e.name, e.description);
    for (const ps::ConfigKey& k : e.keys) {
      fmt::print("  {:<12} default {:<8} in [{}, {}]{}  {}\n", k.name, k.default_value, k.min, k.max,
                 k.integer ? " (whole)" : "", k.help);
    }
  }
}

std::string seconds(double s) {
  if (s >= 1) return fmt::format("{:.4g} s", s);
  if (s >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  return fmt::format("{:.4g} us", s * 1e6);
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

void print_strategies(const ps::SearchResult& r) {
  std::vector<const ps::StrategyResult*> feasible;
  std::vector<const ps::StrategyResult*> refused;
  for (const ps::StrategyResult& s : r.strategies) (s.feasible ? feasible : refused).push_back(&s);
  std::stable_sort(feasible.begin(), feasible.end(),
                   [](const ps::StrategyResult* a, const ps::StrategyResult* b) { return a->time_s < b->time_s; });
  constexpr size_t kShown = 10;
  if (!feasible.empty()) {
    fmt::print("  {:<32} {:>12} {:>6} {:>6} {:>10}  {}\n", "parallelism", "time", "start", "steps", "feasible",
               "ordering");
  }
  for (size_t i = 0; i < feasible.size() && i < kShown; ++i) {
    const ps::StrategyResult& s = *feasible[i];
    fmt::print("  {:<32} {:>12} {:>6} {:>6} {:>10}  {}\n", s.strategy.to_string(), seconds(s.time_s), s.start,
               s.steps, s.counts.feasible, s.ordering);
  }
  if (feasible.size() > kShown) fmt::print("  ... {} more strategies in the JSON\n", feasible.size() - kShown);
  if (!refused.empty()) {
    const ps::StrategyResult& first = *refused.front();
    const ps::EvaluationCounts& c = first.counts;
    std::string why = fmt::format("{} designs: {} out of memory, {} refused by the generator, {} by the model",
                                  c.evaluations, c.out_of_memory, c.refused_by_generator, c.refused_by_model);
    if (c.refused_by_model > 0) why += fmt::format(" (\"{}\")", c.first_model_error);
    fmt::print("  {} strateg{} without a feasible design, e.g. {}: {}\n", refused.size(),
               refused.size() == 1 ? "y" : "ies", first.strategy.to_string(), why);
  }
}

// Each component's share of each class, given -> searched.
void print_budget_shift(const age::ResourceBudget& given, const age::ResourceBudget& found) {
  fmt::print("where the budget went (given -> searched):\n  {:<14} {:>17} {:>17} {:>17}\n", "component", "area",
             "power", "perimeter");
  std::vector<std::string> components;
  for (const auto& [name, fraction] : found.area) components.push_back(name);
  auto cell = [](const age::Breakdown& g, const age::Breakdown& f, const std::string& name) -> std::string {
    const bool present = std::any_of(f.begin(), f.end(), [&](const auto& e) { return e.first == name; });
    if (!present) return "-";
    return fmt::format("{} -> {}", percent(age::ResourceBudget::fraction(g, name)),
                       percent(age::ResourceBudget::fraction(f, name)));
  };
  for (const std::string& name : components) {
    fmt::print("  {:<14} {:>17} {:>17} {:>17}\n", name, cell(given.area, found.area, name),
               cell(given.power, found.power, name), cell(given.perimeter, found.perimeter, name));
  }
}

void print_summary(const ps::SearchResult& r, const ps::SearchInputs& in, int ranks, double wall_s) {
  std::string config;
  for (const auto& [key, value] : r.config) config += fmt::format("{}{}={}", config.empty() ? "" : " ", key, value);
  fmt::print("search {} ({}) for {} on {} devices: {} strateg{} x {} starts = {} tasks on {} rank{} in {:.2f} s\n",
             r.engine, config, r.workload, r.devices, r.strategies.size(), r.strategies.size() == 1 ? "y" : "ies",
             r.config.at("starts"), r.tasks, ranks, ranks == 1 ? "" : "s", wall_s);
  const ps::EvaluationCounts& c = r.counts;
  fmt::print("designs evaluated: {} ({} feasible, {} refused by the generator, {} out of memory, {} refused by the "
             "model)\n",
             c.evaluations, c.feasible, c.refused_by_generator, c.out_of_memory, c.refused_by_model);
  print_strategies(r);
  if (!r.best) {
    fmt::print("no feasible design{}\n",
               c.first_generator_error.empty() ? "" : " (the generator, e.g.: " + c.first_generator_error + ")");
    return;
  }
  const ps::BestDesign& b = *r.best;
  const Prediction& p = b.prediction;
  std::string baseline = "the given budget does not run it";
  if (b.baseline_time_s) {
    // A strategy that never evaluates the given budget (random) can end
    // slower than it; "0.941x faster" read as a gain.
    const double speedup = *b.baseline_time_s / p.time_s;
    baseline = speedup >= 1 ? fmt::format("the given budget: {}, {:.3g}x faster", seconds(*b.baseline_time_s), speedup)
                            : fmt::format("the given budget: {}, {:.3g}x slower than it", seconds(*b.baseline_time_s),
                                          1 / speedup);
  }
  fmt::print("best: {} {} {} ({}), mapping {}\n", b.inputs.strategy.to_string(), p.time_name, seconds(p.time_s),
             baseline, order_name(p.mapping.order));
  fmt::print("bottleneck: {}; power used {:.1f} W of {:.0f} W, die area used {:.1f} of {:.0f} mm2\n", p.bottleneck,
             b.power_used_w, b.budget.tdp_w, b.area_used_mm2, b.budget.chip_area_mm2);
  print_budget_shift(in.budget, b.budget);
  snr::cli::print_generated(b.generated);
  fmt::print("Pareto set of (time, power used, area used): {} designs\n", r.pareto.size());
}

int run_search(const SearchArgs& a) {
  if (a.list) {
    print_engines();
    return 0;
  }
  snr::taskfarm::Session session;
  const bool writer = session.is_writer();
  if (writer && !a.output.empty()) {
    snr::output::check_output_directory(a.output);
    snr::cli::check_inputs_survive_output(a.output, a.inputs, [](const std::string& name) {
      return name == "search.json" || name == "best_budget.yaml" || name == "best_device.yaml";
    });
  }
  const auto begin = std::chrono::steady_clock::now();
  ps::SearchInputs in;
  ps::SearchResult r;
  try {
    in = load_inputs(a);
    r = ps::search(in, &session);
  } catch (const snr::Error&) {
    if (writer) throw;
    return 1;  // rank 0 reports it
  }
  if (!writer) return 0;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const nlohmann::ordered_json j = ps::search_result_json(r);
  if (!a.output.empty()) {
    snr::output::StagedDirectory staged(a.output);
    snr::write_file_atomic(staged.path() / "search.json", j.dump(2) + "\n");
    if (r.best) {
      snr::write_file_atomic(staged.path() / "best_budget.yaml", ps::format_budget_yaml(r.best->budget));
      snr::write_file_atomic(staged.path() / "best_device.yaml", format_device_yaml(r.best->inputs.device));
    }
    staged.commit();
  }
  if (a.json) {
    fmt::print("{}\n", j.dump());
  } else {
    print_summary(r, in, session.world().size, wall_s);
    if (!a.output.empty()) {
      fmt::print("wrote {}/search.json{}\n", a.output, r.best ? ", best_budget.yaml, best_device.yaml" : "");
    }
  }
  return r.best ? 0 : 3;
}

void setup_pathfind_search(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<SearchArgs>();
  auto* sub = parent.add_subcommand(
      "search", "Search the area, power and perimeter budgets (and the parallelism) for the fastest design "
                "(seed 004 SOE; MPI-parallel; exit 3 when no design is feasible)");
  snr::cli::PredictOptions& o = args->inputs;
  snr::cli::add_generator_options(sub, o);
  sub->add_option("--model", o.model, "workload YAML (transformer training/prefill/decode, a GEMM or an LSTM)");
  sub->add_option("--parallelism", o.parallelism,
                  "one strategy (RC-4-2-d1-p1, CR-8-d1-p1, tp=8,pp=2, ...) or search[,sp,recompute=...,"
                  "interleave=,zero1] for every strategy of --devices");
  sub->add_option("--devices", o.devices, "devices in the system (needed by --parallelism search)")
      ->check(snr::cli::in_range(1, uint64_t{1} << 40));
  sub->add_option("--strategy", args->engine, "search strategy: gd or random (--list-strategies)")
      ->capture_default_str();
  // Loose limits here; the strategy's own ranges are checked by the registry,
  // whose errors name the key.
  const CLI::Validator count = snr::cli::in_range(0, 1000000000);
  sub->add_option("--steps", args->steps, "gd: gradient steps per start at most (T, default 100)")->check(count);
  sub->add_option("--starts", args->starts, "starting points (S, default 10)")->check(count);
  sub->add_option("--samples", args->samples, "random: designs drawn in all (default 1000)")->check(count);
  sub->add_option("--set", args->settings, "another key of the strategy, KEY=VALUE (e.g. lr=0.1, beta=0.5)");
  sub->add_option("--seed", args->seed, "seed of the random starting points and draws")->capture_default_str();
  sub->add_option("--max-designs", args->max_designs,
                  "refuse a search that could evaluate more designs than this (strategies x starts x the "
                  "strategy's worst case per start); raise it for a search spread over many MPI ranks")
      ->check(snr::cli::in_range(1, static_cast<uint64_t>(ps::kMaxSearchEvaluationsAllowed)))
      ->capture_default_str();
  sub->add_option("-o,--output", args->output, "directory for search.json, best_budget.yaml and best_device.yaml");
  sub->add_flag("--json", args->json, "print one JSON object (best, strategies, trajectory, pareto, evaluations)");
  sub->add_flag("--list-strategies", args->list, "list the search strategies and their keys, then exit");
  snr::cli::set_examples(
      sub, {"snr pathfind search --tech n7 --arch gpu-16x16 --budget a100-like "
            "--model examples/pathfind/gemm-8k.yaml --parallelism CR-8-d1-p1",
            "snr pathfind search --tech n7 --arch gpu-16x16 --budget a100-like "
            "--model examples/pathfind/gemm-8k.yaml --parallelism search --devices 8 -o out/search",
            "snr pathfind search --tech n7 --arch gpu-16x16 --budget a100-like "
            "--model examples/pathfind/gemm-8k.yaml --parallelism RC-2-4-d1-p1 --strategy random --samples 10000",
            "snr pathfind search --list-strategies"});
  sub->callback([args, &ctx] { ctx.exit_code = run_search(*args); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(pathfind, "Cross-stack performance model: kernels, training iterations, generated hardware",
                        search, setup_pathfind_search);
