#!/usr/bin/env bash
# snr sim runs ASTRA-sim's custom-collective input (an MSCCL ring all-reduce
# given as per-rank Chakra programs) and reproduces its published result;
# a broken program is a clear error.
source "$(dirname "$0")/lib.sh"
A="$DATA/astra-sim"
if [[ ! -d "$A" ]]; then echo "SKIP: $A not present"; exit 0; fi
C="$A/system/custom_collectives"

run_custom() {  # system-json backend [extra...]
  "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
    --system-configuration="$1" --network-configuration="$A/network/analytical/Ring_8npus.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" \
    --network-backend="$2" "${@:3}"
}

run_custom "$C/custom_collective.json" analytical-congestion-aware -o "$WORK/out" > "$WORK/aware.txt"
expect_contains "$WORK/aware.txt" "sys[0] finished, 90174 cycles, exposed communication 90174 cycles."
expect_contains "$WORK/aware.txt" "sys[7] finished, 90174 cycles"
expect_contains "$WORK/out/summary.json" '"finish_ns": 90174'
# 14 messages of 131,072 B per NPU, 8 NPUs.
expect_contains "$WORK/out/summary.json" '"messages": 112'
run_custom "$C/custom_collective.json" analytical-congestion-unaware > "$WORK/unaware.txt"
expect_contains "$WORK/unaware.txt" "sys[3] finished, 90174 cycles"

# ASTRA-sim's own native system file with the custom key added (its
# priority: per-node programs, the collective's custom key, the native
# list): the program runs once as one stream although the file splits
# collectives into 4 chunks, and the native list is named as not used.
PREFIX="$C/custom_ring_allreduce_8npus_1MB/custom_allreduce"
python3 - "$A/system/native_collectives/Ring_4chunks.json" "$PREFIX" "$WORK/both.json" <<'PY'
import json, sys
system = json.load(open(sys.argv[1]))
assert system["preferred-dataset-splits"] == 4 and system["all-reduce-implementation"] == ["ring"]
system["all-reduce-implementation-custom"] = [sys.argv[2]]
json.dump(system, open(sys.argv[3], "w"))
PY
run_custom "$WORK/both.json" analytical-congestion-aware > "$WORK/both.txt" 2>&1
expect_contains "$WORK/both.txt" "sys[7] finished, 90174 cycles"
expect_contains "$WORK/both.txt" "all-reduce-implementation is not used: all-reduce-implementation-custom runs every all-reduce"

# The other collectives' custom keys: the same program as a custom
# all-gather of the all-gather microbenchmark (its sizes are the program's).
run_ag() {  # system-json
  "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_gather/8npus_1MB/all_gather" \
    --system-configuration="$1" --network-configuration="$A/network/analytical/Ring_8npus.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json"
}
sed 's/all-reduce-implementation-custom/all-gather-implementation-custom/' "$WORK/both.json" > "$WORK/ag.json"
run_ag "$WORK/ag.json" > "$WORK/ag.txt"
expect_contains "$WORK/ag.txt" "sys[0] finished, 90174 cycles"
run_ag "$A/system/native_collectives/Ring_4chunks.json" > "$WORK/ag_native.txt"
expect_contains "$WORK/ag_native.txt" "sys[0] finished, 151016 cycles"

# per-node-custom-implementation: a YAML file of workload node ids to
# prefixes (relative ones beside the file). Ids are each rank's own: the
# microbenchmark's collective is node r on rank r, so all eight are listed.
mkdir -p "$WORK/pernode"
for r in 0 1 2 3 4 5 6 7; do printf '%s: %s\n' "$r" "$PREFIX"; done > "$WORK/pernode/nodes.yaml"
python3 - "$A/system/native_collectives/Ring_4chunks.json" "$WORK/pernode/system.json" <<'PY'
import json, sys
system = json.load(open(sys.argv[1]))
system["per-node-custom-implementation"] = "nodes.yaml"
json.dump(system, open(sys.argv[2], "w"))
PY
run_custom "$WORK/pernode/system.json" analytical-congestion-aware > "$WORK/pernode.txt"
expect_contains "$WORK/pernode.txt" "sys[0] finished, 90174 cycles"
# A node id no rank has: the native ring runs, and the note says so.
printf '9: %s\n' "$PREFIX" > "$WORK/pernode/nodes.yaml"
run_custom "$WORK/pernode/system.json" analytical-congestion-aware > "$WORK/pernode9.txt" 2>&1
expect_contains "$WORK/pernode9.txt" "sys[0] finished, 64440 cycles"
expect_contains "$WORK/pernode9.txt" "names 1 node id(s) no collective of the workload has, so their programs never ran: 9"
# Only rank 0's node listed: it runs the program, the others the ring; the
# stall says why.
printf '0: %s\n' "$PREFIX" > "$WORK/pernode/nodes.yaml"
expect_fail run_custom "$WORK/pernode/system.json" analytical-congestion-aware
expect_contains "$WORK/expect_fail.out" "every member's node of a custom collective must be listed"
printf 'first: %s\n' "$PREFIX" > "$WORK/pernode/nodes.yaml"
expect_fail run_custom "$WORK/pernode/system.json" analytical-congestion-aware
expect_contains "$WORK/expect_fail.out" "nodes.yaml:1: 'first' is not a workload node id"
printf '0: %s\n3: nowhere/custom\n' "$PREFIX" > "$WORK/pernode/nodes.yaml"
expect_fail run_custom "$WORK/pernode/system.json" analytical-congestion-aware
expect_contains "$WORK/expect_fail.out" "nodes.yaml:2: node 3"
expect_contains "$WORK/expect_fail.out" "nowhere/custom"

# A prefix that names no trace is an error naming the prefix.
sed 's#custom_ring_allreduce_8npus_1MB/custom_allreduce#no_such_dir/custom_allreduce#' \
  "$C/custom_collective.json" > "$WORK/missing.json"
expect_fail run_custom "$WORK/missing.json" analytical-congestion-aware
expect_contains "$WORK/expect_fail.out" "no_such_dir/custom_allreduce"

# A program whose rank file is not a Chakra trace is an error naming the file.
mkdir -p "$WORK/broken"
for r in 0 1 2 3 4 5 6 7; do cp "$C/custom_ring_allreduce_8npus_1MB/custom_allreduce.$r.et" "$WORK/broken/"; done
head -c 100 "$C/custom_ring_allreduce_8npus_1MB/custom_allreduce.3.et" > "$WORK/broken/custom_allreduce.3.et"
printf '{"scheduling-policy": "FIFO", "preferred-dataset-splits": 1, "local-mem-bw": 50,\n "all-reduce-implementation-custom": ["%s"]}\n' \
  "$WORK/broken/custom_allreduce" > "$WORK/broken.json"
expect_fail run_custom "$WORK/broken.json" analytical-congestion-aware -o "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "custom_allreduce.3.et"
[[ ! -e "$WORK/bad" ]] || fail "output written despite error"
echo PASS
