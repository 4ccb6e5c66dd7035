#!/usr/bin/env bash
# snr sim runs COMM_COLL nodes as load-store plans on the GPU model when
# the system configuration names `load-store` (docs/simulator-distributed.md),
# and keeps the coarse model otherwise. One all-reduce alone takes the time
# `snr collective allreduce` reports for the same system and size, rounded
# up to the next ns (the ns / ps bridge, src/dsim/system/load_store).
source "$(dirname "$0")/lib.sh"
require_data astra-sim/network/analytical/Ring_8npus.yml astra-sim/remote_memory/analytical/no_memory_expansion.json
A="$DATA/astra-sim"
S=1048576

"$SNR" et generate --pattern allreduce --npus 8 --layers 1 --size "$S" -o "$WORK/ar" > /dev/null
"$SNR" et generate --pattern allreduce --npus 8 --layers 3 --size "$S" -o "$WORK/ar3" > /dev/null
common='"scheduling-policy": "FIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
 "preferred-dataset-splits": 1, "local-mem-bw": 1600'
printf '{%s, "all-reduce-implementation": ["ring"]}\n' "$common" > "$WORK/ring.json"
printf '{%s, "all-reduce-implementation": ["load-store"], "load-store-system": "dgx-a100"}\n' "$common" \
  > "$WORK/ls.json"
run() {  # workload system-json out-dir
  "$SNR" sim --workload-configuration="$1" --system-configuration="$2" \
    --network-configuration="$A/network/analytical/Ring_8npus.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" -o "$3"
}
cycles() {  # text output -> NPU 0's cycles
  sed -n 's/^sys\[0\] finished, \([0-9]*\) cycles.*/\1/p' "$1"
}

# The coarse model (default): unchanged.
run "$WORK/ar" "$WORK/ring.json" "$WORK/ring" > "$WORK/ring.txt"
[[ $(grep -c "finished, " "$WORK/ring.txt") == 8 ]] || fail "ring: not all 8 NPUs finished"
expect_contains "$WORK/ring.txt" "sys[0] finished, 43025 cycles"

# The load-store model: every NPU finishes when the plan does.
run "$WORK/ar" "$WORK/ls.json" "$WORK/ls" > "$WORK/ls.txt"
[[ $(grep -c "finished, " "$WORK/ls.txt") == 8 ]] || fail "load-store: not all 8 NPUs finished"
got=$(cycles "$WORK/ls.txt")
"$SNR" collective allreduce --gpus 8 --system dgx-a100 --size "$S" --json > "$WORK/collective.json"
want=$(python3 -c 'import json, math, sys; print(math.ceil(json.load(open(sys.argv[1]))["time_ns"]))' \
  "$WORK/collective.json")
[[ "$got" == "$want" ]] || fail "load-store all-reduce took $got ns in snr sim, snr collective says $want (rounded up)"
for npu in 1 2 3 4 5 6 7; do
  expect_contains "$WORK/ls.txt" "sys[$npu] finished, $got cycles"
done
# Bytes sent per NPU are the plan's (a ring all-reduce sends 2(n-1)/n of the
# buffer), as the coarse model's messages are.
python3 - "$WORK/ls/npus.json" "$WORK/ring/npus.json" <<'PY' || fail "load-store bytes_sent"
import json, sys
def sent(path):
    d = json.load(open(path))
    return [n["bytes_sent"] for n in (d["npus"] if isinstance(d, dict) else d)]
ls, ring = sent(sys.argv[1]), sent(sys.argv[2])
assert ls == [2 * 7 * 1048576 // 8] * 8, ls
assert ls == ring, (ls, ring)
PY

# Three all-reduces in a row: three plans one after another on the same
# GPUs, deterministic. The later ones start off the GPU clock's cycle grid
# and on a network with history, so they differ from the first by tens of
# ns (45,728 / 45,664 / 45,850 ns on dgx-a100), not by a bridge's error.
run "$WORK/ar3" "$WORK/ls.json" "$WORK/ls3" > "$WORK/ls3.txt"
run "$WORK/ar3" "$WORK/ls.json" "$WORK/ls3.again" > /dev/null
cmp "$WORK/ls3/npus.csv" "$WORK/ls3.again/npus.csv" || fail "load-store results differ between runs"
got3=$(cycles "$WORK/ls3.txt")
((got3 * 100 >= 3 * got * 99 && got3 * 100 <= 3 * got * 101)) || fail "three all-reduces took $got3 ns, one took $got"

# Errors name the key, the collective and why.
printf '{%s, "all-reduce-implementation": ["load-store"], "load-store-system": "dgx-b900"}\n' "$common" \
  > "$WORK/bad_system.json"
expect_fail run "$WORK/ar" "$WORK/bad_system.json" "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "load-store-system"
expect_contains "$WORK/expect_fail.out" "unknown system 'dgx-b900'"
"$SNR" et generate --pattern allgather --npus 8 --layers 1 --size "$S" -o "$WORK/ag" > /dev/null
printf '{%s, "all-gather-implementation": ["load-store"], "load-store-algorithm": "nccl-tree"}\n' "$common" \
  > "$WORK/tree_ag.json"
expect_fail run "$WORK/ag" "$WORK/tree_ag.json" "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "node"
expect_contains "$WORK/expect_fail.out" "all_gather"
# Compute nodes on the GPU model ("load-store-compute": "gpu", seed 003
# §4.3). A data-parallel step: each layer's gradient all-reduce overlaps
# the next layer's backward compute. Alone, a compute kernel takes its
# duration (plus under one GPU cycle, reported at the next ns), so the
# forward pass ends as with durations; where the all-reduces overlap the
# backward kernels, both share CU slots and ALUs and the step ends later.
"$SNR" et generate --pattern dp --npus 8 --layers 4 --size "$S" --compute-us 40 -o "$WORK/dp" > /dev/null
printf '{%s, "all-reduce-implementation": ["load-store"], "load-store-system": "dgx-a100",
  "load-store-compute": "gpu"}\n' "$common" > "$WORK/ls_compute.json"
run "$WORK/dp" "$WORK/ls.json" "$WORK/dp_duration" > "$WORK/dp_duration.txt"
run "$WORK/dp" "$WORK/ls_compute.json" "$WORK/dp_gpu" > "$WORK/dp_gpu.txt"
run "$WORK/dp" "$WORK/ls_compute.json" "$WORK/dp_gpu.again" > /dev/null
cmp "$WORK/dp_gpu/npus.csv" "$WORK/dp_gpu.again/npus.csv" || fail "compute on the GPU model differs between runs"
t_duration=$(cycles "$WORK/dp_duration.txt")
t_gpu=$(cycles "$WORK/dp_gpu.txt")
[[ $(grep -c "finished, " "$WORK/dp_gpu.txt") == 8 ]] || fail "compute on the GPU: not all 8 NPUs finished"
echo "dp step: $t_duration ns with durations, $t_gpu ns with compute on the GPU model"
((t_gpu > t_duration)) || fail "overlapping compute and all-reduces took $t_gpu ns on the GPU model, $t_duration ns with durations"
# No more than running every all-reduce after the compute it overlaps.
((t_gpu < t_duration * 2)) || fail "compute on the GPU model: $t_gpu ns against $t_duration ns with durations"
# Compute without collectives (pipeline stages exchange point-to-point
# messages, which do not use the GPU model): the same end time on either
# model, up to 1 ns per compute node on the critical path (8 forward, 8
# backward), each rounded up to GPU cycles, then to the ns.
"$SNR" et generate --pattern pp --npus 8 --layers 1 --microbatches 1 --compute-us 40 -o "$WORK/pp" > /dev/null
run "$WORK/pp" "$WORK/ls.json" "$WORK/pp_duration" > "$WORK/pp_duration.txt"
run "$WORK/pp" "$WORK/ls_compute.json" "$WORK/pp_gpu" > "$WORK/pp_gpu.txt"
p_duration=$(cycles "$WORK/pp_duration.txt")
p_gpu=$(cycles "$WORK/pp_gpu.txt")
echo "pp: $p_duration ns with durations, $p_gpu ns on the GPU model"
((p_gpu >= p_duration && p_gpu <= p_duration + 16)) ||
  fail "compute alone: $p_gpu ns on the GPU model, $p_duration ns with durations (16 nodes, 1 ns each at most)"
# Compute on a GPU model the run does not have is refused, naming why.
printf '{%s, "all-reduce-implementation": ["ring"], "load-store-compute": "gpu"}\n' "$common" > "$WORK/bad_compute.json"
expect_fail run "$WORK/dp" "$WORK/bad_compute.json" "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "load-store-compute"

# A plan that deadlocks (GPU 1 never signals) stops the run with what the
# GPU model's workgroups wait for, not only the workload's unfinished nodes.
if [[ -f "$DATA/mscclpp/allreduce.json" ]]; then
  python3 - "$DATA/mscclpp/allreduce.json" "$WORK/no_signal.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
for tb in plan["gpus"][1]["threadblocks"]:
    tb["ops"] = [op for op in tb["ops"] if op["name"] not in ("signal", "rlxsignal")]
json.dump(plan, open(sys.argv[2], "w"))
PY
  printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' > "$WORK/ring2.yml"
  printf '{%s, "all-reduce-implementation": ["load-store"], "load-store-plan-all-reduce": "%s"}\n' "$common" \
    "$WORK/no_signal.json" > "$WORK/deadlock.json"
  "$SNR" et generate --pattern allreduce --npus 2 --layers 1 --size 65536 -o "$WORK/ar2" > /dev/null
  expect_fail "$SNR" sim --workload-configuration="$WORK/ar2" --system-configuration="$WORK/deadlock.json" \
    --network-configuration="$WORK/ring2.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" -o "$WORK/deadlock"
  expect_contains "$WORK/expect_fail.out" "load-store GPU model: deadlock"
  expect_contains "$WORK/expect_fail.out" "waits"
fi
echo PASS
