#include "dsim/network/ns3/astra_sim_ns3_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "common/text.h"
#include "common/units.h"

namespace snr::dsim {
namespace {

// The fork's settings snr's stock ns-3 transport has no counterpart for:
// accepted and named in a note.
constexpr std::string_view kTransportKeys[] = {
    "ENABLE_QCN", "USE_DYNAMIC_PFC_THRESHOLD", "CLAMP_TARGET_RATE", "PAUSE_TIME", "L2_CHUNK_SIZE",
    "L2_ACK_INTERVAL", "L2_BACK_TO_ZERO", "ALPHA_RESUME_INTERVAL", "RP_TIMER", "EWMA_GAIN", "FAST_RECOVERY_TIMES",
    "RATE_AI", "RATE_HAI", "CC_MODE", "RATE_DECREASE_INTERVAL", "MIN_RATE", "HAS_WIN", "GLOBAL_T", "MI_THRESH",
    "VAR_WIN", "FAST_REACT", "U_TARGET", "INT_MULTI", "RATE_BOUND", "ACK_HIGH_PRIO", "DCTCP_RATE_AI",
    "NIC_TOTAL_PAUSE_TIME", "KMAX_MAP", "KMIN_MAP", "PMAX_MAP", "MULTI_RATE", "SAMPLE_FEEDBACK", "PINT_LOG_BASE",
    "PINT_PROB"};
// Its input and output files besides the topology (flows, traces, FCT, PFC,
// queue monitors) and run controls: accepted, not read or written (snr's
// results go to `-o DIR`).
constexpr std::string_view kFileAndRunKeys[] = {
    "FLOW_FILE", "TRACE_FILE", "TRACE_OUTPUT_FILE", "FCT_OUTPUT_FILE", "PFC_OUTPUT_FILE", "QLEN_MON_FILE",
    "QLEN_MON_START", "QLEN_MON_END", "ENABLE_TRACE", "SIMULATOR_STOP_TIME", "DATA_RATE", "LINK_DELAY"};

bool one_of(std::string_view key, const auto& keys) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

// The ranges are those of snr's own ns-3 configuration (ns3_config.h), so a
// value it would refuse is refused here, at the user's line and key.
uint64_t whole_number(std::string_view text, std::string_view where, uint64_t max_value, uint64_t min_value = 0) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < min_value || value > max_value) {
    throw Error(fmt::format("{}: '{}' is not a whole number in {} .. {}", where, text, min_value, max_value));
  }
  return value;
}

// A packet error rate: snr's links lose no packets, so only 0 is valid.
void check_no_loss(std::string_view text, std::string_view where) {
  double rate = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rate);
  if (error != std::errc{} || end != text.data() + text.size() || rate != 0) {
    throw Error(fmt::format("{} '{}': only 0 is modelled (no packet loss on links)", where, text));
  }
}

// TOPOLOGY_FILE is relative to where ASTRA-sim's ns-3 binary runs
// (build/scratch of the fork): try it as given, then beside the
// configuration and up to three folders above it, with ever fewer leading
// components.
std::filesystem::path find_topology_file(const std::string& named, const std::filesystem::path& config_path) {
  namespace fs = std::filesystem;
  const fs::path given(named);
  if (fs::is_regular_file(given)) return given;
  std::vector<fs::path> tried{given};
  if (given.is_relative()) {
    const std::vector<fs::path> parts(given.begin(), given.end());
    fs::path base = config_path.parent_path();
    for (int up = 0; up <= 3; ++up) {
      for (size_t skip = 0; skip < parts.size(); ++skip) {
        fs::path candidate = base;
        for (size_t i = skip; i < parts.size(); ++i) candidate /= parts[i];
        // (Never the configuration itself, which a bare file name can hit.)
        std::error_code same_error;
        if (fs::is_regular_file(candidate) && !fs::equivalent(candidate, config_path, same_error)) {
          return candidate.lexically_normal();
        }
        tried.push_back(candidate);
      }
      if (!base.has_parent_path() || base.parent_path() == base) break;
      base = base.parent_path();
    }
  }
  throw Error(fmt::format("TOPOLOGY_FILE '{}' was not found (tried it as given, beside the configuration and in the "
                          "three folders above it, with fewer leading components: {} places)",
                          named, tried.size()));
}

}  // namespace

bool is_astra_sim_ns3_config(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = trim_blanks(text.substr(at, end - at));
    at = end + 1;
    if (line.empty() || line.front() == '#') continue;
    const auto words = split_blanks(line);
    if (words.size() < 2) return false;
    return std::all_of(words[0].begin(), words[0].end(),
                       [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
  }
  return false;
}

double parse_ns3_data_rate_gbit_per_s(std::string_view text, std::string_view where) {
  // ns-3 writes "bps" where snr's units say "b/s" (and "Bps" for "B/s").
  std::string rate(text);
  if (rate.ends_with("bps") || rate.ends_with("Bps")) rate.replace(rate.size() - 2, 2, "/s");
  const Result<Bandwidth> bandwidth = parse_bandwidth(rate);
  if (!bandwidth) {
    throw Error(fmt::format("{}: data rate '{}' is not an ns-3 rate such as 400Gbps, 100Mbps or 12.5GBps ({})", where,
                            text, bandwidth.error().what()));
  }
  return bandwidth->bytes_per_second * 8 / 1e9;
}

double parse_ns3_time_ns(std::string_view text, std::string_view where) {
  const Result<Duration> duration = parse_duration(text);
  if (!duration) throw Error(fmt::format("{}: time {}", where, duration.error().what()));
  if (duration->picoseconds < 0) throw Error(fmt::format("{}: time '{}' is negative", where, text));
  return duration->nanoseconds();
}

std::vector<uint32_t> parse_astra_sim_logical_dims(std::string_view json_text, std::string_view source) {
  return with_error_context(fmt::format("logical topology {}", source), [&] {
    const nlohmann::json root = parse_json_input(json_text, "");
    if (!root.is_object()) throw Error("top level must be an object with \"logical-dims\"");
    for (const auto& [key, value] : root.items()) {
      if (key != "logical-dims") throw Error(fmt::format("unknown key '{}' (ASTRA-sim reads \"logical-dims\")", key));
    }
    if (!root.contains("logical-dims") || !root["logical-dims"].is_array() || root["logical-dims"].empty()) {
      throw Error("\"logical-dims\" must be a non-empty list of dimension sizes");
    }
    std::vector<uint32_t> dims;
    for (const auto& entry : root["logical-dims"]) {
      // ASTRA-sim writes the sizes as strings ("8") and reads them with stoi.
      const std::string text = entry.is_string() ? entry.get<std::string>() : entry.dump();
      dims.push_back(static_cast<uint32_t>(
          whole_number(text, fmt::format("logical-dims[{}]", dims.size()), kMaxNs3Nodes)));
      if (dims.back() == 0) throw Error(fmt::format("logical-dims[{}] is 0", dims.size() - 1));
    }
    return dims;
  });
}

void parse_astra_sim_ns3_topology(std::string_view text, std::string_view source, Ns3NetworkConfig& config) {
  with_error_context(fmt::format("ns-3 topology {}", source), [&] {
    std::vector<std::pair<int, std::vector<std::string_view>>> lines;  // (line number, words)
    size_t at = 0;
    for (int number = 1; at < text.size(); ++number) {
      const size_t end = std::min(text.find('\n', at), text.size());
      auto words = split_blanks(text.substr(at, end - at));
      at = end + 1;
      if (!words.empty()) lines.emplace_back(number, std::move(words));
    }
    if (lines.empty() || lines[0].second.size() != 3) {
      throw Error("the first line must be \"nodes switches links\"");
    }
    const auto& head = lines[0];
    const std::string line1 = fmt::format("line {}", head.first);
    const uint64_t nodes = whole_number(head.second[0], line1 + ": nodes", kMaxNs3Nodes);
    const uint64_t switches = whole_number(head.second[1], line1 + ": switches", nodes);
    const uint64_t links = whole_number(head.second[2], line1 + ": links", uint64_t{1} << 24);
    if (nodes == switches) throw Error(fmt::format("{}: {} nodes, all of them switches: no NPU", line1, nodes));
    // The switch ids: on the lines after the first, as many as declared.
    size_t next = 1;
    std::set<uint64_t> switch_ids;
    while (switch_ids.size() < switches) {
      if (next >= lines.size()) {
        throw Error(fmt::format("{} switch ids declared, {} found", switches, switch_ids.size()));
      }
      for (const std::string_view word : lines[next].second) {
        const uint64_t id = whole_number(word, fmt::format("line {}: switch id", lines[next].first), nodes - 1);
        if (!switch_ids.insert(id).second) throw Error(fmt::format("line {}: switch {} twice", lines[next].first, id));
      }
      ++next;
    }
    if (switch_ids.size() != switches) {
      throw Error(fmt::format("{} switch ids declared, {} found", switches, switch_ids.size()));
    }
    const uint64_t npus = nodes - switches;
    if (!switch_ids.empty() && *switch_ids.begin() < npus) {
      throw Error(fmt::format("switch {} is among nodes 0..{}: ASTRA-sim runs NPU i on node i, so the {} switches "
                              "must be nodes {}..{}",
                              *switch_ids.begin(), npus - 1, switches, npus, nodes - 1));
    }
    config.npus = static_cast<uint32_t>(npus);
    config.switches = static_cast<uint32_t>(switches);
    config.links.clear();
    for (; next < lines.size(); ++next) {
      const auto& [number, words] = lines[next];
      const std::string where = fmt::format("line {}", number);
      if (words.size() != 5) throw Error(fmt::format("{}: a link is \"src dst rate delay error_rate\"", where));
      Ns3Link link;
      link.from = static_cast<uint32_t>(whole_number(words[0], where + ": src", nodes - 1));
      link.to = static_cast<uint32_t>(whole_number(words[1], where + ": dst", nodes - 1));
      if (link.from == link.to) throw Error(fmt::format("{}: joins node {} to itself", where, link.from));
      link.bandwidth_gbit_per_s = parse_ns3_data_rate_gbit_per_s(words[2], where);
      if (!(link.bandwidth_gbit_per_s >= kMinNs3BandwidthGbitPerS &&
            link.bandwidth_gbit_per_s <= kMaxNs3BandwidthGbitPerS)) {
        throw Error(fmt::format("{}: rate '{}' is out of range: valid {} .. {} Gb/s", where, words[2],
                                kMinNs3BandwidthGbitPerS, kMaxNs3BandwidthGbitPerS));
      }
      link.latency_ns = parse_ns3_time_ns(words[3], where);
      if (link.latency_ns > kMaxNs3LatencyNs) {
        throw Error(fmt::format("{}: delay '{}' is out of range: valid 0 .. {} ns", where, words[3], kMaxNs3LatencyNs));
      }
      check_no_loss(words[4], where + ": error_rate");
      config.links.push_back(link);
    }
    if (config.links.size() != links) {
      throw Error(fmt::format("{} links declared, {} given", links, config.links.size()));
    }
  });
}

AstraSimNs3Settings parse_astra_sim_ns3_settings(std::string_view text, std::string_view source) {
  return with_error_context(fmt::format("ASTRA-sim ns-3 configuration {}", source), [&] {
    AstraSimNs3Settings settings;
    std::set<std::string> seen;
    size_t at = 0;
    for (int number = 1; at < text.size(); ++number) {
      const size_t end = std::min(text.find('\n', at), text.size());
      const std::string_view line = trim_blanks(text.substr(at, end - at));
      at = end + 1;
      if (line.empty() || line.front() == '#') continue;
      const auto words = split_blanks(line);
      const std::string key(words[0]);
      const std::string where = fmt::format("line {}: {}", number, key);
      if (words.size() < 2) throw Error(fmt::format("{} has no value", where));
      if (!seen.insert(key).second) throw Error(fmt::format("{} is given twice", where));
      if (key == "TOPOLOGY_FILE") {
        settings.topology_file = std::string(words[1]);
      } else if (key == "PACKET_PAYLOAD_SIZE") {
        settings.packet_payload_bytes =
            static_cast<uint32_t>(whole_number(words[1], where, kMaxNs3PayloadBytes, kMinNs3PayloadBytes));
      } else if (key == "BUFFER_SIZE") {
        // In MB; a queue holds two packets of the largest payload at least.
        const uint64_t min_mb = (2 * uint64_t{kMaxNs3PayloadBytes} + (1 << 20) - 1) >> 20;
        settings.port_queue_bytes = whole_number(words[1], where, kMaxNs3QueueBytes >> 20, min_mb) << 20;
      } else if (key == "ERROR_RATE_PER_LINK") {
        check_no_loss(words[1], where);
      } else if (key == "LINK_DOWN") {
        if (words.size() != 4 || words[1] != "0" || words[2] != "0" || words[3] != "0") {
          throw Error(fmt::format("{}: only \"0 0 0\" (no link taken down) is modelled", where));
        }
      } else if (one_of(key, kTransportKeys)) {
        settings.transport_keys.push_back(key);
      } else if (!one_of(key, kFileAndRunKeys)) {
        throw Error(fmt::format("{}: unknown key (not one ASTRA-sim's ns-3 reads)", where));
      }
    }
    if (settings.topology_file.empty()) throw Error("TOPOLOGY_FILE is missing");
    return settings;
  });
}

namespace {

// ASTRA-sim's ns-3 frontend runs as many NPUs as the logical dimensions
// hold, NPU i on node i; the topology's other hosts (its 16-NPU examples run
// on the 128-host Clos) carry no NPU. They stay in the network as nodes
// without an NPU, named host<i>, after the NPUs and before the switches.
void idle_extra_hosts(AstraSimNs3Input& input, uint32_t npus, const std::string& source) {
  Ns3NetworkConfig& config = input.config;
  const uint32_t hosts = config.npus;
  config.node_names.clear();
  for (uint32_t node = 0; node < config.node_count(); ++node) {
    config.node_names.push_back(node < npus    ? fmt::format("npu{}", node)
                                : node < hosts ? fmt::format("host{}", node)
                                               : fmt::format("switch{}", node - hosts));
  }
  config.switches += hosts - npus;
  config.npus = npus;
  input.notes.push_back(fmt::format("{}: the logical dimensions hold {} NPUs: hosts {}..{} of the topology's {} run "
                                    "none and stay in the network idle, as in ASTRA-sim",
                                    source, npus, npus, hosts - 1, hosts));
}

}  // namespace

AstraSimNs3Input read_astra_sim_ns3_input(std::string_view config_text, const std::filesystem::path& config_path,
                                          const std::vector<uint32_t>& logical_dims) {
  const AstraSimNs3Settings settings = parse_astra_sim_ns3_settings(config_text, config_path.string());
  return with_error_context(fmt::format("ASTRA-sim ns-3 configuration {}", config_path.string()), [&] {
    AstraSimNs3Input input;
    input.config.packet_payload_bytes = settings.packet_payload_bytes;
    input.config.port_queue_bytes = settings.port_queue_bytes;
    input.topology_file = find_topology_file(settings.topology_file, config_path);
    parse_astra_sim_ns3_topology(read_file(input.topology_file), input.topology_file.string(), input.config);
    if (!logical_dims.empty()) {
      uint64_t product = 1;
      for (const uint32_t size : logical_dims) product *= size;
      if (product > input.config.npus) {
        throw Error(fmt::format("the logical dimensions [{}] hold {} NPUs, the topology only {}",
                                fmt::join(logical_dims, ", "), product, input.config.npus));
      }
      if (product < input.config.npus) {
        idle_extra_hosts(input, static_cast<uint32_t>(product), config_path.string());
      }
      input.config.logical_dims = logical_dims;
    }
    if (!settings.transport_keys.empty()) {
      input.notes.push_back(fmt::format(
          "{}: {} RDMA transport settings of ASTRA-sim's ns-3 fork ({}) are not modelled: snr's ns-3 backend sends "
          "messages over stock ns-3 (UDP, drop-tail port queues, ECMP)",
          config_path.string(), settings.transport_keys.size(), fmt::join(settings.transport_keys, ", ")));
    }
    return input;
  });
}

}  // namespace snr::dsim
