#include "hw/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <charconv>
#include <fmt/format.h>
#include <variant>

#include "common/assignments.h"
#include "common/file_io.h"
#include "common/yaml_input.h"

namespace snr::hw {
namespace {

using FieldRef = std::variant<uint64_t HwConfig::*, Bytes HwConfig::*, Duration HwConfig::*,
                              Bandwidth HwConfig::*, Frequency HwConfig::*, TopologyKind HwConfig::*>;

// Valid range of a key in its base unit (count, bytes, picoseconds, bytes
// per second, hertz). Every key has one: docs/hardware.md and
// docs/errors.md list them, and the bounds keep every derived fixed-point
// value (cycles, Q16 bytes per cycle, byte addresses) far from overflow.
struct Range {
  long double min = 0;
  long double max = 0;
};

struct Field {
  KeyInfo info;
  FieldRef ref;
  Range range;
};

// Bounds shared by keys of one kind.
constexpr Range kLatencyCycles{1, 1u << 20};
constexpr Range kBandwidthRange{1e6L, 1e15L};   // 1MB/s .. 1PB/s
constexpr Range kLatencyRange{0, 1e12L};        // 0 .. 1s, in ps
constexpr Range kClockRange{1e6L, 1e11L};       // 1MHz .. 100GHz
// The most a bandwidth's fixed point or a latency's whole cycles may change
// the value a config gives before it is refused as other hardware.
constexpr long double kMaxRoundingLoss = 1e-2L;

// The single table of hardware parameters. Defaults are the tpu-v4-like
// preset; docs/hardware.md says which figures are public and which are
// modelling assumptions.
const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      {{"clock", ValueKind::kFrequency, "1050MHz", "core clock; every latency is converted to cycles of it"},
       &HwConfig::clock, kClockRange},
      {{"chips", ValueKind::kCount, "1", "number of chips in the system"}, &HwConfig::chip_count, {1, 256}},
      {{"topology.kind", ValueKind::kTopology, "ring", "ring, torus2d or fully_connected"}, &HwConfig::topology, {0, 0}},
      {{"topology.torus_width", ValueKind::kCount, "0",
        "columns of a 2-D torus (must divide chips); 0 picks the most square shape"},
       &HwConfig::torus_width, {0, 256}},
      // At most 32: the ISA names a matrix unit in a 5-bit field (mxu0..mxu31),
      // so more could be neither compiled for nor used.
      {{"mxu.count", ValueKind::kCount, "8", "128x128 bf16 matrix units per chip (the ISA names mxu0..mxu31)"},
       &HwConfig::mxu_count, {1, 32}},
      {{"mxu.weight_load_cycles", ValueKind::kCount, "128",
        "cycles to stage a 128x128 weight tile from VMEM (one row per cycle)"},
       &HwConfig::mxu_weight_load_cycles, kLatencyCycles},
      {{"mxu.fill_cycles", ValueKind::kCount, "128",
        "cycles from pushing an 8x128 LHS until its products reach the accumulator"},
       &HwConfig::mxu_fill_cycles, kLatencyCycles},
      {{"mxu.push_interval_cycles", ValueKind::kCount, "8",
        "cycles the systolic array is busy per 8-row push"},
       &HwConfig::mxu_push_interval_cycles, kLatencyCycles},
      {{"mxu.drain_cycles", ValueKind::kCount, "8", "cycles to move the accumulator to a vector register"},
       &HwConfig::mxu_drain_cycles, kLatencyCycles},
      {{"vector.alu_latency_cycles", ValueKind::kCount, "4", "result latency of vector arithmetic"},
       &HwConfig::vector_alu_latency_cycles, kLatencyCycles},
      {{"vector.transcendental_latency_cycles", ValueKind::kCount, "16",
        "result latency of exp, rsqrt, reciprocal"},
       &HwConfig::vector_transcendental_latency_cycles, kLatencyCycles},
      {{"vector.issue_interval_cycles", ValueKind::kCount, "1",
        "cycles the vector unit is busy per instruction"},
       &HwConfig::vector_issue_interval_cycles, kLatencyCycles},
      {{"vector.load_latency_cycles", ValueKind::kCount, "8", "VMEM to vector register latency"},
       &HwConfig::vector_load_latency_cycles, kLatencyCycles},
      {{"scalar.alu_latency_cycles", ValueKind::kCount, "1", "integer ALU result latency"},
       &HwConfig::scalar_alu_latency_cycles, kLatencyCycles},
      {{"scalar.mul_latency_cycles", ValueKind::kCount, "3", "integer multiply latency"},
       &HwConfig::scalar_mul_latency_cycles, kLatencyCycles},
      {{"scalar.div_latency_cycles", ValueKind::kCount, "20",
        "integer divide/remainder latency (unpipelined)"},
       &HwConfig::scalar_div_latency_cycles, kLatencyCycles},
      {{"scalar.load_latency_cycles", ValueKind::kCount, "3", "SMEM load-to-use latency"},
       &HwConfig::scalar_load_latency_cycles, kLatencyCycles},
      {{"scalar.branch_taken_penalty_cycles", ValueKind::kCount, "2",
        "issue bubble after a taken branch or jump"},
       &HwConfig::branch_taken_penalty_cycles, {0, 1u << 20}},
      {{"smem.bytes", ValueKind::kBytes, "16MiB",
        "scalar space backed by SMEM (program + data + stack); at most 256MiB"},
       &HwConfig::smem_bytes, {4096, 256ull << 20}},
      {{"smem.bandwidth", ValueKind::kBandwidth, "64GB/s", "DMA bandwidth into/out of SMEM"},
       &HwConfig::smem_bandwidth, kBandwidthRange},
      {{"vmem.page_bytes", ValueKind::kBytes, "512B", "VMEM page size (one 128-lane f32 row)"},
       &HwConfig::vmem_page_bytes, {64, 1u << 20}},
      {{"vmem.pages_per_block", ValueKind::kCount, "256", "pages per VMEM block"},
       &HwConfig::vmem_pages_per_block, {1, 1u << 20}},
      {{"vmem.blocks", ValueKind::kCount, "128", "VMEM blocks"}, &HwConfig::vmem_blocks, {1, 1u << 20}},
      {{"vmem.bandwidth", ValueKind::kBandwidth, "2TB/s", "DMA bandwidth into/out of VMEM"},
       &HwConfig::vmem_bandwidth, kBandwidthRange},
      {{"hbm.bytes", ValueKind::kBytes, "32GiB", "HBM capacity per chip"}, &HwConfig::hbm_bytes, {4096, 1ull << 48}},
      {{"hbm.bandwidth", ValueKind::kBandwidth, "1200GB/s", "HBM bandwidth per chip"},
       &HwConfig::hbm_bandwidth, kBandwidthRange},
      {{"dma.base_latency", ValueKind::kDuration, "500ns",
        "constant issue-to-engine latency of every DMA; overlaps across parallel DMAs"},
       &HwConfig::dma_base_latency, kLatencyRange},
      {{"dma.max_outstanding", ValueKind::kCount, "64", "DMAs in flight per chip before ISSUE stalls"},
       &HwConfig::dma_max_outstanding, {1, 1u << 16}},
      {{"ici.links_per_chip", ValueKind::kCount, "6", "inter-chip links per chip"},
       &HwConfig::ici_links_per_chip, {1, 64}},
      {{"ici.link_bandwidth", ValueKind::kBandwidth, "50GB/s", "bandwidth of one ICI link, one direction"},
       &HwConfig::ici_link_bandwidth, kBandwidthRange},
      {{"ici.hop_latency", ValueKind::kDuration, "100ns", "added latency per ICI hop of a remote DMA"},
       &HwConfig::ici_hop_latency, kLatencyRange},
  };
  return table;
}

const Field* find_field(std::string_view key) {
  for (const Field& f : fields()) {
    if (f.info.key == key) return &f;
  }
  return nullptr;
}

std::string known_keys_hint(std::string_view key) {
  // Suggest keys sharing the section prefix so a typo is quick to fix.
  std::string_view section = key.substr(0, key.find('.'));
  std::string hint;
  for (const Field& f : fields()) {
    if (f.info.key.substr(0, f.info.key.find('.')) == section) {
      hint += hint.empty() ? "" : ", ";
      hint += f.info.key;
    }
  }
  return hint.empty() ? "see docs/hardware.md for the key list" : "keys in this section: " + hint;
}

uint64_t parse_count(std::string_view text) {
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    throw Error(fmt::format("'{}' is not a non-negative integer", text));
  }
  return value;
}

TopologyKind parse_topology(std::string_view text) {
  if (text == "ring") return TopologyKind::kRing;
  if (text == "torus2d") return TopologyKind::kTorus2d;
  if (text == "fully_connected") return TopologyKind::kFullyConnected;
  throw Error(fmt::format("'{}' is not a topology (ring, torus2d, fully_connected)", text));
}

// Renders a bound in the key's unit, for errors and the docs.
std::string range_text(const Field& field, long double value) {
  switch (field.info.kind) {
    case ValueKind::kBytes: return format_bytes(Bytes{static_cast<uint64_t>(value)});
    case ValueKind::kDuration: return format_duration(Duration{static_cast<int64_t>(value)});
    case ValueKind::kBandwidth: return format_bandwidth(Bandwidth{static_cast<double>(value)});
    case ValueKind::kFrequency: return format_frequency(Frequency{static_cast<double>(value)});
    default: return fmt::format("{}", static_cast<uint64_t>(value));
  }
}

void check_range(const Field& field, long double value, std::string_view text) {
  if (value < field.range.min || value > field.range.max) {
    throw Error(fmt::format("{} = {} is out of range: valid {} .. {}", field.info.key, text,
                            range_text(field, field.range.min), range_text(field, field.range.max)));
  }
}

void assign(HwConfig& config, const Field& field, std::string_view text) {
  std::visit(
      [&](auto member) {
        using T = std::remove_reference_t<decltype(config.*member)>;
        if constexpr (std::is_same_v<T, uint64_t>) {
          uint64_t value = parse_count(text);
          check_range(field, static_cast<long double>(value), text);
          config.*member = value;
        } else if constexpr (std::is_same_v<T, Bytes>) {
          Bytes value = parse_bytes(text).value();
          check_range(field, static_cast<long double>(value.count), text);
          config.*member = value;
        } else if constexpr (std::is_same_v<T, Duration>) {
          Duration value = parse_duration(text).value();
          check_range(field, static_cast<long double>(value.picoseconds), text);
          config.*member = value;
        } else if constexpr (std::is_same_v<T, Bandwidth>) {
          Bandwidth value = parse_bandwidth(text).value();
          check_range(field, static_cast<long double>(value.bytes_per_second), text);
          config.*member = value;
        } else if constexpr (std::is_same_v<T, Frequency>) {
          Frequency value = parse_frequency(text).value();
          check_range(field, static_cast<long double>(value.hertz), text);
          config.*member = value;
        } else {
          config.*member = parse_topology(text);
        }
      },
      field.ref);
}

std::string render(const HwConfig& config, const Field& field) {
  return std::visit(
      [&](auto member) -> std::string {
        const auto& value = config.*member;
        using T = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_same_v<T, uint64_t>) return std::to_string(value);
        else if constexpr (std::is_same_v<T, Bytes>) return format_bytes(value);
        else if constexpr (std::is_same_v<T, Duration>) return format_duration(value);
        else if constexpr (std::is_same_v<T, Bandwidth>) return format_bandwidth(value);
        else if constexpr (std::is_same_v<T, Frequency>) return format_frequency(value);
        else return std::string(topology_kind_name(value));
      },
      field.ref);
}

struct PresetOverride {
  std::string_view key;
  std::string_view value;
};

// tpu-v5e-like differs from the schema defaults (tpu-v4-like) only here.
const std::vector<PresetOverride>& v5e_overrides() {
  static const std::vector<PresetOverride> overrides = {
      {"clock", "1500MHz"},       {"mxu.count", "4"},        {"hbm.bytes", "16GiB"},
      {"hbm.bandwidth", "819GB/s"}, {"ici.links_per_chip", "4"}, {"topology.kind", "torus2d"},
  };
  return overrides;
}

HwConfig defaults() {
  HwConfig config;
  for (const Field& f : fields()) assign(config, f, f.info.default_value);
  return config;
}

// Flattens nested YAML maps into dotted keys and applies them.
void apply_node(HwConfig& config, const YAML::Node& node, const std::string& prefix,
                std::string_view source) {
  for (const auto& entry : node) {
    const YAML::Mark mark = entry.first.Mark();
    std::string where = fmt::format("{}:{}", source, mark.line + 1);
    if (!entry.first.IsScalar()) throw Error(where + ": keys must be plain names");
    std::string key = prefix + entry.first.as<std::string>();
    if (prefix.empty() && key == "preset") continue;
    if (entry.second.IsMap()) {
      apply_node(config, entry.second, key + ".", source);
      continue;
    }
    if (!entry.second.IsScalar()) throw Error(fmt::format("{}: {}: expected a single value", where, key));
    if (find_field(key) == nullptr) {
      throw Error(fmt::format("{}: unknown hardware key '{}' ({})", where, key, known_keys_hint(key)));
    }
    with_error_context(where, [&] { config.set(key, entry.second.Scalar()); });
  }
}

}  // namespace

std::string_view topology_kind_name(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::kRing: return "ring";
    case TopologyKind::kTorus2d: return "torus2d";
    case TopologyKind::kFullyConnected: return "fully_connected";
  }
  return "?";
}

std::string_view value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kCount: return "integer";
    case ValueKind::kBytes: return "size";
    case ValueKind::kDuration: return "duration";
    case ValueKind::kBandwidth: return "bandwidth";
    case ValueKind::kFrequency: return "frequency";
    case ValueKind::kTopology: return "topology";
  }
  return "?";
}

const std::vector<KeyInfo>& schema() {
  static const std::vector<KeyInfo> infos = [] {
    std::vector<KeyInfo> out;
    for (const Field& f : fields()) out.push_back(f.info);
    return out;
  }();
  return infos;
}

// The largest cycle count or Q16 rate a conversion may produce: sums and
// products of a few of them in the simulators must stay below 2^64.
constexpr long double kMaxFixedPoint = 4611686018427387904.0L;  // 2^62

uint64_t HwConfig::cycles_for(Duration duration) const {
  // ps * Hz / 1e12, rounded up; long double keeps 1e12 * 1e9 products exact enough.
  if (duration.picoseconds < 0) throw Error(fmt::format("negative duration {}", format_duration(duration)));
  long double cycles = static_cast<long double>(duration.picoseconds) * clock.hertz / 1e12L;
  cycles = std::ceil(cycles - 1e-9L);
  if (!(cycles <= kMaxFixedPoint)) {
    throw Error(fmt::format("{} at {} is {:.4g} cycles, more than the simulator counts (2^62)",
                            format_duration(duration), format_frequency(clock), static_cast<double>(cycles)));
  }
  return static_cast<uint64_t>(std::max(cycles, 0.0L));
}

uint64_t HwConfig::bytes_per_cycle_q16(Bandwidth bandwidth) const {
  const long double exact = static_cast<long double>(bandwidth.bytes_per_second) / clock.hertz * 65536.0L;
  const long double q16 = std::floor(exact);
  // Q16 has 1/65536 byte per cycle of resolution: below it the rate would
  // be rounded to a different bandwidth, above 2^62 it would overflow.
  if (!(q16 >= 1.0L)) {
    throw Error(fmt::format("{} at {} is less than 1/65536 byte per cycle, below what DMA timing resolves",
                            format_bandwidth(bandwidth), format_frequency(clock)));
  }
  // A rate of a few 1/65536 bytes per cycle loses up to a whole unit to the
  // rounding: 2MB/s at 100GHz (1.31 units) would run 24% slow. More than
  // 1% is refused rather than simulated as another bandwidth (the smallest
  // valid bandwidth, 1MB/s, loses 0.67% at the default 1.05GHz).
  if ((exact - q16) / exact > kMaxRoundingLoss) {
    throw Error(fmt::format("{} at {} is {:.4g}/65536 byte per cycle, which DMA timing would round to {}/65536 "
                            "({:.2g}% slower); raise the bandwidth or lower the clock",
                            format_bandwidth(bandwidth), format_frequency(clock), static_cast<double>(exact),
                            static_cast<uint64_t>(q16), static_cast<double>(100 * (exact - q16) / exact)));
  }
  if (!(q16 <= kMaxFixedPoint)) {
    throw Error(fmt::format("{} at {} is more than 2^46 bytes per cycle, beyond what DMA timing counts",
                            format_bandwidth(bandwidth), format_frequency(clock)));
  }
  return static_cast<uint64_t>(q16);
}

void HwConfig::set(std::string_view key, std::string_view value) {
  const Field* field = find_field(key);
  if (field == nullptr) throw Error(fmt::format("unknown hardware key '{}' ({})", key, known_keys_hint(key)));
  with_error_context(fmt::format("hardware key '{}'", key), [&] { assign(*this, *field, value); });
}

std::string HwConfig::get(std::string_view key) const {
  const Field* field = find_field(key);
  if (field == nullptr) throw Error(fmt::format("unknown hardware key '{}'", key));
  return render(*this, *field);
}

namespace {

// The longest duration that whole cycles at `clock` time as exactly
// `cycles` (cycles_for rounds up, so a picosecond more would be one more).
Duration duration_of_cycles(const HwConfig& config, uint64_t cycles) {
  return Duration{static_cast<int64_t>(std::floor(static_cast<long double>(cycles) * 1e12L / config.clock.hertz))};
}

// The timing model counts whole cycles, so a latency is simulated as the
// cycles that cover it. Off by more than 1% (the bound bandwidths keep in
// their fixed point) it would simulate other hardware than the config
// describes: 0.3ns at 1GHz would be a whole cycle, 3.3 times as long.
void check_whole_cycles(const HwConfig& config, std::string_view key, Duration duration) {
  const uint64_t cycles = with_error_context(std::string(key), [&] { return config.cycles_for(duration); });
  if (duration.picoseconds == 0) return;
  const long double exact = static_cast<long double>(duration.picoseconds) * config.clock.hertz / 1e12L;
  const long double excess = (static_cast<long double>(cycles) - exact) / exact;
  if (excess <= kMaxRoundingLoss) return;
  const std::string at = fmt::format("{} = {} at {} is {:.3g} cycles, which the timing model (whole cycles) would "
                                     "run as {} ({}, {:.3g}% longer)",
                                     key, format_duration(duration), format_frequency(config.clock),
                                     static_cast<double>(exact), cycles,
                                     format_duration(duration_of_cycles(config, cycles)),
                                     static_cast<double>(100 * excess));
  if (cycles == 1) {
    throw Error(fmt::format("{}; the smallest latency it represents is one cycle, {} (or 0ns for none)", at,
                            format_duration(duration_of_cycles(config, 1))));
  }
  throw Error(fmt::format("{}; give a whole number of cycles, e.g. {} or {} ({} or {} cycles)", at,
                          format_duration(duration_of_cycles(config, cycles - 1)),
                          format_duration(duration_of_cycles(config, cycles)), cycles - 1, cycles));
}

}  // namespace

void HwConfig::validate() const {
  if (vmem_page_bytes.count % 64 != 0) throw Error("vmem.page_bytes must be a multiple of 64B");
  if (vmem_bytes() > (1ull << 32)) throw Error("VMEM larger than 4GiB does not fit the address map");
  if (topology == TopologyKind::kTorus2d && torus_width != 0 && chip_count % torus_width != 0) {
    throw Error(fmt::format("topology.torus_width {} does not divide chips {}", torus_width, chip_count));
  }
  // Every unit-carrying key converts to the simulator's fixed point at this
  // clock without losing it or overflowing; errors name the key.
  for (const Field& f : fields()) {
    if (const auto* member = std::get_if<Bandwidth HwConfig::*>(&f.ref)) {
      with_error_context(std::string(f.info.key), [&] { (void)bytes_per_cycle_q16(this->*(*member)); });
    } else if (const auto* duration = std::get_if<Duration HwConfig::*>(&f.ref)) {
      check_whole_cycles(*this, f.info.key, this->*(*duration));
    }
  }
}

std::string HwConfig::to_yaml() const {
  std::string out = fmt::format("# preset: {}\n", preset_name);
  for (const Field& f : fields()) out += fmt::format("{}: {}\n", f.info.key, render(*this, f));
  return out;
}

std::vector<std::string_view> preset_names() { return {"tpu-v4-like", "tpu-v5e-like"}; }

ClockRange clock_range() {
  return {Frequency{static_cast<double>(kClockRange.min)}, Frequency{static_cast<double>(kClockRange.max)}};
}

HwConfig preset(std::string_view name) {
  HwConfig config = defaults();
  if (name == "tpu-v4-like") {
  } else if (name == "tpu-v5e-like") {
    for (const PresetOverride& o : v5e_overrides()) config.set(o.key, o.value);
  } else {
    std::string known;
    for (std::string_view n : preset_names()) known += (known.empty() ? "" : ", ") + std::string(n);
    throw Error(fmt::format("unknown hardware preset '{}' (presets: {})", name, known));
  }
  config.preset_name = std::string(name);
  return config;
}

LoadedHardware parse_hardware_yaml(std::string_view yaml_text, std::string_view source_name) {
  const YAML::Node root = load_yaml_document(yaml_text, source_name, "a hardware config (a map of keys)");
  if (!root.IsMap()) throw Error(fmt::format("{}: a hardware config must be a map of keys", source_name));
  std::string preset_name = "tpu-v4-like";
  if (YAML::Node p = root["preset"]; p) {
    if (!p.IsScalar()) throw Error(fmt::format("{}:{}: preset must be a name", source_name, p.Mark().line + 1));
    preset_name = p.Scalar();
  }
  HwConfig config = with_error_context(std::string(source_name), [&] { return preset(preset_name); });
  try {
    apply_node(config, root, "", source_name);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}: {}", source_name, e.mark.line + 1, e.msg));
  }
  with_error_context(std::string(source_name), [&] { config.validate(); });
  return {config, static_cast<bool>(root["chips"])};
}

HwConfig parse_config_yaml(std::string_view yaml_text, std::string_view source_name) {
  return parse_hardware_yaml(yaml_text, source_name).config;
}

HwConfig load_config_file(const std::string& path) { return parse_config_yaml(read_file(path), path); }

HwConfig load_preset_or_file(const std::string& preset_or_path) { return load_hardware(preset_or_path).config; }

LoadedHardware load_hardware(const std::string& preset_or_path) {
  for (std::string_view name : preset_names()) {
    if (name == preset_or_path) return {preset(name), false};
  }
  std::error_code ec;
  if (!std::filesystem::exists(preset_or_path, ec)) {
    std::string known;
    for (std::string_view n : preset_names()) known += (known.empty() ? "" : ", ") + std::string(n);
    throw Error(fmt::format("hardware '{}' (--hw, or a spec's hardware key): neither a hardware preset ({}) nor an "
                            "existing YAML file",
                            preset_or_path, known));
  }
  return parse_hardware_yaml(read_file(preset_or_path), preset_or_path);
}

void apply_overrides(HwConfig& config, const std::vector<std::string>& assignments) {
  for (const auto& [key, value] : split_assignments(assignments, "hbm.bandwidth=1.6TB/s")) config.set(key, value);
  config.validate();
}

std::vector<std::string> with_chips_option(std::vector<std::string> overrides, const std::string& chips) {
  if (chips.empty()) return overrides;
  for (const std::string& assignment : overrides) {
    if (assignment.rfind("chips=", 0) == 0) {
      throw Error(fmt::format("--chips {} and --set {} both give the chip count", chips, assignment));
    }
  }
  overrides.push_back("chips=" + chips);
  return overrides;
}

std::string schema_markdown() {
  std::string out =
      "| key | type | default (tpu-v4-like) | tpu-v5e-like | valid range | meaning |\n|---|---|---|---|---|---|\n";
  HwConfig v5e = preset("tpu-v5e-like");
  for (const Field& f : fields()) {
    std::string v5e_value = render(v5e, f);
    const std::string range = f.info.kind == ValueKind::kTopology
                                  ? std::string("ring, torus2d, fully_connected")
                                  : fmt::format("{} .. {}", range_text(f, f.range.min), range_text(f, f.range.max));
    out += fmt::format("| `{}` | {} | `{}` | `{}` | {} | {} |\n", f.info.key, value_kind_name(f.info.kind),
                       f.info.default_value, v5e_value, range, f.info.doc);
  }
  return out;
}

}  // namespace snr::hw
