// The LSTM language model of seed 004's validation and case studies (§8-9):
// `layers` stacked LSTM layers unrolled over `sequence` time steps, an output
// projection to the vocabulary and a softmax, trained with Adam. One training
// iteration (forward, backward, data-parallel gradient all-reduce, optimizer
// step) is built as a kernel graph and timed by the event-driven scheduler
// (event_schedule.h), which is what makes the pipeline's time-step wavefront
// visible: with layers split over stages, layer l+1 at step t runs while
// layer l already computes step t+1. docs/pathfind-schedule.md has the model.
#pragma once

#include <cstdint>
#include <vector>

#include "pathfind/inputs/device.h"
#include "pathfind/llm/transformer.h"
#include "pathfind/mapping/notation.h"
#include "pathfind/schedule/event_schedule.h"

namespace snr::pathfind {

struct LstmModel {
  uint64_t hidden = 0;
  uint64_t vocab = 0;
  uint64_t layers = 2;
  uint64_t sequence = 20;  // time steps unrolled per iteration
  uint64_t batch = 0;      // global: sequences per iteration
  // Throws snr::Error naming the field that is zero or too large.
  void validate() const;
  // One layer: the gate matrix over [input; previous hidden] and its bias, 2H*4H + 4H.
  [[nodiscard]] double layer_parameters() const;
  // Output projection and its bias, H*V + V.
  [[nodiscard]] double projection_parameters() const;
  [[nodiscard]] double parameters() const;
};

struct LstmOptions {
  // Bytes the optimizer step streams per parameter: weight, gradient and the
  // two Adam moments, 4 bytes each (pass 8 for a pure 16-bit optimizer).
  double optimizer_bytes_per_parameter = 16;
  // Backward of an elementwise kernel moves this many times its forward bytes
  // (the same convention as the transformer model).
  double elementwise_backward_ratio = 2.0;
  // Kernels a stage may run at once (seed 004 §6.5's k).
  uint32_t kernels_per_stage = 1;
};

// Durations of one replica's kernels; GEMM entries include the kernel-parallel
// collective. The graph builder takes these as given, so a schedule can be
// checked with round numbers.
struct LstmKernelTimes {
  double cell_forward_s = 0;         // [b, 2H] x [2H, 4H]
  double gates_forward_s = 0;        // sigmoid/tanh gates, cell and hidden state
  double gates_backward_s = 0;
  double cell_data_grad_s = 0;       // [b, 4H] x [4H, 2H]
  double cell_weight_grad_s = 0;     // [2H, b] x [b, 4H]
  double projection_forward_s = 0;   // [b*S, H] x [H, V]
  double projection_data_grad_s = 0; // [b*S, V] x [V, H]
  double projection_weight_grad_s = 0;  // [H, b*S] x [b*S, V]
  double softmax_forward_s = 0;
  double softmax_backward_s = 0;
  double transfer_s = 0;             // one b x H activation (or its gradient) between stages
  bool dp_allreduce = false;         // add one gradient all-reduce kernel per stage
  std::vector<double> dp_allreduce_s;  // per stage
  std::vector<double> optimizer_s;     // per stage
};

// Kernel index layout: forward kernels [0, backward_begin), backward
// [backward_begin, tail_begin), then per stage the all-reduce (if any) and
// the optimizer step.
struct LstmGraph {
  ScheduleGraph graph;
  uint32_t backward_begin = 0;
  uint32_t tail_begin = 0;
};

// Kernels per cell: two forward (GEMM, gates) and three backward (gates,
// data and weight gradients).
inline constexpr uint64_t kLstmKernelsPerCell = 5;
// Kernels build_lstm_graph adds: kLstmKernelsPerCell per cell, the
// projection and softmax forward and backward (5), and per stage the
// optimizer step and, with data parallelism, the all-reduce before it. What
// one evaluation schedules, so what its cost grows with.
uint64_t lstm_graph_kernels(const LstmModel& model, uint64_t stages, bool dp_allreduce);

// Layers are cut into `stages` equal pipeline stages; the projection and
// softmax run on the last one. Throws snr::Error when the layers do not
// split or a per-stage vector has the wrong size.
LstmGraph build_lstm_graph(const LstmModel& model, uint32_t stages, const LstmKernelTimes& times,
                           uint32_t kernels_per_stage = 1);

// Seconds summed over every kernel of the replica (all stages). With one
// stage and k = 1 they add up to the iteration.
struct LstmKindTotals {
  double cell_gemm_s = 0;      // forward, data- and weight-gradient GEMMs of the cells, compute only
  double gates_s = 0;          // forward and backward
  double projection_s = 0;     // the three projection GEMMs, compute only
  double softmax_s = 0;        // forward and backward
  double transfer_s = 0;       // every activation/gradient hop between stages
  double kernel_collective_s = 0;  // all-gathers (RC) or all-reduces (CR) inside the GEMM kernels
  double dp_allreduce_s = 0;   // all stages
  double optimizer_s = 0;      // all stages
};

// One kind of kernel in the transformer model's row format (per instance:
// forward_s the forward kernel, backward_s its backward kernels together)
// and how many instances one iteration of a replica runs.
struct LstmKernel {
  KernelTime time;
  uint64_t count = 0;
};

struct LstmPrediction {
  double iteration_s = 0;      // the schedule's makespan
  double forward_s = 0;        // until the softmax forward finishes
  double backward_s = 0;       // from there until the last gradient kernel finishes
  double dp_allreduce_s = 0;   // one stage's all-reduce (the largest)
  double dp_allreduce_bytes = 0;  // that stage's gradients on one device
  double optimizer_s = 0;      // one stage's step (the largest)
  uint64_t replica_batch = 0;  // batch / dp
  uint64_t rows_per_device = 0;  // batch rows one device holds after its collective (RC: / kp1)
  uint32_t stages = 1;
  size_t kernel_count = 0;
  LstmKindTotals totals;
  // "cell gemm", "gates", "projection", "softmax", then the kernel-parallel
  // collectives of the cell and projection GEMMs when there are any; the
  // hops, DP all-reduce and optimizer are the fields above.
  std::vector<LstmKernel> kernels;
  LstmKernelTimes times;
  LstmGraph graph;
  Schedule schedule;
  MemoryFootprint memory;      // the device of the fullest stage
};

// `kernel_tier` carries the GEMM collectives (the KP2 ring for RC, the KP1
// ring for CR), `pipeline_tier` the stage-to-stage activations and
// `data_tier` the gradient all-reduce. Throws snr::Error naming the field for
// layers that do not split into lp stages, a batch that does not split into
// dp replicas, a tier without bandwidth or smaller than its ring.
LstmPrediction predict_lstm_training(const DeviceSpec& device, const LstmModel& model,
                                     const ParallelismNotation& notation, DType dtype, const NetworkTier& kernel_tier,
                                     const NetworkTier& pipeline_tier, const NetworkTier& data_tier,
                                     const LstmOptions& options = {});

}  // namespace snr::pathfind
