// snr collective protocols — seed 003 §3.2's α–β comparison of the LL and
// Simple protocols on one link (Figure 4): transfer bandwidth per size and
// the size at which Simple overtakes LL, for each latency given.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/collective_run.h"
#include "cli/command.h"
#include "common/error.h"
#include "common/units.h"
#include "dsim/loadstore/protocols.h"

namespace {

namespace ls = snr::dsim::loadstore;

struct ProtocolArgs {
  std::string bandwidth = "256GiB/s";
  std::vector<std::string> latencies = {"0.5us", "5us"};
  std::string min_size = "1KiB";
  std::string max_size = "1GiB";
  bool json = false;
};

template <typename T>
T parsed(snr::Result<T> result, std::string_view option) {
  if (!result) throw snr::Error(fmt::format("{}: {}", option, result.error().what()));
  return *result;
}

double gib_per_s(double bytes_per_s) { return bytes_per_s / (1024.0 * 1024 * 1024); }

int run_protocols(const ProtocolArgs& args) {
  const double bandwidth = parsed(snr::parse_bandwidth(args.bandwidth), "--bandwidth").bytes_per_second;
  // Beyond these no link exists; a typo in the unit should not pass as one.
  constexpr double kMaxBandwidthBytesPerS = 1e15, kMaxLatencyNs = 1e9;
  if (bandwidth <= 0 || bandwidth > kMaxBandwidthBytesPerS) {
    throw snr::Error(fmt::format("--bandwidth {}: must be above 0 and at most 1PB/s", args.bandwidth));
  }
  const uint64_t min_bytes = parsed(snr::parse_bytes(args.min_size), "--min-size").count;
  const uint64_t max_bytes = parsed(snr::parse_bytes(args.max_size), "--max-size").count;
  nlohmann::ordered_json out;
  out["bandwidth_bytes_per_s"] = bandwidth;
  out["model"] = "LL: latency + size / (bandwidth / 2); Simple: 3 x latency + size / bandwidth";
  out["links"] = nlohmann::ordered_json::array();
  std::string text = fmt::format("LL vs Simple on one link of {} (α–β model, seed 003 §3.2)\n", args.bandwidth);
  for (const std::string& latency_text : args.latencies) {
    const double latency_ns = parsed(snr::parse_duration(latency_text), "--latency").nanoseconds();
    if (latency_ns > kMaxLatencyNs) throw snr::Error(fmt::format("--latency {}: at most 1s", latency_text));
    const double latency_s = latency_ns / 1e9;
    const ls::AlphaBetaLink link{bandwidth, latency_s};
    const auto rows = ls::protocol_sweep(link, min_bytes, max_bytes);
    const uint64_t overtakes = ls::simple_overtakes_ll_bytes(link, min_bytes, max_bytes);
    nlohmann::ordered_json j;
    j["latency_ns"] = latency_ns;
    j["simple_equals_ll_bytes"] = ls::simple_equals_ll_bytes(link);
    j["simple_overtakes_ll_bytes"] = overtakes;
    j["sizes"] = nlohmann::ordered_json::array();
    text += fmt::format("\nlatency {}: equal at {:.0f} B; Simple faster from {}\n", latency_text,
                        ls::simple_equals_ll_bytes(link),
                        overtakes == 0 ? std::string("no size in the range")
                                       : snr::format_bytes(snr::Bytes{overtakes}));
    text += fmt::format("  {:>10}  {:>14}  {:>14}\n", "size", "LL GiB/s", "Simple GiB/s");
    for (const auto& row : rows) {
      const auto bytes = static_cast<double>(row.bytes);
      j["sizes"].push_back({{"bytes", row.bytes},
                            {"ll_ns", row.ll_s * 1e9},
                            {"simple_ns", row.simple_s * 1e9},
                            {"ll_bytes_per_s", bytes / row.ll_s},
                            {"simple_bytes_per_s", bytes / row.simple_s}});
      text += fmt::format("  {:>10}  {:>14.3f}  {:>14.3f}{}\n", snr::format_bytes(snr::Bytes{row.bytes}),
                          gib_per_s(bytes / row.ll_s), gib_per_s(bytes / row.simple_s),
                          row.bytes == overtakes ? "  <- Simple overtakes" : "");
    }
    out["links"].push_back(std::move(j));
  }
  fmt::print("{}", args.json ? out.dump(2) + "\n" : text);
  return 0;
}

void setup_protocols(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<ProtocolArgs>();
  auto* sub = parent.add_subcommand("protocols", "LL vs Simple in the α–β model of one link (seed 003 §3.2, "
                                                 "Figure 4): bandwidth per size and where Simple overtakes");
  sub->add_option("--bandwidth", args->bandwidth, "link bandwidth (e.g. 256GiB/s, 1TiB/s)")->capture_default_str();
  sub->add_option("--latency", args->latencies, "link latency, one or more (e.g. 0.5us 5us)")->capture_default_str();
  sub->add_option("--min-size", args->min_size, "smallest transfer (sizes double up to --max-size)")
      ->capture_default_str();
  sub->add_option("--max-size", args->max_size, "largest transfer")->capture_default_str();
  sub->add_flag("--json", args->json, "one JSON object: per latency the crossover and every size's times");
  snr::cli::set_examples(sub, {"snr collective protocols --bandwidth 256GiB/s --latency 0.5us 5us",
                               "snr collective protocols --bandwidth 1TiB/s --latency 0.5us 5us --json"});
  sub->callback([args, &ctx] { ctx.exit_code = run_protocols(*args); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(collective, snr::cli::kCollectiveVerbDescription, protocols, setup_protocols);
