// One trace file per rank, named `<prefix>.<rank>.et` (Chakra's convention,
// also what ASTRA-sim's --workload-configuration expects). These helpers
// build and discover such names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace snr::chakra {

struct RankTraceFile {
  uint64_t rank = 0;
  std::filesystem::path path;
};

// `<prefix>.<rank>.et`
std::filesystem::path rank_trace_path(const std::filesystem::path& prefix, uint64_t rank);

// Every `<prefix>.<N>.et` beside `prefix`, sorted by rank. Empty when none.
// Only plain decimal ranks match (`x.01.et` and `x.1a.et` do not).
std::vector<RankTraceFile> discover_rank_traces(const std::filesystem::path& prefix);

// Resolves a command-line argument that is either one .et file or a prefix:
// an existing regular file is returned as rank 0 alone; otherwise the prefix
// is discovered, and an error names the prefix when nothing matches or the
// ranks are not 0..N-1 without gaps.
std::vector<RankTraceFile> resolve_trace_argument(const std::filesystem::path& path_or_prefix);

}  // namespace snr::chakra
