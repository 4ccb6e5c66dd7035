#include "compiler/reference.h"

#include <cmath>
#include <cstring>

#include "common/error.h"

namespace snr::compiler {
namespace {

float bf16_round(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

using Matrix = std::vector<float>;  // row-major

// y[rows x n] = bf16(x)[rows x k] . w[k x n], f32 accumulation.
Matrix matmul(const Matrix& x, uint64_t rows, uint64_t k, const GeneratedTensor& w, uint64_t seed) {
  const uint64_t n = w.cols;
  Matrix wv(k * n);
  for (uint64_t r = 0; r < k; ++r) {
    for (uint64_t c = 0; c < n; ++c) wv[r * n + c] = w.value(seed, r, c);
  }
  Matrix y(rows * n, 0.0f);
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t i = 0; i < k; ++i) {
      const float a = bf16_round(x[r * k + i]);
      if (a == 0.0f) continue;
      const float* wr = &wv[i * n];
      float* yr = &y[r * n];
      for (uint64_t c = 0; c < n; ++c) yr[c] += a * wr[c];
    }
  }
  return y;
}

Matrix rmsnorm(const Matrix& x, uint64_t rows, uint64_t cols, const GeneratedTensor& gamma, uint64_t seed,
               double eps) {
  Matrix y(x.size());
  for (uint64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (uint64_t c = 0; c < cols; ++c) sum += double(x[r * cols + c]) * x[r * cols + c];
    const double scale = 1.0 / std::sqrt(sum / double(cols) + eps);
    for (uint64_t c = 0; c < cols; ++c) y[r * cols + c] = float(x[r * cols + c] * scale * gamma.value(seed, 0, c));
  }
  return y;
}

}  // namespace

std::vector<float> reference_transformer(const CompiledModel& model) {
  const Spec& spec = model.spec;
  const TransformerShape& m = spec.model;
  const uint32_t t = model.image.chips();
  const uint64_t seed = spec.seed;
  const uint64_t hidden = m.hidden, rows = model.real_rows;
  const uint64_t hl = m.heads / t, kvl = m.kv_heads / t, g = m.heads / m.kv_heads;
  const bool decode = spec.phase == Phase::kDecode;
  const uint64_t per_seq = decode ? 1 : spec.sequence;
  const uint64_t context = decode ? spec.context : 0;
  const uint64_t capacity = (context + per_seq + 127) / 128 * 128;
  const ChipHbmImage& hbm0 = model.image.hbm.at(0);
  const GeneratedTensor& input = hbm0.tensor("input");
  Matrix x(rows * hidden);
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < hidden; ++c) x[r * hidden + c] = input.value(seed, r, c);
  }
  auto position = [&](uint64_t r) { return decode ? context : r % per_seq; };
  // Rotary tables exactly as the compiler stored them.
  const ExplicitRegion& cos_region = hbm0.region("rope.cos");
  const ExplicitRegion& sin_region = hbm0.region("rope.sin");
  auto table = [](const ExplicitRegion& region, uint64_t r, uint64_t j) {
    float v;
    std::memcpy(&v, &region.bytes.at((r * 128 + j) * 4), 4);
    return v;
  };
  const float q_scale = 1.0f / std::sqrt(128.0f);
  for (uint64_t layer = 0; layer < m.layers; ++layer) {
    const std::string p = "layer" + std::to_string(layer) + ".";
    Matrix attn_sum(rows * hidden, 0.0f), mlp_in;
    for (uint32_t chip = 0; chip < t; ++chip) {
      const ChipHbmImage& hbm = model.image.hbm.at(chip);
      const Matrix h = rmsnorm(x, rows, hidden, hbm.tensor(p + "attn_norm"), seed, m.norm_eps);
      const uint64_t qkv_cols = (hl + 2 * kvl) * 128;
      Matrix qkv = matmul(h, rows, hidden, hbm.tensor(p + "wqkv"), seed);
      // Rotary embedding on q and k heads; q also scaled by 1/sqrt(d).
      for (uint64_t r = 0; r < rows; ++r) {
        for (uint64_t head = 0; head < hl + kvl; ++head) {
          float* v = &qkv[r * qkv_cols + head * 128];
          float rotated[128], out[128];
          for (uint64_t j = 0; j < 128; ++j) rotated[j] = j < 64 ? -bf16_round(v[j + 64]) : bf16_round(v[j - 64]);
          for (uint64_t j = 0; j < 128; ++j) {
            out[j] = v[j] * table(cos_region, r, j) + rotated[j] * table(sin_region, r, j);
            if (head < hl) out[j] *= q_scale;
          }
          std::memcpy(v, out, sizeof(out));
        }
      }
      const GeneratedTensor& k_cache = hbm.tensor(p + "k_cache");
      const GeneratedTensor& v_cache = hbm.tensor(p + "v_cache");
      Matrix attn(rows * hl * 128, 0.0f);
      for (uint64_t r = 0; r < rows; ++r) {
        const uint64_t b = r / per_seq, qpos = position(r);
        for (uint64_t head = 0; head < hl; ++head) {
          const uint64_t kvh = head / g;
          auto key = [&](uint64_t pos, uint64_t d) -> float {
            if (pos >= context) {  // a token of this step
              const uint64_t row = b * per_seq + (pos - context);
              return bf16_round(qkv[row * qkv_cols + (hl + kvh) * 128 + d]);
            }
            return k_cache.value(seed, (b * kvl + kvh) * capacity + pos, d);
          };
          auto value = [&](uint64_t pos, uint64_t d) -> float {
            if (pos >= context) {
              const uint64_t row = b * per_seq + (pos - context);
              return bf16_round(qkv[row * qkv_cols + (hl + kvl + kvh) * 128 + d]);
            }
            return v_cache.value(seed, (b * kvl + kvh) * capacity + pos, d);
          };
          const float* q = &qkv[r * qkv_cols + head * 128];
          std::vector<float> score(qpos + 1);
          float max_score = -INFINITY;
          for (uint64_t pos = 0; pos <= qpos; ++pos) {
            float s = 0;
            for (uint64_t d = 0; d < 128; ++d) s += bf16_round(q[d]) * key(pos, d);
            score[pos] = s;
            max_score = std::max(max_score, s);
          }
          float sum = 0;
          for (float& s : score) {
            s = std::exp(s - max_score);
            sum += s;
          }
          float* o = &attn[r * hl * 128 + head * 128];
          for (uint64_t pos = 0; pos <= qpos; ++pos) {
            const float pr = bf16_round(score[pos]);
            for (uint64_t d = 0; d < 128; ++d) o[d] += pr * value(pos, d);
          }
          for (uint64_t d = 0; d < 128; ++d) o[d] /= sum;
        }
      }
      const Matrix o = matmul(attn, rows, hl * 128, hbm.tensor(p + "wo"), seed);
      for (size_t i = 0; i < o.size(); ++i) attn_sum[i] += o[i];
    }
    for (size_t i = 0; i < x.size(); ++i) x[i] += attn_sum[i];
    Matrix mlp_sum(rows * hidden, 0.0f);
    for (uint32_t chip = 0; chip < t; ++chip) {
      const ChipHbmImage& hbm = model.image.hbm.at(chip);
      const Matrix h = rmsnorm(x, rows, hidden, hbm.tensor(p + "mlp_norm"), seed, m.norm_eps);
      Matrix gate = matmul(h, rows, hidden, hbm.tensor(p + "w_gate"), seed);
      const Matrix up = matmul(h, rows, hidden, hbm.tensor(p + "w_up"), seed);
      for (size_t i = 0; i < gate.size(); ++i) {
        const float v = gate[i];
        float act;
        if (m.activation == Activation::kSilu) {
          act = v / (1.0f + std::exp(-v));
        } else {
          act = 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
        }
        gate[i] = act * up[i];
      }
      const Matrix down = matmul(gate, rows, m.ffn / t, hbm.tensor(p + "w_down"), seed);
      for (size_t i = 0; i < down.size(); ++i) mlp_sum[i] += down[i];
    }
    for (size_t i = 0; i < x.size(); ++i) x[i] += mlp_sum[i];
  }
  return x;
}

std::vector<float> reference_collective(const CompiledModel& model, uint32_t chip) {
  const Spec& spec = model.spec;
  const uint32_t t = model.image.chips();
  const uint64_t floats = spec.collective_bytes_per_chip / 4;
  auto input = [&](uint32_t c) {
    const GeneratedTensor& in = model.image.hbm.at(c).tensor("input");
    std::vector<float> v(floats);
    for (uint64_t i = 0; i < floats; ++i) v[i] = in.value(spec.seed, i / 128, i % 128);
    return v;
  };
  const uint64_t chunk = floats / t;
  std::vector<float> out;
  switch (spec.collective) {
    case CollectiveOp::kAllGather:
      for (uint32_t c = 0; c < t; ++c) {
        const auto v = input(c);
        out.insert(out.end(), v.begin(), v.end());
      }
      return out;
    case CollectiveOp::kAllToAll:
      for (uint32_t c = 0; c < t; ++c) {
        const auto v = input(c);
        out.insert(out.end(), v.begin() + chip * chunk, v.begin() + (chip + 1) * chunk);
      }
      return out;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllReduce: {
      std::vector<std::vector<float>> inputs;
      for (uint32_t c = 0; c < t; ++c) inputs.push_back(input(c));
      auto reduced_chunk = [&](uint32_t which) {
        std::vector<float> r(chunk);
        for (uint64_t i = 0; i < chunk; ++i) {
          float s = inputs[0][which * chunk + i];
          for (uint32_t c = 1; c < t; ++c) s += inputs[c][which * chunk + i];
          r[i] = s;
        }
        return r;
      };
      if (spec.collective == CollectiveOp::kReduceScatter) return reduced_chunk(chip);
      for (uint32_t c = 0; c < t; ++c) {
        const auto r = reduced_chunk(c);
        out.insert(out.end(), r.begin(), r.end());
      }
      return out;
    }
  }
  throw Error("reference_collective: unknown collective");
}

}  // namespace snr::compiler
