// The `load-store` collective algorithm: a COMM_COLL phase runs as a
// load-store plan (a generated one, or an MSCCL++ / MSCCLang file) on the
// run's GPU domain (gpu_domain.h) instead of the coarse ASTRA-sim model.
//
// Mapping: the phase's ring position i is plan GPU i, and plan GPU i runs
// on the model's GPU of NPU ring.member(i). The members of one phase start
// it on their own (each NPU's stream reaches it when its queue lets it);
// the n-th phase an NPU starts for a (collective, bytes, members) is the
// n-th instance of that collective, as the system layer's tags match
// messages. The first member to start adds the plan's program to the
// model; each member launches its own GPU's kernels when it starts; the
// phase finishes on every member when the last kernel of the instance
// completes (the collective is one result), at that instant rounded up to
// the next ns (gpu_domain.h).
#pragma once

#include "dsim/system/algorithm_registry.h"

namespace snr::dsim::load_store {

// Its names, collectives, config keys (load_store_config.h), run state and
// phases. Not a built-in (it needs the GPU model and the NoC): the CLI
// registers it (register_load_store_algorithm).
CollectiveAlgorithmSpec load_store_algorithm_spec();

// Registers the spec once; later calls do nothing.
void register_load_store_algorithm();

}  // namespace snr::dsim::load_store
