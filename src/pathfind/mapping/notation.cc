#include "pathfind/mapping/notation.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>
#include <vector>

#include "common/error.h"
#include "common/text.h"

namespace snr::pathfind {
namespace {

constexpr std::string_view kForms = "RC-{KP1}-{KP2}-d{DP}-p{LP}, CR-{KP1}-d{DP}-p{LP} or d{DP}-p{LP}";

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Saturates instead of wrapping so an unvalidated struct can still be
// compared against a limit.
uint64_t saturating_product(std::initializer_list<uint64_t> factors) {
  uint64_t product = 1;
  for (uint64_t f : factors) {
    if (f != 0 && product > std::numeric_limits<uint64_t>::max() / f) return std::numeric_limits<uint64_t>::max();
    product *= f;
  }
  return product;
}

void check_count(std::string_view where, std::string_view field, uint64_t value) {
  if (value == 0 || value > kMaxParallelCount) {
    throw Error(fmt::format("{}: {} must be in 1..{}, got {}", where, field, kMaxParallelCount, value));
  }
}

void check_total(std::string_view where, uint64_t devices) {
  if (devices > kMaxParallelDevices) {
    throw Error(fmt::format("{}: uses {} devices, more than the limit of {} (2^40)", where, devices,
                            kMaxParallelDevices));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  ParallelismNotation parse() {
    std::string_view s = trim_space(text_);
    if (s.empty()) fail(fmt::format("empty; expected {}", kForms));
    split(s);
    ParallelismNotation n;
    size_t i = 0;
    if (equals_ignoring_case(tokens_[0], "rc")) {
      n.kind = KernelSplit::kRowColumn;
      i = 1;
    } else if (equals_ignoring_case(tokens_[0], "cr")) {
      n.kind = KernelSplit::kColumnRow;
      i = 1;
    } else if (lower(tokens_[0][0]) != 'd') {
      fail(fmt::format("unknown kernel split '{}' (expected RC, CR or the data part d{{DP}}; forms: {})",
                       tokens_[0], kForms));
    }
    // Kernel factors are the parts before d{DP}: a digit or the K prefix.
    std::vector<std::string_view> factors;
    while (i < tokens_.size() && (std::isdigit(static_cast<unsigned char>(tokens_[i][0])) != 0 ||
                                  lower(tokens_[i][0]) == 'k')) {
      factors.push_back(tokens_[i++]);
    }
    if (n.kind == KernelSplit::kRowColumn && factors.size() != 2) {
      fail("RC needs two kernel factors (RC-{KP1}-{KP2}-d{DP}-p{LP})");
    }
    if (n.kind == KernelSplit::kColumnRow && factors.size() != 1) {
      fail("CR takes one kernel factor (CR-{KP1}-d{DP}-p{LP})");
    }
    if (n.kind != KernelSplit::kNone) n.kp1 = count(factors[0], "KP1");
    if (n.kind == KernelSplit::kRowColumn) n.kp2 = count(factors[1], "KP2");
    n.dp = count(expect(i++, 'd', "data part d{DP}"), "DP");
    n.lp = count(expect(i++, 'p', "pipeline part p{LP}"), "LP");
    if (i < tokens_.size()) fail(fmt::format("unexpected part '{}' after p{{LP}}", tokens_[i]));
    check_total(fmt::format("parallelism '{}'", text_), n.devices());
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(fmt::format("parallelism '{}': {}", text_, why));
  }

  void split(std::string_view s) {
    size_t start = 0;
    while (true) {
      size_t dash = s.find('-', start);
      std::string_view token = s.substr(start, dash == std::string_view::npos ? std::string_view::npos : dash - start);
      if (token.empty()) fail(fmt::format("empty part {} (two dashes in a row or a dash at an end)", tokens_.size() + 1));
      tokens_.push_back(token);
      if (dash == std::string_view::npos) break;
      start = dash + 1;
    }
  }

  // The token at `i` with its one-letter prefix removed.
  std::string_view expect(size_t i, char prefix, std::string_view what) const {
    if (i >= tokens_.size()) fail(fmt::format("missing the {}", what));
    if (lower(tokens_[i][0]) != prefix) fail(fmt::format("expected the {}, got '{}'", what, tokens_[i]));
    return tokens_[i].substr(1);
  }

  // `token` is the whole part for kernel factors (optional K) or the digits
  // after d/p.
  uint64_t count(std::string_view token, std::string_view field) const {
    std::string_view digits = token;
    if (!digits.empty() && lower(digits[0]) == 'k') digits.remove_prefix(1);
    if (digits.empty()) fail(fmt::format("{} has no number", field));
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) {
      fail(fmt::format("{} {} is out of range 1..{}", field, digits, kMaxParallelCount));
    }
    if (ec != std::errc() || ptr != digits.data() + digits.size()) {
      fail(fmt::format("{} '{}' is not a number", field, digits));
    }
    if (value == 0 || value > kMaxParallelCount) {
      fail(fmt::format("{} must be in 1..{}, got {}", field, kMaxParallelCount, value));
    }
    return value;
  }

  std::string_view text_;
  std::vector<std::string_view> tokens_;
};

}  // namespace

uint64_t ParallelismNotation::devices() const { return saturating_product({kp1, kp2, dp, lp}); }

std::string ParallelismNotation::to_string() const {
  switch (kind) {
    case KernelSplit::kRowColumn: return fmt::format("RC-{}-{}-d{}-p{}", kp1, kp2, dp, lp);
    case KernelSplit::kColumnRow: return fmt::format("CR-{}-d{}-p{}", kp1, dp, lp);
    case KernelSplit::kNone: break;
  }
  return fmt::format("d{}-p{}", dp, lp);
}

void ParallelismNotation::validate() const {
  const std::string where = "parallelism " + to_string();
  check_count(where, "kp1", kp1);
  check_count(where, "kp2", kp2);
  check_count(where, "dp", dp);
  check_count(where, "lp", lp);
  // to_string() drops the factors a split does not have, so a stray value
  // there would silently change devices(): refuse it.
  if (kind != KernelSplit::kRowColumn && kp2 != 1) {
    throw Error(fmt::format("{}: kp2 must be 1 without an RC kernel split, got {}", where, kp2));
  }
  if (kind == KernelSplit::kNone && kp1 != 1) {
    throw Error(fmt::format("{}: kp1 must be 1 without a kernel split, got {}", where, kp1));
  }
  check_total(where, devices());
}

ParallelismNotation parse_parallelism(std::string_view text) { return Parser(text).parse(); }

void check_devices(const ParallelismNotation& notation, uint64_t device_count) {
  notation.validate();
  if (notation.devices() != device_count) {
    throw Error(fmt::format("parallelism {} uses {} devices but the system has {}", notation.to_string(),
                            notation.devices(), device_count));
  }
}

std::string_view parallel_dim_name(ParallelDim dim) {
  switch (dim) {
    case ParallelDim::kKernelRow: return "kernel_row";
    case ParallelDim::kKernelCol: return "kernel_col";
    case ParallelDim::kPipeline: return "pipeline";
    case ParallelDim::kData: return "data";
  }
  return "?";
}

uint64_t ParallelDims::shards() const { return saturating_product({size[0], size[1], size[2], size[3]}); }

std::string ParallelDims::to_string() const {
  std::string out;
  for (ParallelDim d : kAllParallelDims) {
    out += fmt::format("{}{} {}", out.empty() ? "" : " x ", parallel_dim_name(d), (*this)[d]);
  }
  return out;
}

void ParallelDims::validate() const {
  for (ParallelDim d : kAllParallelDims) check_count("parallel dimensions", parallel_dim_name(d), (*this)[d]);
  check_total(fmt::format("parallel dimensions {}", to_string()), shards());
}

ParallelDims parallel_dims(const ParallelismNotation& notation) {
  notation.validate();
  ParallelDims dims;
  dims.size[index_of(ParallelDim::kKernelRow)] = notation.kp1;
  dims.size[index_of(ParallelDim::kKernelCol)] = notation.kind == KernelSplit::kRowColumn ? notation.kp2 : 1;
  dims.size[index_of(ParallelDim::kPipeline)] = notation.lp;
  dims.size[index_of(ParallelDim::kData)] = notation.dp;
  return dims;
}

}  // namespace snr::pathfind
