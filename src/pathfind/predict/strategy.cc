#include "pathfind/predict/strategy.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "common/error.h"

namespace snr::pathfind {

std::string Strategy::to_string() const {
  std::string out = notation.to_string();
  if (interleave > 1) out += fmt::format(" interleave={}", interleave);
  if (sequence_parallel) out += " sp";
  if (recompute != Recompute::kNone) out += fmt::format(" recompute={}", recompute_name(recompute));
  if (optimizer_sharding) out += " zero1";
  return out;
}

namespace {

uint64_t count_of(std::string_view text, std::string_view key, std::string_view value) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || v == 0 || v > kMaxParallelCount) {
    throw Error(fmt::format("parallelism '{}': {}={} is not a count in 1..{}", text, key, value, kMaxParallelCount));
  }
  return v;
}

}  // namespace

Strategy parse_strategy(std::string_view text) {
  Strategy s;
  if (text.find('=') == std::string_view::npos) {
    s.notation = parse_parallelism(text);
    return s;
  }
  uint64_t tp = 1, pp = 1, dp = 1;
  std::vector<std::string_view> seen;  // a part given twice would silently take its last value
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    std::string_view item = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    size_t eq = item.find('=');
    std::string_view key = item.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      throw Error(fmt::format("parallelism '{}': '{}' is given more than once", text, key));
    }
    seen.push_back(key);
    if (key == "tp") tp = count_of(text, key, value);
    else if (key == "pp") pp = count_of(text, key, value);
    else if (key == "dp") dp = count_of(text, key, value);
    else if (key == "interleave") s.interleave = count_of(text, key, value);
    else if (key == "sp" && eq == std::string_view::npos) s.sequence_parallel = true;
    else if (key == "zero1" && eq == std::string_view::npos) s.optimizer_sharding = true;
    else if (key == "recompute") {
      if (value == "none") s.recompute = Recompute::kNone;
      else if (value == "full") s.recompute = Recompute::kFull;
      else if (value == "selective") s.recompute = Recompute::kSelective;
      else throw Error(fmt::format("parallelism '{}': recompute={} is not none, full or selective", text, value));
    } else {
      throw Error(fmt::format("parallelism '{}': unknown part '{}' (tp=, pp=, dp=, interleave=, sp, recompute=, zero1; "
                              "or the notation RC-{{KP1}}-{{KP2}}-d{{DP}}-p{{LP}} / CR-{{KP1}}-d{{DP}}-p{{LP}})",
                              text, item));
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  s.notation.kind = tp > 1 ? KernelSplit::kColumnRow : KernelSplit::kNone;
  s.notation.kp1 = tp;
  s.notation.dp = dp;
  s.notation.lp = pp;
  s.notation.validate();
  return s;
}

DimOrder parse_dimension_order(std::string_view text, std::string_view what) {
  DimOrder order{};
  size_t count = 0, start = 0;
  std::array<bool, kParallelDimCount> seen{};
  while (start <= text.size()) {
    const size_t end = text.find(',', start);
    const std::string_view part = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    bool found = false;
    for (ParallelDim dim : kAllParallelDims) {
      const size_t i = index_of(dim);
      if (part != parallel_dim_name(dim) && !(part.size() == 1 && part[0] == "rcpd"[i])) continue;
      if (!seen[i] && count < kParallelDimCount) {
        seen[i] = true;
        order[count++] = dim;
        found = true;
      }
    }
    if (!found) {
      throw Error(fmt::format(
          "{} '{}': '{}' is not a new parallel dimension (kernel_row, kernel_col, pipeline, data, or r, c, p, d)",
          what, text, part));
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (count != kParallelDimCount) {
    throw Error(fmt::format("{} '{}': name all four parallel dimensions once, or 'best'", what, text));
  }
  return order;
}

}  // namespace snr::pathfind
