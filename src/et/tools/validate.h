// `snr et validate`: checks one trace or every rank of a prefix — framing and
// schema (via the lenient reader: every skipped record is an error), node ids
// (duplicates), dependencies (self, duplicate, dangling, cycles) and the
// communication attributes simulators rely on. Keeps O(nodes + edges) of
// compact ids per rank (never the protobuf messages) to find cycles.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/chakra/rank_files.h"

namespace snr::et {

enum class IssueSeverity { kError, kWarning };

struct ValidationIssue {
  IssueSeverity severity = IssueSeverity::kError;
  std::string message;  // names the file and node id
};

struct RankValidation {
  uint64_t rank = 0;
  std::string path;
  uint64_t nodes = 0;
  uint64_t data_edges = 0;
  uint64_t ctrl_edges = 0;
  uint64_t skipped_records = 0;
  uint64_t zero_length_messages = 0;
  uint64_t errors = 0;
  uint64_t warnings = 0;
  std::map<std::string, uint64_t> nodes_by_type;  // "COMP_NODE" -> count
  uint64_t collectives = 0;
};

struct ValidationReport {
  std::vector<RankValidation> ranks;
  std::vector<ValidationIssue> issues;  // the first `max_listed_issues`
  uint64_t errors = 0;
  uint64_t warnings = 0;
};

struct ValidateOptions {
  size_t max_listed_issues = 50;
  uint64_t max_message_bytes = 256ull << 20;
};

ValidationReport validate_traces(const std::vector<chakra::RankTraceFile>& files,
                                 const ValidateOptions& options = {});

// A fixed-width summary table (one row per rank, a total row), followed by
// the listed issues.
std::string format_validation_report(const ValidationReport& report);

}  // namespace snr::et
