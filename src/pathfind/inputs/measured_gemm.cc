#include "pathfind/inputs/measured_gemm.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "common/error.h"
#include "common/file_io.h"
#include "common/text.h"
#include "common/units.h"
#include "pathfind/inputs/quantity.h"

namespace snr::pathfind {
namespace {

uint64_t parse_dim(std::string_view text, std::string_view name) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v == 0 || v > (1ull << 40)) {
    throw Error(fmt::format("{} '{}' is not a positive integer up to 2^40", name, text));
  }
  return v;
}

}  // namespace

std::vector<MeasuredGemm> parse_llmcompass_gemm_csv(std::string_view text, std::string_view source) {
  std::vector<MeasuredGemm> rows;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_no;
    if (trim_blanks(line).empty()) continue;
    with_error_context(fmt::format("{}:{}", source, line_no), [&] {
      std::string_view fields[5];
      size_t count = 0;
      std::string_view rest = line;
      while (true) {
        size_t comma = rest.find(',');
        if (count == 5) throw Error("more than 5 fields (expected M, N, K, latency, rate)");
        fields[count++] = trim_blanks(rest.substr(0, comma));
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
      }
      if (count != 5) throw Error(fmt::format("{} fields, expected 5 (M, N, K, latency, rate)", count));
      MeasuredGemm row;
      row.line = line_no;
      row.shape = {parse_dim(fields[0], "M"), parse_dim(fields[1], "N"), parse_dim(fields[2], "K")};
      Duration latency = parse_duration(fields[3]).value();
      row.measured_s = static_cast<double>(latency.picoseconds) * 1e-12;
      if (!(row.measured_s > 0)) throw Error(fmt::format("latency '{}' must be positive", fields[3]));
      if (!fields[4].ends_with("flops")) throw Error(fmt::format("rate '{}' must end in flops (e.g. 101.7Tflops)", fields[4]));
      double rate = parse_flops_per_s(std::string(fields[4].substr(0, fields[4].size() - 5)) + "FLOPS");
      double expected = 2.0 * static_cast<double>(row.shape.m) * static_cast<double>(row.shape.n) *
                        static_cast<double>(row.shape.k) / row.measured_s;
      if (std::fabs(rate - expected) > 0.01 * expected) {
        throw Error(fmt::format("rate {} disagrees with 2*M*N*K/latency = {:.4f}Tflops", fields[4], expected / 1e12));
      }
      rows.push_back(row);
    });
  }
  if (rows.empty()) throw Error(fmt::format("{}: no GEMM rows", source));
  return rows;
}

std::vector<MeasuredGemm> load_llmcompass_gemm_csv(const std::string& path) {
  return parse_llmcompass_gemm_csv(read_file(path), path);
}

}  // namespace snr::pathfind
