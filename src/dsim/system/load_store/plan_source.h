// The load-store plan of one collective phase: an MSCCL++ / MSCCLang file
// when the configuration names one for the collective, else a generated
// plan chosen as `snr collective <collective> --system S` chooses it (NCCL's
// tuning on dgx-a100 / dgx-h100, otherwise the generic rules), so a phase
// alone takes the time that command reports. Plans are cached per
// (collective, GPUs, bytes): a training step repeats the same few.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "dsim/gpu/gpu_config.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/loadstore/collective_plan.h"
#include "dsim/loadstore/program.h"
#include "dsim/noc/noc_config.h"
#include "dsim/system/collective.h"
#include "dsim/system/load_store/load_store_config.h"

namespace snr::dsim::load_store {

struct PhasePlanProgram {
  loadstore::Program program;
  gpu::GpuModel::KernelTuning tuning;
  std::string description;  // "nccl-ring allreduce (put, LL), 8 GPUs, 1048576 B" for errors
  // What each GPU sends off itself in one run: its stores to other GPUs
  // (direct, multicast or by a port channel's DMA) and what other GPUs'
  // loads read from it (a get); the run's bytes_sent.
  std::vector<uint64_t> bytes_sent_per_gpu;
};

class PlanSource {
 public:
  PlanSource(Settings settings, const gpu::GpuConfig& gpu, const noc::NocConfig& network);

  // Throws snr::Error naming the collective, the GPU count, the bytes and
  // why (a collective no plan implements, sizes that do not split, a plan
  // file for another GPU count).
  const PhasePlanProgram& plan(CollectiveKind kind, uint32_t gpus, uint64_t input_bytes);

 private:
  PhasePlanProgram from_file(const std::string& path, CollectiveKind kind, uint32_t gpus, uint64_t input_bytes);
  PhasePlanProgram generated(CollectiveKind kind, uint32_t gpus, uint64_t input_bytes);

  Settings settings_;
  gpu::GpuConfig gpu_;
  noc::NocConfig network_;
  std::map<std::tuple<CollectiveKind, uint32_t, uint64_t>, PhasePlanProgram> cache_;
  std::map<std::string, std::unique_ptr<loadstore::CollectivePlan>> files_;
};

// The plan formats' name of a collective ("allreduce"); throws snr::Error
// for the rooted ones, which have no load-store plan.
std::string plan_collective_name(CollectiveKind kind);

}  // namespace snr::dsim::load_store
