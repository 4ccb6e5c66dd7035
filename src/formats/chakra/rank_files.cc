#include "formats/chakra/rank_files.h"

#include <algorithm>
#include <charconv>
#include <string>

#include <fmt/format.h>

#include "common/error.h"

namespace snr::chakra {
namespace {

// Parses "<stem>.<digits>.et" where <stem> equals `stem`; digits must be a
// plain decimal without leading zeros (except "0").
bool parse_rank_name(const std::string& file_name, const std::string& stem, uint64_t& rank) {
  constexpr std::string_view kSuffix = ".et";
  if (file_name.size() <= stem.size() + 1 + kSuffix.size()) return false;
  if (file_name.compare(0, stem.size(), stem) != 0 || file_name[stem.size()] != '.') return false;
  if (file_name.compare(file_name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) return false;
  std::string_view digits(file_name.data() + stem.size() + 1,
                          file_name.size() - stem.size() - 1 - kSuffix.size());
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return false;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  return ec == std::errc() && ptr == digits.data() + digits.size();
}

}  // namespace

std::filesystem::path rank_trace_path(const std::filesystem::path& prefix, uint64_t rank) {
  return std::filesystem::path(fmt::format("{}.{}.et", prefix.string(), rank));
}

std::vector<RankTraceFile> discover_rank_traces(const std::filesystem::path& prefix) {
  std::filesystem::path directory = prefix.parent_path();
  if (directory.empty()) directory = ".";
  std::string stem = prefix.filename().string();
  std::vector<RankTraceFile> found;
  std::error_code ec;
  if (stem.empty() || !std::filesystem::is_directory(directory, ec)) return found;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    uint64_t rank = 0;
    if (!parse_rank_name(entry.path().filename().string(), stem, rank)) continue;
    if (!entry.is_regular_file(ec)) continue;
    found.push_back(RankTraceFile{rank, rank_trace_path(prefix, rank)});
  }
  std::sort(found.begin(), found.end(),
            [](const RankTraceFile& a, const RankTraceFile& b) { return a.rank < b.rank; });
  return found;
}

std::vector<RankTraceFile> resolve_trace_argument(const std::filesystem::path& path_or_prefix) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path_or_prefix, ec)) {
    uint64_t rank = 0;
    std::string name = path_or_prefix.filename().string();
    // "x.3.et" is rank 3 of prefix "x"; any other name is rank 0.
    auto first_dot = name.rfind('.', name.size() >= 4 ? name.size() - 4 : 0);
    if (first_dot == std::string::npos || first_dot == 0 ||
        !parse_rank_name(name, name.substr(0, first_dot), rank)) {
      rank = 0;
    }
    return {RankTraceFile{rank, path_or_prefix}};
  }
  auto found = discover_rank_traces(path_or_prefix);
  if (found.empty()) {
    throw Error(fmt::format("{}: no such file, and no {}.<rank>.et files beside it", path_or_prefix.string(),
                            path_or_prefix.filename().string()));
  }
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i].rank != i) {
      throw Error(fmt::format("{}: rank files are not numbered 0..{} without gaps: rank {} is missing",
                              path_or_prefix.string(), found.back().rank, i));
    }
  }
  return found;
}

}  // namespace snr::chakra
