// A prediction as Chakra execution traces, one per rank, so `snr sim` can
// run the same design with its congestion model (seed 004's model has
// none). Rank r is system node r; each rank's shard follows the chosen
// mapping. Per rank, kernels run one at a time in program order (§6.5 with
// k = 1); consecutive compute kernels become one COMP node carrying their
// predicted time; every collective becomes a COMM_COLL node on the process
// group of its parallel dimension; pipeline transfers are send/recv pairs.
//
//  training   1F1B: min(P-p-1, M) warm-up forwards, then one forward and
//             one backward in turn, then the remaining backwards; the
//             output layer on the last stage; recompute repeats the forward
//             collectives in backward; DP all-reduce and optimizer at the end
//  inference  the batch through the stages once
//  gemm       the local GEMM, then its all-gather (RC) or all-reduce (CR)
//
// Collective sizes follow ASTRA-sim: the buffer for all-reduce and
// reduce-scatter, each rank's contribution (1/n of the tensor) for all-gather.
// Durations are whole microseconds (Chakra's duration_micros); the rounding
// error is carried from node to node so no rank drifts by more than 0.5 µs.
#pragma once

#include "et/generate/workload_builder.h"
#include "pathfind/predict/predict.h"

namespace snr::pathfind {

// The most trace nodes emit builds: every rank's nodes stay in memory until
// written, about 1.5 KB each (the GPT-3 example: 808,056 nodes, 1.19 GB).
inline constexpr double kMaxEmitNodes = 1 << 23;

// What one prediction's traces hold at most: every collective, send and
// receive is a node, and the compute between two of them at most one more.
double max_trace_nodes(const Prediction& prediction);

// Throws snr::Error for what the writer cannot express (interleaved
// pipelines), a prediction without a system, or traces of more than
// kMaxEmitNodes nodes at most (refused before any is built).
et::Workload emit_traces(const PredictInputs& inputs, const Prediction& prediction);

}  // namespace snr::pathfind
