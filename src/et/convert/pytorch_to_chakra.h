// PyTorch host execution trace (plain or linked by `snr et link`) -> one
// rank's Chakra graph. Every rule is listed in docs/formats/pytorch.md
// ("Conversion to Chakra"); in short:
//  - Emitted host ops: the outermost operators. A schema-less op with child
//    operators is a scope (autograd wrappers, user annotations, ProfilerStep)
//    and is looked through, as is any op whose subtree holds a collective.
//  - Emitted ops are COMP nodes with is_cpu_op; record_param_comms becomes a
//    COMM_COLL / COMM_SEND / COMM_RECV node when no NCCL kernel of it was
//    linked, otherwise its NCCL kernels carry the communication.
//  - Device nodes (linked traces) are COMP nodes (is_cpu_op false) or, for
//    NCCL kernels, communication nodes.
//  - data_deps: previous CPU op on the same thread, tensor producer ->
//    consumer, launching op -> device node, same-stream launch order,
//    synchronising calls -> the next CPU op of the thread, collective ->
//    its "wait", stream waits -> across streams. ctrl_deps: launching op
//    of each device node.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "et/convert/converted_graph.h"
#include "formats/pytorch/host_trace.h"

namespace snr::et_convert {

struct PytorchConvertOptions {
  std::optional<int64_t> rank;  // overrides the trace's rank (default 0)
};

struct PytorchConvertStats {
  int64_t rank = 0;
  std::string rank_source;  // "--rank", "the trace's root", "inferred: ...", "none ..."
  size_t cpu_ops = 0;
  size_t gpu_ops = 0;
  size_t comm_coll = 0;
  size_t comm_send = 0;
  size_t comm_recv = 0;
  size_t scopes_looked_through = 0;
  size_t ops_absorbed = 0;             // operators inside an emitted op
  size_t device_nodes_without_op = 0;  // launched by a scope: no launch dependency
  size_t unknown_collectives = 0;      // record_param_comms with an unknown name -> CPU op
  size_t comm_kernels_without_record = 0;  // NCCL kernel with no record_param_comms above it
  size_t c10d_collectives = 0;         // c10d:: collective ops with no record_param_comms below (gloo)
  size_t backend_collective_work = 0;  // gloo:* records of a collective's execution, not emitted
  size_t orphan_nodes = 0;             // parent id not in the trace (treated as roots)
  size_t rooted_collectives = 0;       // broadcast, reduce, gather, scatter
  size_t roots_unknown = 0;            // ... whose root has no global rank here (no comm_src written)
  size_t peers_unknown = 0;            // sends/receives whose peer is missing or no rank: peer -1 written
  size_t data_deps = 0;
  size_t ctrl_deps = 0;
  size_t stream_deps = 0;
  size_t sync_deps = 0;
  size_t wait_deps = 0;
  // Stream waits (cudaStreamWaitEvent) of linked traces: placed as a
  // dependency of the waiting stream's next device node on the other
  // stream's last one, or not placed because the trace does not name both
  // streams or no device node is on one side.
  size_t stream_wait_deps = 0;
  size_t stream_waits_unknown_stream = 0;
  size_t stream_waits_no_node = 0;
};

ConvertedGraph convert_pytorch_trace(const pytorch::HostTrace& trace,
                                     const PytorchConvertOptions& options,
                                     PytorchConvertStats& stats);

std::string describe(const PytorchConvertStats& stats);

}  // namespace snr::et_convert
