// Grows (or shrinks) a Chakra trace from N to M ranks by the symmetry of
// its parallel groups (docs/et-retarget.md):
//
//   input layout   T_in x D_in ranks (rank = t + T_in x d): T_in from
//                  --input-tp, else the size of the groups of consecutive
//                  ranks, else the stride of strided groups, else N. Each
//                  collective's group is tensor-parallel (T_in consecutive
//                  ranks) or data-parallel (D_in ranks T_in apart);
//                  point-to-point nodes stay inside a tensor-parallel block
//   output layout  --tp T --dp D --pp P with T x D x P = M; rank
//                  r = t + T x (d + D x s) (tensor-parallel position
//                  fastest, pipeline stage slowest)
//   rules          output rank (t, d, s) runs input rank t mod T_in of
//                  replica d mod D_in; a collective gets the output group
//                  of its axis (tensor-parallel: the (replica, stage)
//                  block; data-parallel: the D replicas of (t, s)); a group
//                  of one rank makes it a zero-time compute node; with
//                  T != T_in each rank's share of the step scales by
//                  T_in / T (compute durations, num_ops, tensor_size,
//                  tensor-parallel all-gather sizes and every data-parallel
//                  size; tensor-parallel reduce-scatter, all-reduce and
//                  all-to-all sizes are the whole buffer and stay); with
//                  P > 1 every stage runs the traced step (the trace is one
//                  stage) and hands its activation to the same position of
//                  the next stage: a COMM_RECV that the stage's nodes
//                  without dependencies wait for, and a COMM_SEND after the
//                  nodes nothing depends on. The activation is the last
//                  collective's output tensor, or --activation-bytes.
//                  "## process_group:init ##" nodes list the rank's new groups.
//
// Refusals (snr::Error, nothing written): T x D x P != M, groups that are
// neither tensor- nor data-parallel or do not list their rank,
// point-to-point traffic between blocks, a tensor-parallel re-scale or
// pipeline stages for a trace with point-to-point nodes, pipeline stages
// without a known activation size, sizes that do not divide. With the
// input's own layout the output is the input, byte for byte. Ranks are
// streamed one node at a time: memory does not grow with M (pipeline
// stages keep one rank's node ids).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace snr::et {

struct RetargetOptions {
  uint64_t npus = 0;  // M
  uint64_t tp = 0;    // 0 = the input's tensor-parallel group size
  uint64_t input_tp = 0;  // 0 = inferred from the input's groups (block size, else stride, else N)
  uint64_t dp = 0;    // 0 = M / (T x P)
  uint64_t pp = 1;
  uint64_t activation_bytes = 0;  // 0 = the last collective's output (pipeline stages only)
};

struct RetargetLayout {
  uint64_t ranks = 0;
  uint64_t tp = 0;
  uint64_t dp = 0;
  uint64_t pp = 1;
};

struct RetargetSummary {
  RetargetLayout input;
  RetargetLayout output;
  uint64_t nodes_written = 0;
  std::filesystem::path comm_groups;  // empty when every collective spans all ranks
};

// The input's layout, from a streaming pass over its ranks (and
// PREFIX.comm_groups.json when its collectives name groups).
RetargetLayout infer_layout(const std::filesystem::path& prefix, uint64_t input_tp = 0);

RetargetSummary retarget_trace(const std::filesystem::path& prefix, const RetargetOptions& options,
                               const std::filesystem::path& output_prefix);

}  // namespace snr::et
