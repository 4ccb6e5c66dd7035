#include "compiler/spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <map>

#include "common/assignments.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/yaml_input.h"

namespace snr::compiler {
namespace {

uint64_t parse_count(std::string_view key, std::string_view text, uint64_t min, uint64_t max) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) throw Error(fmt::format("{}: '{}' is not a whole number", key, text));
  if (value < min || value > max) {
    throw Error(fmt::format("{}: {} is outside [{}, {}]", key, value, min, max));
  }
  return value;
}

double parse_real(std::string_view key, std::string_view text) {
  try {
    size_t used = 0;
    const std::string s(text);
    const double value = std::stod(s, &used);
    if (used == s.size() && value > 0 && std::isfinite(value)) return value;  // stod reads "inf" too
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("{}: '{}' is not a positive finite number", key, text));
}

template <typename E>
E parse_enum(std::string_view key, std::string_view text, const std::vector<std::pair<std::string_view, E>>& names) {
  std::string known;
  for (const auto& [name, value] : names) {
    if (name == text) return value;
    known += known.empty() ? std::string(name) : ", " + std::string(name);
  }
  throw Error(fmt::format("{}: '{}' is not one of: {}", key, text, known));
}

template <typename E>
std::string_view enum_name(E value, const std::vector<std::pair<std::string_view, E>>& names) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  return "?";
}

const std::vector<std::pair<std::string_view, WorkloadKind>> kKinds = {
    {"transformer", WorkloadKind::kTransformer}, {"collective", WorkloadKind::kCollective}};
const std::vector<std::pair<std::string_view, Phase>> kPhases = {{"decode", Phase::kDecode},
                                                                 {"prefill", Phase::kPrefill}};
const std::vector<std::pair<std::string_view, Activation>> kActivations = {{"silu", Activation::kSilu},
                                                                           {"gelu", Activation::kGelu}};
const std::vector<std::pair<std::string_view, CollectiveOp>> kCollectives = {
    {"all-gather", CollectiveOp::kAllGather},
    {"reduce-scatter", CollectiveOp::kReduceScatter},
    {"all-reduce", CollectiveOp::kAllReduce},
    {"all-to-all", CollectiveOp::kAllToAll}};
const std::vector<std::pair<std::string_view, AllocatorPolicy>> kPolicies = {
    {"first-fit", AllocatorPolicy::kFirstFit},
    {"best-fit", AllocatorPolicy::kBestFit},
    {"size-segregated", AllocatorPolicy::kSizeSegregated}};
const std::vector<std::pair<std::string_view, SetupMode>> kSetupModes = {
    {"chained", SetupMode::kChained}, {"parallel", SetupMode::kParallel}, {"pinned", SetupMode::kPinned}};
const std::vector<std::pair<std::string_view, KvPrefetch>> kKvPrefetch = {{"late", KvPrefetch::kLate},
                                                                          {"ahead", KvPrefetch::kAhead}};
const std::vector<std::pair<std::string_view, KvStaging>> kKvStaging = {{"step", KvStaging::kStep},
                                                                        {"op", KvStaging::kOp}};

struct KeyHandler {
  SpecKeyInfo info;
  std::function<void(Spec&, std::string_view)> set;
  std::function<std::string(const Spec&)> get;
};

constexpr uint64_t kMaxDim = 1u << 20;

KeyHandler count_key(std::string_view key, std::string_view def, std::string_view doc, uint64_t Spec::*field,
                     uint64_t min, uint64_t max) {
  return {{key, def, doc},
          [=](Spec& s, std::string_view v) { s.*field = parse_count(key, v, min, max); },
          [=](const Spec& s) { return std::to_string(s.*field); }};
}
KeyHandler model_key(std::string_view key, std::string_view def, std::string_view doc,
                     uint64_t TransformerShape::*field, uint64_t min, uint64_t max) {
  return {{key, def, doc},
          [=](Spec& s, std::string_view v) { s.model.*field = parse_count(key, v, min, max); },
          [=](const Spec& s) { return std::to_string(s.model.*field); }};
}
KeyHandler knob_key(std::string_view key, std::string_view def, std::string_view doc,
                    uint64_t ScheduleKnobs::*field, uint64_t min, uint64_t max) {
  return {{key, def, doc},
          [=](Spec& s, std::string_view v) { s.schedule.*field = parse_count(key, v, min, max); },
          [=](const Spec& s) { return std::to_string(s.schedule.*field); }};
}
template <typename E, typename Owner>
KeyHandler enum_key(std::string_view key, std::string_view def, std::string_view doc,
                    const std::vector<std::pair<std::string_view, E>>& names, std::function<E&(Owner&)> field,
                    std::function<const E&(const Owner&)> cfield) {
  return {{key, def, doc},
          [=, &names](Spec& s, std::string_view v) { field(s) = parse_enum(key, v, names); },
          [=, &names](const Spec& s) { return std::string(enum_name(cfield(s), names)); }};
}

const std::vector<KeyHandler>& handlers() {
  static const std::vector<KeyHandler> table = [] {
    std::vector<KeyHandler> t;
    t.push_back(enum_key<WorkloadKind, Spec>(
        "kind", "transformer", "transformer (a decoder-only step) | collective (one standalone collective)", kKinds,
        [](Spec& s) -> WorkloadKind& { return s.kind; }, [](const Spec& s) -> const WorkloadKind& { return s.kind; }));
    t.push_back(model_key("model.hidden", "4096", "hidden size (multiple of 128)", &TransformerShape::hidden, 128, kMaxDim));
    t.push_back(model_key("model.heads", "32", "attention (query) heads", &TransformerShape::heads, 1, 4096));
    t.push_back(model_key("model.kv_heads", "8", "key/value heads (grouped-query attention)", &TransformerShape::kv_heads, 1, 4096));
    t.push_back(model_key("model.head_dim", "128", "head dimension (the matrix unit's 128)", &TransformerShape::head_dim, 128, 128));
    t.push_back(model_key("model.ffn", "14336", "feed-forward inner size (multiple of 128*T)", &TransformerShape::ffn, 128, kMaxDim));
    t.push_back(model_key("model.layers", "2", "decoder layers in the compiled step", &TransformerShape::layers, 1, 1024));
    t.push_back(enum_key<Activation, Spec>(
        "model.activation", "silu", "silu (gated, SwiGLU) | gelu (gated, tanh approximation)", kActivations,
        [](Spec& s) -> Activation& { return s.model.activation; },
        [](const Spec& s) -> const Activation& { return s.model.activation; }));
    t.push_back({{"model.norm_eps", "1e-05", "RMSNorm epsilon"},
                 [](Spec& s, std::string_view v) { s.model.norm_eps = parse_real("model.norm_eps", v); },
                 [](const Spec& s) { return fmt::format("{}", s.model.norm_eps); }});
    t.push_back({{"model.rope_theta", "10000", "rotary embedding base"},
                 [](Spec& s, std::string_view v) { s.model.rope_theta = parse_real("model.rope_theta", v); },
                 [](const Spec& s) { return fmt::format("{}", s.model.rope_theta); }});
    t.push_back(enum_key<Phase, Spec>(
        "phase", "decode", "decode (one token per sequence, KV cache in HBM) | prefill (whole sequences)", kPhases,
        [](Spec& s) -> Phase& { return s.phase; }, [](const Spec& s) -> const Phase& { return s.phase; }));
    t.push_back(count_key("batch", "8", "sequences per step", &Spec::batch, 1, 4096));
    t.push_back(count_key("context", "2048", "decode: tokens already in the KV cache", &Spec::context, 0, kMaxDim));
    t.push_back(count_key("sequence", "128", "prefill: tokens per sequence", &Spec::sequence, 1, kMaxDim));
    t.push_back({{"dtype", "bf16", "weights, KV cache and matrix-unit inputs (only bf16)"},
                 [](Spec& s, std::string_view v) {
                   if (v != "bf16") throw Error(fmt::format("dtype: '{}' is not supported (only bf16)", v));
                   s.dtype = std::string(v);
                 },
                 [](const Spec& s) { return s.dtype; }});
    t.push_back(count_key("parallel.tensor", "4", "tensor-parallel chips T (heads and FFN sharded)",
                          &Spec::tensor_parallel, 1, 64));
    t.push_back({{"hardware", "tpu-v4-like", "hardware preset or YAML file (see docs/hardware.md)"},
                 [](Spec& s, std::string_view v) {
                   if (v.empty()) throw Error("hardware: empty");
                   s.hardware = std::string(v);
                 },
                 [](const Spec& s) { return s.hardware; }});
    t.push_back(count_key("seed", "1", "seed of the generated weights, KV cache and inputs", &Spec::seed, 0, UINT64_MAX));
    t.push_back(enum_key<CollectiveOp, Spec>(
        "collective.op", "all-gather", "all-gather | reduce-scatter | all-reduce | all-to-all", kCollectives,
        [](Spec& s) -> CollectiveOp& { return s.collective; },
        [](const Spec& s) -> const CollectiveOp& { return s.collective; }));
    t.push_back(count_key("collective.bytes_per_chip", "65536",
                          "collective: input bytes per chip (a multiple of T * 4096)",
                          &Spec::collective_bytes_per_chip, 4096, uint64_t{1} << 30));
    t.push_back(knob_key("schedule.prefetch_distance", "2",
                         "tiles whose DMA is issued ahead of the tile being computed (0 = just before the WAIT)",
                         &ScheduleKnobs::prefetch_distance, 0, 256));
    t.push_back({{"schedule.buffering", "3",
                  "VMEM slots per tile stream: single (1), double (2) or a number; must exceed prefetch_distance"},
                 [](Spec& s, std::string_view v) {
                   if (v == "single") {
                     s.schedule.buffers = 1;
                   } else if (v == "double") {
                     s.schedule.buffers = 2;
                   } else {
                     s.schedule.buffers = parse_count("schedule.buffering", v, 1, 257);
                   }
                 },
                 [](const Spec& s) { return std::to_string(s.schedule.buffers); }});
    t.push_back(enum_key<AllocatorPolicy, Spec>(
        "schedule.vmem_allocator", "first-fit", "first-fit | best-fit | size-segregated", kPolicies,
        [](Spec& s) -> AllocatorPolicy& { return s.schedule.allocator; },
        [](const Spec& s) -> const AllocatorPolicy& { return s.schedule.allocator; }));
    t.push_back(enum_key<SetupMode, Spec>(
        "schedule.allgather_setup", "chained", "chained | parallel | pinned (see docs/compiler.md)", kSetupModes,
        [](Spec& s) -> SetupMode& { return s.schedule.allgather_setup; },
        [](const Spec& s) -> const SetupMode& { return s.schedule.allgather_setup; }));
    t.push_back(enum_key<KvPrefetch, Spec>(
        "schedule.kv_prefetch", "late", "late | ahead: when attention issues a head group's K/V reads (see docs/compiler.md)",
        kKvPrefetch, [](Spec& s) -> KvPrefetch& { return s.schedule.kv_prefetch; },
        [](const Spec& s) -> const KvPrefetch& { return s.schedule.kv_prefetch; }));
    t.push_back(enum_key<KvStaging, Spec>(
        "schedule.kv_staging", "step", "step | op: lifetime of the attention's K/V staging buffers (see docs/compiler.md)",
        kKvStaging, [](Spec& s) -> KvStaging& { return s.schedule.kv_staging; },
        [](const Spec& s) -> const KvStaging& { return s.schedule.kv_staging; }));
    t.push_back(knob_key("schedule.vector_unroll", "0",
                         "vector loops: tiles per loop iteration (0 = fully unrolled straight-line code)",
                         &ScheduleKnobs::vector_unroll, 0, 1024));
    return t;
  }();
  return table;
}

const KeyHandler& handler_for(std::string_view key) {
  std::vector<std::string_view> inside;  // keys of the section `key`, if it is one
  for (const KeyHandler& h : handlers()) {
    if (h.info.key == key) return h;
    if (h.info.key.size() > key.size() && h.info.key.starts_with(key) && h.info.key[key.size()] == '.') {
      inside.push_back(h.info.key);
    }
  }
  if (!inside.empty()) {
    throw Error(fmt::format("'{}' is a section, not a value: give its keys ({})", key, fmt::join(inside, ", ")));
  }
  throw Error(fmt::format("unknown key '{}' (see docs/compiler.md for the keys)", key));
}

void flatten(const YAML::Node& node, const std::string& prefix, std::string_view source, Spec& spec) {
  for (const auto& item : node) {
    const int line = item.first.Mark().line + 1;
    const std::string key = prefix.empty() ? item.first.Scalar() : prefix + "." + item.first.Scalar();
    try {
      if (item.second.IsMap()) {
        flatten(item.second, key, source, spec);
      } else if (item.second.IsScalar()) {
        spec.set(key, item.second.Scalar());
      } else {
        throw Error(fmt::format("'{}' must be a value or a map", key));
      }
    } catch (const Error& e) {
      if (std::string_view(e.what()).starts_with(std::string(source) + ":")) throw;
      throw Error(fmt::format("{}:{}: {}", source, line, e.what()));
    }
  }
}

}  // namespace

std::string_view phase_name(Phase phase) { return enum_name(phase, kPhases); }
std::string_view collective_op_name(CollectiveOp op) { return enum_name(op, kCollectives); }
std::string_view allocator_policy_name(AllocatorPolicy policy) { return enum_name(policy, kPolicies); }
std::string_view setup_mode_name(SetupMode mode) { return enum_name(mode, kSetupModes); }
std::string_view kv_prefetch_name(KvPrefetch mode) { return enum_name(mode, kKvPrefetch); }
std::string_view kv_staging_name(KvStaging mode) { return enum_name(mode, kKvStaging); }

const std::vector<SpecKeyInfo>& spec_schema() {
  static const std::vector<SpecKeyInfo> infos = [] {
    std::vector<SpecKeyInfo> v;
    for (const KeyHandler& h : handlers()) v.push_back(h.info);
    return v;
  }();
  return infos;
}

void Spec::set(std::string_view key, std::string_view value) { handler_for(key).set(*this, value); }

std::string Spec::get(std::string_view key) const { return handler_for(key).get(*this); }

std::string Spec::to_text() const {
  std::string out;
  for (const KeyHandler& h : handlers()) out += fmt::format("{}: {}\n", h.info.key, h.get(*this));
  return out;
}

void Spec::validate() const {
  const uint64_t t = tensor_parallel;
  auto fail = [&](const std::string& why) { throw Error(fmt::format("{}: {}", source_name, why)); };
  if (schedule.buffers <= schedule.prefetch_distance) {
    fail(fmt::format("schedule.prefetch_distance {} needs schedule.buffering > {} (has {})", schedule.prefetch_distance,
                     schedule.prefetch_distance, schedule.buffers));
  }
  if (kind == WorkloadKind::kCollective) {
    if (t < 2) fail("a collective needs parallel.tensor >= 2");
    if (collective_bytes_per_chip % (t * 4096) != 0) {
      fail(fmt::format("collective.bytes_per_chip {} is not a multiple of T * 4096 = {}", collective_bytes_per_chip,
                       t * 4096));
    }
    return;
  }
  const TransformerShape& m = model;
  if (m.hidden % 128 != 0) fail(fmt::format("model.hidden {} is not a multiple of 128", m.hidden));
  if (m.heads % m.kv_heads != 0) fail(fmt::format("model.heads {} is not a multiple of model.kv_heads {}", m.heads, m.kv_heads));
  if (m.kv_heads % t != 0) fail(fmt::format("model.kv_heads {} is not divisible by parallel.tensor {}", m.kv_heads, t));
  if (m.ffn % (128 * t) != 0) fail(fmt::format("model.ffn {} is not a multiple of 128 * parallel.tensor = {}", m.ffn, 128 * t));
  if (phase == Phase::kPrefill && sequence % 8 != 0) fail(fmt::format("sequence {} is not a multiple of 8", sequence));
}

Spec parse_spec_yaml(std::string_view yaml_text, std::string_view source_name) {
  Spec spec;
  spec.source_name = std::string(source_name);
  // An empty or comment-only spec is an error, not the built-in model: a
  // wrong path must not silently compile something else.
  const YAML::Node root = load_yaml_document(yaml_text, source_name, "a workload spec (see docs/compiler.md)");
  if (!root.IsMap()) throw Error(fmt::format("{}:{}: the spec must be a map of keys", source_name, root.Mark().line + 1));
  flatten(root, "", source_name, spec);
  return spec;
}

Spec load_spec_file(const std::string& path) { return parse_spec_yaml(read_file(path), path); }

void apply_spec_overrides(Spec& spec, const std::vector<std::string>& assignments) {
  // Not a structured binding: clang does not let a lambda capture one.
  for (const auto& assignment : split_assignments(assignments, "schedule.prefetch_distance=8")) {
    with_error_context(fmt::format("--set {}={}", assignment.first, assignment.second),
                       [&] { spec.set(assignment.first, assignment.second); });
  }
  spec.validate();
}

}  // namespace snr::compiler
