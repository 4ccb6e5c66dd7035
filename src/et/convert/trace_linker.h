// Joins a PyTorch host execution trace with the Kineto device trace of the
// same run (`snr et link`). Steps (docs/linking.md):
//  1. Host op <-> Kineto cpu_op/user_annotation by the matchers of
//     op_matching.h: Record function id, External id with detected offsets,
//     aligned op-name sequences. Only equal names ever pair.
//  2. Runtime call (cuda_runtime / cuda_driver) -> the innermost Kineto CPU
//     op on the same pid/tid whose [ts, ts+dur] contains the call's ts.
//  3. GPU activity (kernel / gpu_memcpy / gpu_memset) -> its runtime call by
//     "correlation" -> rule 2 -> the nearest enclosing Kineto op matched to a
//     host op by step 1. NCCL/RCCL kernels are also counted by whether that
//     host op is (inside) a collective.
//  4. Synchronisation (synchronising runtime calls and cuda_sync events) is
//     attached to the host op the same way, with the stream it waits on.
//  5. Checks: the two traces must come from the same process (pid), the same
//     time (host "time" vs Kineto timestamps) and rank, and enough host ops
//     must match; the verdict says which check failed.
// Indexing is by hash maps and per-thread sorted sweeps: O(N log N).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/kineto_trace.h"

namespace snr::et_convert {

struct LinkOptions {
  // Refuse when fewer than this fraction of host ops match a Kineto op.
  double min_linked_fraction = 0.5;
};

struct ThreadLinkSummary {
  uint64_t host_tid = 0;
  size_t ops = 0;      // operators and markers of this host thread
  size_t matched = 0;
};

struct CategoryCount {
  std::string category;  // Kineto category ("kernel", "gpu_memcpy", ...)
  size_t total = 0;
  size_t linked = 0;
};

struct LinkStats {
  // Host side. host_ops = host_ops_matched + host_ops_unmatched_name_differs
  // + host_ops_unmatched_absent. Markers ("## ... ##") and the observer's
  // process/thread roots are counted apart from ops.
  size_t host_ops = 0;
  size_t host_ops_matched = 0;
  size_t host_ops_unmatched_name_differs = 0;  // a Kineto op had its key but another name
  size_t host_ops_unmatched_absent = 0;        // no Kineto op found for it
  size_t markers = 0;
  size_t markers_matched = 0;
  size_t roots = 0;
  std::vector<std::string> matcher_names;  // in the order they ran
  std::vector<size_t> matched_by;          // ops + markers per matcher
  std::vector<std::string> matcher_notes;  // detected offsets, aligned threads
  size_t name_mismatches = 0;  // key hits rejected for a name mismatch (diagnostic)
  std::vector<ThreadLinkSummary> threads;

  // Kineto side. kineto_cpu_ops = kineto_cpu_ops_matched + the rest (ops of
  // other iterations or threads the host trace does not hold).
  size_t kineto_cpu_ops = 0;
  size_t kineto_cpu_ops_matched = 0;
  // gpu_activities = gpu_linked + gpu_without_runtime + gpu_without_cpu_op
  // + gpu_without_host_op.
  size_t gpu_activities = 0;
  size_t gpu_linked = 0;
  size_t gpu_without_runtime = 0;  // no runtime call with its correlation
  size_t gpu_without_cpu_op = 0;   // runtime call outside every Kineto CPU op
  size_t gpu_without_host_op = 0;  // enclosing Kineto ops not matched to the host trace
  std::vector<CategoryCount> gpu_by_category;
  // comm_kernels = comm_linked_to_collective + comm_linked_elsewhere + unlinked.
  size_t comm_kernels = 0;
  size_t comm_linked_to_collective = 0;  // host op is or is inside a collective record
  size_t comm_linked_elsewhere = 0;
  // sync_calls = syncs_linked + syncs_unlinked.
  size_t sync_calls = 0;
  size_t syncs_linked = 0;
  size_t syncs_unlinked = 0;
  // cuda_sync_events = cuda_sync_attached + cuda_sync_unlinked +
  // cuda_sync_stream_waits + cuda_sync_without_call.
  size_t cuda_sync_events = 0;
  size_t cuda_sync_attached = 0;      // gave a linked sync call its stream
  size_t cuda_sync_unlinked = 0;      // their sync call is outside matched ops
  size_t cuda_sync_stream_waits = 0;  // cudaStreamWaitEvent: GPU-side waits
  // stream_wait_calls = stream_waits_linked + stream_waits_unlinked.
  size_t stream_wait_calls = 0;
  size_t stream_waits_linked = 0;        // kept on their host op
  size_t stream_waits_with_streams = 0;  // of those, a cuda_sync event named both streams
  size_t stream_waits_unlinked = 0;      // outside matched ops
  size_t cuda_sync_without_call = 0;  // no runtime call with their correlation

  // Consistency of the pair and the verdict.
  std::optional<int64_t> rank;
  std::string rank_source;          // "host trace", "Kineto distributedInfo", ...
  std::vector<std::string> problems;  // pid / time / rank / name mismatches
  std::string confidence;           // "high", "partial", "refused"
  [[nodiscard]] bool refused() const { return confidence == "refused"; }
  [[nodiscard]] double matched_fraction() const {
    const size_t all = host_ops + markers;
    return all == 0 ? 0.0 : static_cast<double>(host_ops_matched + markers_matched) / static_cast<double>(all);
  }
};

// Returns the host trace with device nodes added (new ids above the largest
// host id, parent = launching host op) and ts/dur on matched host ops. The
// verdict is in `stats`; refusing is the caller's decision. Pass the host
// trace as an rvalue to link it in place (no copy of its nodes).
pytorch::HostTrace link_traces(pytorch::HostTrace host, const pytorch::KinetoTrace& device,
                               const LinkOptions& options, LinkStats& stats);

// The same with the default options.
pytorch::HostTrace link_traces(pytorch::HostTrace host, const pytorch::KinetoTrace& device, LinkStats& stats);

std::string describe(const LinkStats& stats);

}  // namespace snr::et_convert
