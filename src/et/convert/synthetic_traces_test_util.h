// Constructed host ET + Kineto pairs for the linker tests: one host thread
// of `ops` operators with pseudo-random names, each launching one kernel, and
// a Kineto trace of the same ops whose External ids are shifted, preceded by
// another iteration, renamed or stripped as the spec asks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/kineto_trace.h"

namespace snr::et_convert {

struct SyntheticSpec {
  size_t ops = 100;
  int64_t external_id_offset = 0;  // External id = rf_id + offset (+ kineto_ops_before)
  size_t kineto_ops_before = 0;    // ops of another iteration first in Kineto
  size_t jump_after = 0;           // Kineto ids jump by `jump` after this many ops
  int64_t jump = 0;
  bool kineto_ids = true;          // false: no External ids at all
  size_t kineto_names_shift = 0;   // non-zero: Kineto ops carry other names
  bool markers = false;            // two "## ... ##" markers among the host ops
  size_t missing_in_kineto = 0;    // the last N host ops never reach Kineto
};

struct SyntheticPair {
  pytorch::HostTrace host;
  pytorch::KinetoTrace device;
};

// 2023-07-12 16:47:27 UTC in microseconds; the host "time" is that in UTC-4.
inline constexpr int64_t kSyntheticBaseMicros = 1689180447000000;

inline SyntheticPair synthetic_pair(const SyntheticSpec& spec) {
  static const std::vector<std::string> kNames = {
      "aten::addmm", "aten::relu", "aten::t", "aten::empty", "aten::mm", "aten::add_", "aten::view",
      "aten::fill_", "aten::zero_", "aten::sum", "aten::mul", "aten::copy_", "aten::linear"};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next_name = [&state](size_t shift) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return kNames[((state >> 33) + shift) % kNames.size()];
  };
  struct Item {
    std::string name;
    bool marker = false;
  };
  std::vector<Item> items;
  std::vector<std::string> kineto_names;
  for (size_t i = 0; i < spec.ops; ++i) {
    if (spec.markers && (i == 0 || i == spec.ops / 2)) items.push_back({"## step " + std::to_string(i) + " ##", true});
    const uint64_t saved = state;
    items.push_back({next_name(0), false});
    state = saved;
    kineto_names.push_back(next_name(spec.kineto_names_shift));
  }
  using nlohmann::json;
  json nodes = json::array();
  auto attrs = [](uint64_t rf_id) {
    return json::array({{{"name", "rf_id"}, {"type", "uint64"}, {"value", rf_id}},
                        {{"name", "tid"}, {"type", "uint64"}, {"value", 1}}});
  };
  const json empty = {{"values", json::array()}, {"shapes", json::array()}, {"types", json::array()}};
  nodes.push_back({{"id", 2}, {"name", "[pytorch|profiler|execution_trace|thread]"}, {"ctrl_deps", 1},
                   {"inputs", empty}, {"outputs", empty}, {"attrs", attrs(0)}});
  for (size_t k = 0; k < items.size(); ++k) {
    nodes.push_back({{"id", 10 + k}, {"name", items[k].name}, {"ctrl_deps", 2}, {"inputs", empty},
                     {"outputs", empty}, {"attrs", attrs(k + 1)}});
  }
  const json host = {{"schema", "1.1.1-chakra.0.0.4"}, {"pid", 24248}, {"time", "2023-07-12 12:47:27"},
                     {"nodes", nodes}};

  json events = json::array();
  int64_t position = 0;
  int64_t correlation = 1;
  auto add_op = [&](const std::string& name, std::optional<int64_t> external_id, bool annotation) {
    const int64_t ts = kSyntheticBaseMicros + 1000 * position++;
    json args = json::object();
    if (external_id && spec.kineto_ids) args["External id"] = *external_id;
    events.push_back({{"ph", "X"}, {"cat", annotation ? "user_annotation" : "cpu_op"}, {"name", name},
                      {"pid", 24248}, {"tid", 24248}, {"ts", ts}, {"dur", 500}, {"args", args}});
    if (annotation) return;
    events.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"pid", 24248},
                      {"tid", 24248}, {"ts", ts + 10}, {"dur", 5}, {"args", {{"correlation", correlation}}}});
    events.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", name + "_kernel"}, {"pid", 0}, {"tid", 7},
                      {"ts", ts + 100}, {"dur", 50},
                      {"args", {{"correlation", correlation}, {"stream", 7}, {"device", 0}}}});
    ++correlation;
  };
  uint64_t other = 12345;
  for (size_t b = 0; b < spec.kineto_ops_before; ++b) {
    other = other * 6364136223846793005ull + 1442695040888963407ull;
    add_op(kNames[(other >> 33) % kNames.size()], static_cast<int64_t>(b + 1), false);
  }
  size_t real = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    if (!items[k].marker && real >= spec.ops - spec.missing_in_kineto) break;
    int64_t id = static_cast<int64_t>(k + 1) + spec.external_id_offset + static_cast<int64_t>(spec.kineto_ops_before);
    if (spec.jump_after != 0 && k >= spec.jump_after) id += spec.jump;
    add_op(items[k].marker ? items[k].name : kineto_names[real], id, items[k].marker);
    if (!items[k].marker) ++real;
  }
  const json device = {{"schemaVersion", 1}, {"traceEvents", events}};
  return {pytorch::parse_host_trace(host, "synthetic host"), pytorch::parse_kineto_trace(device, "synthetic kineto")};
}

}  // namespace snr::et_convert
