// Does a host execution trace and a Kineto trace describe the same run?
// Each check reports a problem sentence or nothing:
//   pid   the host trace's pid is not among the Kineto CPU ops' pids;
//   time  the host trace's wall-clock "time" (local time, no zone) and the
//         Kineto timestamps (Unix epoch) are further apart than any time
//         zone plus a day of profiling explains;
//   rank  both traces name a rank and the ranks differ;
//   name  fewer host ops found a same-name Kineto op than the threshold.
// The linker's verdict is "refused" when any check reports a problem.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/kineto_trace.h"

namespace snr::et_convert {

std::optional<std::string> check_pid(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device);
std::optional<std::string> check_time(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device);
std::optional<std::string> check_rank(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device);

// "YYYY-MM-DD HH:MM:SS" read as if UTC -> seconds since the epoch.
std::optional<int64_t> parse_wall_clock_seconds(std::string_view text);

}  // namespace snr::et_convert
