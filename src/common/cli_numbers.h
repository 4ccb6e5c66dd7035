// Integers typed by users (command-line options, counts in small text
// inputs): one parser, so every such number is checked the same way. No
// sign is accepted (a "-1" for an unsigned option is an error, never
// 18446744073709551615), no trailing junk, and the value must lie in the
// caller's documented range.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/result.h"

namespace snr {

// Decimal, or hexadecimal with a 0x prefix. Errors describe the text and the
// accepted range; callers prefix the option or key name.
Result<uint64_t> parse_unsigned(std::string_view text, uint64_t min = 0, uint64_t max = UINT64_MAX);

// Upper bounds shared by every verb (docs/errors.md lists them): large
// enough for any real system, small enough that a typo cannot ask for
// terabytes of output or days of work.
namespace limits {
inline constexpr uint64_t kMaxRanks = 1ull << 20;          // NPUs / ranks of a trace set
inline constexpr uint64_t kMaxChips = 256;                 // chips of the cycle-level simulator
inline constexpr uint64_t kMaxLayers = 1ull << 16;         // layers / repetitions of generated workloads
inline constexpr uint64_t kMaxMicrobatches = 1ull << 16;
inline constexpr uint64_t kMaxComputeMicros = 1ull << 40;  // ~12.7 days of one compute node
inline constexpr uint64_t kMaxCollectivesPerRank = 1ull << 24;
inline constexpr uint64_t kMaxListed = 1ull << 20;         // items listed in a report

// Whether `value` is a rank of a trace set (0 .. kMaxRanks - 1): what a rank
// read from a file must be before it names a file or sizes a group.
inline constexpr bool is_rank(int64_t value) { return value >= 0 && static_cast<uint64_t>(value) < kMaxRanks; }
}  // namespace limits

}  // namespace snr
