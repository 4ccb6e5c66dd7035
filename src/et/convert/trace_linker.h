// Joins a PyTorch host execution trace with the Kineto device trace of the
// same run (`snr et link`). Rules, in order (docs/formats/pytorch.md):
//  1. Host op <-> Kineto cpu_op/user_annotation: rf_id == "Record function
//     id" when the Kineto trace has that field; otherwise rf_id ==
//     "External id", accepted only when the names agree.
//  2. Runtime call (cuda_runtime / cuda_driver) -> the innermost Kineto CPU
//     op on the same pid/tid whose [ts, ts+dur] contains the call's ts.
//  3. GPU activity (kernel / gpu_memcpy / gpu_memset) -> its runtime call by
//     "correlation" -> rule 2 -> the nearest enclosing Kineto op matched to a
//     host op by rule 1.
//  4. Synchronising calls (cudaDeviceSynchronize, cudaStreamSynchronize,
//     cudaEventSynchronize) are attached to their host op the same way.
// Indexing is by hash maps and per-thread sorted sweeps: O(N log N).
#pragma once

#include <cstddef>
#include <string>

#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/kineto_trace.h"

namespace snr::et_convert {

enum class LinkKey { kRecordFunctionId, kExternalId };

struct LinkStats {
  LinkKey key = LinkKey::kRecordFunctionId;
  size_t host_ops = 0;            // operator nodes in the host trace
  size_t host_ops_matched = 0;    // with a Kineto op (timing attached)
  size_t kineto_cpu_ops = 0;
  size_t gpu_activities = 0;      // kernels + memcpy + memset in the Kineto trace
  size_t gpu_linked = 0;          // attached to a host op
  size_t gpu_without_runtime = 0; // no runtime call with its correlation
  size_t gpu_without_cpu_op = 0;  // runtime call outside every Kineto CPU op
  size_t gpu_without_host_op = 0; // enclosing Kineto ops not in the host trace
  size_t syncs_linked = 0;
  size_t name_mismatches = 0;     // External id hits rejected for a name mismatch
};

// Returns the host trace with device nodes added (new ids above the largest
// host id, parent = launching host op) and ts/dur on matched host ops.
pytorch::HostTrace link_traces(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device,
                               LinkStats& stats);

std::string describe(const LinkStats& stats);

}  // namespace snr::et_convert
