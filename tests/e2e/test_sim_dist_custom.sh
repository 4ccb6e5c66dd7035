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
