#include "pathfind/predict/workload.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/file_io.h"
#include "pathfind/inputs/quantity.h"

namespace snr::pathfind {

std::string_view workload_phase_name(WorkloadPhase phase) {
  switch (phase) {
    case WorkloadPhase::kTraining: return "training";
    case WorkloadPhase::kPrefill: return "prefill";
    case WorkloadPhase::kDecode: return "decode";
  }
  return "?";
}

double workload_parameters(const Workload& w) {
  switch (w.kind) {
    case WorkloadKind::kTransformer: return w.model.total_parameters();
    case WorkloadKind::kLstm: return w.lstm.parameters();
    case WorkloadKind::kGemm: return 0;
  }
  return 0;
}

namespace {

constexpr uint64_t kMaxDimension = uint64_t{1} << 24;

WorkloadPhase parse_phase(const StrictMap& m) {
  std::string text = m.string_or("phase", "training");
  if (text == "training") return WorkloadPhase::kTraining;
  if (text == "prefill") return WorkloadPhase::kPrefill;
  if (text == "decode") return WorkloadPhase::kDecode;
  throw_with_where(m.where("phase"), fmt::format("'{}' is not a phase (training, prefill, decode)", text));
}

}  // namespace

Workload parse_workload_yaml(std::string_view text, std::string_view source) {
  return parse_workload_yaml(load_yaml_text(text, source), source);
}

Workload parse_workload_yaml(const YAML::Node& root, std::string_view source) {
  StrictMap top(root, std::string(source), "");
  StrictMap w = top.map("workload");
  Workload out;
  out.name = w.string("name");
  std::string kind = w.string_or("kind", "transformer");
  std::string dtype = w.string_or("dtype", "bf16");
  out.dtype = with_error_context(w.where("dtype"), [&] { return parse_dtype(dtype); });
  if (kind == "transformer") {
    out.kind = WorkloadKind::kTransformer;
    StrictMap m = w.map("model");
    TransformerModel& t = out.model;
    t.name = out.name;
    t.hidden = m.count("hidden", 1, kMaxDimension);
    t.attn_heads = m.count("heads", 1, kMaxDimension);
    t.kv_heads = m.has("kv_heads") ? m.count("kv_heads", 1, kMaxDimension) : 0;
    t.attn_size = m.count("head_dim", 1, kMaxDimension);
    t.feedforward = m.count("ffn", 1, kMaxDimension);
    t.num_blocks = m.count("layers", 1, kMaxDimension);
    t.vocab_size = m.has("vocab") ? m.count("vocab", 1, kMaxDimension) : 0;
    const std::string activation = m.string_or("activation", "gelu");
    if (activation != "gelu" && activation != "silu") {
      throw_with_where(m.where("activation"), fmt::format("'{}' is not gelu or silu (gated, as snr compile's)", activation));
    }
    t.gated_mlp = activation == "silu";
    t.tied_embeddings = m.boolean_or("tied_embeddings", true);
    // The two families' conventions by default: GPT/Megatron (gelu) have
    // LayerNorm and biases everywhere, Llama (silu) RMSNorm and none.
    const std::string norm = m.string_or("norm", t.gated_mlp ? "rmsnorm" : "layernorm");
    if (norm == "layernorm") {
      t.norm = NormKind::kLayerNorm;
    } else if (norm == "rmsnorm") {
      t.norm = NormKind::kRmsNorm;
    } else {
      throw_with_where(m.where("norm"), fmt::format("'{}' is not layernorm or rmsnorm", norm));
    }
    const std::string biases = m.string_or("biases", t.gated_mlp ? "none" : "all");
    if (biases == "all") {
      t.biases = LinearBiases::kAll;
    } else if (biases == "qkv") {
      t.biases = LinearBiases::kQkv;
    } else if (biases == "none") {
      t.biases = LinearBiases::kNone;
    } else {
      throw_with_where(m.where("biases"), fmt::format("'{}' is not all, qkv or none", biases));
    }
    m.finish();
    out.phase = parse_phase(w);
    out.batch = w.count("batch", 1, kMaxDimension);
    t.seq_size = w.count("sequence", 1, kMaxDimension);
    if (out.phase == WorkloadPhase::kTraining) {
      out.microbatch = w.count("microbatch", 1, kMaxDimension);
    }
    if (out.phase == WorkloadPhase::kDecode) {
      out.context = w.count("context", 0, uint64_t{1} << 30);
      // The cached tokens and the one decoded are a sequence of the model.
      if (out.context >= t.seq_size) {
        throw_with_where(w.where("context"), fmt::format("{} cached tokens and the new one exceed the sequence of {}",
                                                         out.context, t.seq_size));
      }
    }
    with_error_context(std::string(source), [&] { t.validate(); });
  } else if (kind == "gemm") {
    out.kind = WorkloadKind::kGemm;
    StrictMap g = w.map("gemm");
    out.gemm = {g.count("m", 1, uint64_t{1} << 40), g.count("n", 1, uint64_t{1} << 40),
                g.count("k", 1, uint64_t{1} << 40)};
    g.finish();
  } else if (kind == "lstm") {
    out.kind = WorkloadKind::kLstm;
    StrictMap m = w.map("model");
    out.lstm.hidden = m.count("hidden", 1, kMaxDimension);
    out.lstm.vocab = m.count("vocab", 1, kMaxDimension);
    out.lstm.layers = m.has("layers") ? m.count("layers", 1, kMaxDimension) : 2;
    m.finish();
    if (parse_phase(w) != WorkloadPhase::kTraining) throw_with_where(w.where("phase"), "an lstm workload is training only");
    out.batch = w.count("batch", 1, kMaxDimension);
    out.lstm.batch = out.batch;
    out.lstm.sequence = w.count("sequence", 1, kMaxDimension);
    with_error_context(std::string(source), [&] { out.lstm.validate(); });
  } else {
    throw_with_where(w.where("kind"), fmt::format("'{}' is not a workload kind (transformer, gemm, lstm)", kind));
  }
  w.finish();
  top.finish();
  return out;
}

Workload load_workload(const std::string& path) { return parse_workload_yaml(read_file(path), path); }

}  // namespace snr::pathfind
