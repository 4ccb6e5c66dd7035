// What a `record_param_comms` host op and an NCCL kernel name say about a
// communication. PyTorch's RECORD_PARAM_COMMS inputs are positional:
//   older: [tensors, seq, pg_id(Int), rank, name, in_splits, out_splits, world_size]
//   newer: [tensors, seq, (pg_name, pg_desc), rank, name, in_splits,
//           out_splits, global_rank_start, global_rank_stride, world_size]
//   newest: the same followed by isAsyncOp (Bool)
// `rank` is the rank of the recording process, except for rooted
// collectives (broadcast, reduce, gather, scatter), where it is the root's
// rank in the group (opts.rootRank).
// Tensors may be absent (the "wait" record). The collective name is found as
// the String input that names a known operation; the fields before it are
// read relative to it, which covers both layouts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "et/convert/converted_graph.h"
#include "formats/pytorch/host_trace.h"

namespace snr::et_convert {

enum class CommKind { kCollective, kSend, kRecv, kWait, kUnknown };

struct CommRecord {
  CommKind kind = CommKind::kUnknown;
  CollectiveType collective = CollectiveType::kAllReduce;  // kCollective only
  std::string op_name;        // as recorded ("all_gather", "send", ...)
  std::optional<int64_t> seq;
  std::string pg_name;        // resolved through process-group init when numeric
  std::optional<int64_t> peer_rank;  // send: destination, recv: source, rooted collective: root (group rank)
  uint64_t input_bytes = 0;   // sum of input tensor bytes
  uint64_t output_bytes = 0;
  int64_t group_size = 0;     // the record's world_size (its last input), 0 when absent
  bool from_c10d_op = false;  // read from a c10d:: op, not a record_param_comms
};

bool is_comm_record(std::string_view host_op_name);

// Reads a record_param_comms node; kind kUnknown when no known name is found.
CommRecord read_comm_record(const pytorch::HostNode& node, const pytorch::HostTrace& trace);

// A `c10d::allreduce_`-style operator (the dispatcher op of a collective)
// with no record_param_comms below it, as backends without that record
// (gloo) leave it: kind and type from its name, bytes from its input
// tensors, no group (its process group is an opaque object). kUnknown when
// the name is not a c10d collective.
CommRecord read_c10d_op(const pytorch::HostNode& node);

// Maps an operation name ("allreduce", "_allgather_base",
// "reduce_scatter_tensor_coalesced", "send", ...) to its kind/type.
CommKind classify_comm_name(std::string_view name, CollectiveType& collective);

// True for NCCL/RCCL device kernels; sets kind/type from the kernel name
// ("ncclDevKernel_AllGather_RING_LL", "ncclKernel_AllReduce_..." ...).
bool classify_comm_kernel(std::string_view kernel_name, CommKind& kind, CollectiveType& collective);

}  // namespace snr::et_convert
