// Grows (or shrinks) a Chakra trace from N to M ranks by the symmetry of
// its parallel groups (docs/et-retarget.md):
//
//   input layout   every collective spans all N ranks (one tensor-parallel
//                  group, T_in = N), or the collectives name process groups
//                  that tile the ranks in equal contiguous blocks (data-
//                  parallel replicas of a T_in-rank group, D_in = N / T_in);
//                  point-to-point nodes stay inside a block
//   output layout  --tp T --dp D --pp P with T x D x P = M; rank
//                  r = t + T x (d + D x s) (tensor-parallel position
//                  fastest, pipeline stage slowest)
//   rules          output rank (t, d, s) runs input rank t mod T_in of
//                  replica d mod D_in; collectives get the process group
//                  of their (replica, stage); with T != T_in each rank's
//                  share of the step scales by T_in / T (compute durations,
//                  num_ops, tensor_size, all-gather sizes: a member's
//                  share; the sizes of reduce-scatter, all-reduce and
//                  all-to-all are the whole buffer and stay); with P > 1
//                  every stage runs the traced step (the trace is one
//                  stage) and hands its activation to the same position of
//                  the next stage: a COMM_RECV that the stage's nodes
//                  without dependencies wait for, and a COMM_SEND after the
//                  nodes nothing depends on. The activation is the last
//                  collective's output tensor, or --activation-bytes.
//
// Refusals (snr::Error, nothing written): T x D x P != M, groups that are
// not equal contiguous blocks, point-to-point traffic between blocks, a
// tensor-parallel re-scale or pipeline stages for a trace with
// point-to-point nodes, pipeline stages without a known activation size,
// sizes that do not divide. With the input's own layout the output is the
// input, byte for byte. Ranks are streamed one node at a time: memory does
// not grow with M (pipeline stages keep one rank's node ids).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace snr::et {

struct RetargetOptions {
  uint64_t npus = 0;  // M
  uint64_t tp = 0;    // 0 = the input's tensor-parallel group size
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
RetargetLayout infer_layout(const std::filesystem::path& prefix);

RetargetSummary retarget_trace(const std::filesystem::path& prefix, const RetargetOptions& options,
                               const std::filesystem::path& output_prefix);

}  // namespace snr::et
