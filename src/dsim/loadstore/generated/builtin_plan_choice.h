// The plan a built-in collective runs as, chosen once for every caller
// (`snr collective allreduce|...` and `snr sim`'s load-store collectives):
// on a system NCCL runs on, NCCL's own algorithm, protocol, channels and
// threads (nccl_tuning.h; `ring`/`tree` name NCCL's); elsewhere, and for
// all-to-all (NCCL sends point to point there, untuned), the registry's
// algorithm and §3.2's protocol rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dsim/loadstore/generated/nccl_tuning.h"
#include "dsim/loadstore/generated/plan_generator.h"
#include "dsim/loadstore/protocols.h"

namespace snr::dsim::loadstore {

struct BuiltinPlanRequest {
  std::string collective;
  uint32_t gpus = 0;
  uint64_t buffer_bytes = 0;  // the larger of input and output
  std::string system;         // a GPU + network preset name
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string transfer = "put";
  uint32_t workgroups = 0;             // 0: NCCL's channels on an NCCL system, else 32
  uint32_t threads_per_workgroup = 0;  // 0: NCCL's threads on an NCCL system, else 1024
  uint32_t wavefront_threads = 32;
  double kernel_start_ns = -1;  // < 0: the fitted NCCL constant for nccl-* plans, else 0
  double clock_ghz = 1.0;       // the GPU's, for the prologue's cycles
  AlphaBetaLink scale_up;       // one GPU's scale-up (§3.2's α and B)
};

struct BuiltinPlanChoice {
  const PlanAlgorithm* algorithm = nullptr;
  GeneratedPlanOptions options;
  std::optional<NcclChoice> nccl;  // NCCL's tuning, when it chose
  bool nccl_plan = false;          // an nccl-* plan: NCCL's per-protocol lines in flight and flag checks apply
  double kernel_start_ns = 0;      // the one the prologue's cycles stand for
};

// Throws snr::Error naming an unknown algorithm, protocol or transfer.
BuiltinPlanChoice choose_builtin_plan(const BuiltinPlanRequest& request);

}  // namespace snr::dsim::loadstore
