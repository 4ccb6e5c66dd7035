#include "dsim/loadstore/generated/builtin_plan_choice.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "common/error.h"

namespace snr::dsim::loadstore {

BuiltinPlanChoice choose_builtin_plan(const BuiltinPlanRequest& request) {
  BuiltinPlanChoice choice;
  std::optional<Protocol> protocol;
  if (request.protocol != "auto") protocol = parse_protocol(request.protocol);
  const NcclSystem* nccl = find_nccl_system(request.system);
  const bool tuned = nccl != nullptr && request.collective != kAllToAll;
  std::string name = request.algorithm;
  if (tuned && (name == "ring" || name == "tree" || name == "nvls")) name = "nccl-" + name;
  if (tuned && (name == "auto" || name == "nccl-ring" || name == "nccl-tree" || name == "nccl-nvls")) {
    choice.nccl = nccl_choose(*nccl, request.collective, request.gpus, request.buffer_bytes, name, protocol);
    choice.algorithm = &find_plan_algorithm(choice.nccl->estimate.algorithm);
    protocol = choice.nccl->estimate.protocol;
  } else {
    choice.algorithm = name == "auto" ? &default_plan_algorithm(request.collective) : &find_plan_algorithm(name);
  }
  choice.nccl_plan = choice.algorithm->name().starts_with("nccl-");

  GeneratedPlanOptions& o = choice.options;
  o.collective = request.collective;
  o.gpus = request.gpus;
  o.buffer_bytes = request.buffer_bytes;
  o.workgroups = request.workgroups != 0 ? request.workgroups : choice.nccl ? choice.nccl->channels : 32;
  o.threads_per_workgroup = request.threads_per_workgroup != 0 ? request.threads_per_workgroup
                            : choice.nccl                      ? choice.nccl->threads
                                                               : 1024;
  o.wavefront_threads = request.wavefront_threads;
  o.transfer = parse_transfer(request.transfer);
  if (std::isnan(request.kernel_start_ns)) throw Error("--kernel-start-ns nan: not a number");
  if (request.kernel_start_ns > 0 && !choice.nccl_plan) {
    throw Error(fmt::format("--kernel-start-ns: only the NCCL plans (nccl-ring, nccl-tree, nccl-nvls) model a kernel's "
                            "start; {} starts transferring at once",
                            choice.algorithm->name()));
  }
  choice.kernel_start_ns = request.kernel_start_ns >= 0 ? request.kernel_start_ns
                           : choice.nccl_plan            ? kNcclKernelStartNs
                                                         : 0.0;
  // The prologue is a count of SM cycles (32 bits in the program).
  const double prologue_cycles = std::round(choice.kernel_start_ns * request.clock_ghz);
  if (prologue_cycles > static_cast<double>(UINT32_MAX)) {
    throw Error(fmt::format("--kernel-start-ns {} at {} GHz is {} SM cycles, more than the {} a kernel start can hold",
                            choice.kernel_start_ns, request.clock_ghz, prologue_cycles, UINT32_MAX));
  }
  o.prologue_cycles = static_cast<uint32_t>(prologue_cycles);
  o.protocol = protocol ? *protocol : choose_protocol(*choice.algorithm, o, request.scale_up);
  return choice;
}

}  // namespace snr::dsim::loadstore
