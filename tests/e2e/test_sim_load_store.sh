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
echo PASS
