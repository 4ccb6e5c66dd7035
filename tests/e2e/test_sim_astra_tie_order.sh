#!/usr/bin/env bash
# snr sim orders same-time events as ASTRA-sim does where ties decide the
# result: a system's events of one tick run as one batch, and a
# congestion-aware link frees by an event that a waiting message starts at.
# The finish times are those of ASTRA-sim 518bd51's congestion-aware binary
# on the same inputs (docs/simulator-distributed.md, "Deviations and limits").
source "$(dirname "$0")/lib.sh"
MEM="$WORK/mem.json"
echo '{"memory-type": "NO_MEMORY_EXPANSION"}' > "$MEM"
system() {  # name policy active splits local_mem_bw algorithm [extra keys]
  printf '{"scheduling-policy": "%s", "endpoint-delay": 10, "active-chunks-per-dimension": %s,
 "preferred-dataset-splits": %s, "collective-optimization": "baseline", "local-mem-bw": %s,
 "all-reduce-implementation": ["%s"], "all-gather-implementation": ["%s"],
 "reduce-scatter-implementation": ["%s"], "all-to-all-implementation": ["%s"]%s}\n' \
    "$2" "$3" "$4" "$5" "$6" "$6" "$6" "$6" "${7:-}" > "$WORK/$1.json"
}
ring() {  # name npus bandwidth latency
  printf 'topology: [Ring]\nnpus_count: [%s]\nbandwidth: [%s]\nlatency: [%s]\n' "$2" "$3" "$4" > "$WORK/$1.yml"
}
finish_times() {  # trace system network
  "$SNR" sim --network-backend=analytical-congestion-aware --workload-configuration="$WORK/$1" \
    --system-configuration="$WORK/$2.json" --network-configuration="$WORK/$3.yml" \
    --remote-memory-configuration="$MEM" > "$WORK/out.txt"
  grep -o "sys\[[0-9]*\] finished, [0-9]*" "$WORK/out.txt" | sort -V | sed 's/.*, //' | tr '\n' ' '
}

# 819 bytes with direct on a Ring of 4: 0 ns serialization, latency equal to
# the endpoint delay, 0 ns reductions. Without ASTRA-sim's order: 60 ns.
"$SNR" et generate --pattern allreduce --npus 4 --layers 1 --size 819 -o "$WORK/ar819" > /dev/null
system direct FIFO 1 1 4000 direct
ring ring4 4 200 10
got=$(finish_times ar819 direct ring4)
[[ $got == "70 70 70 70 " ]] || fail "819-byte direct all-reduce: $got (ASTRA-sim: 70 on every NPU)"
ring ring4_slow 4 200 50
got=$(finish_times ar819 direct ring4_slow)
[[ $got == "230 230 230 230 " ]] || fail "819-byte direct all-reduce at 50 ns: $got (ASTRA-sim: 230)"

# Contention: a tensor-parallel job with halving-doubling on a Ring of 16,
# 3 active chunks, 16 splits, slow local memory, the roofline on. Without
# ASTRA-sim's order every NPU finished 0.20-0.68% later.
"$SNR" et generate --pattern tp --npus 16 --layers 3 --size 3MiB --compute-us 50 -o "$WORK/tp16" > /dev/null
system hd LIFO 3 16 50 halvingDoubling ', "roofline-enabled": 1, "peak-perf": 900'
ring ring16 16 50 100
expected="1868357 1867573 1867232 1867208 1872926 1870995 1871801 1868965 "
got=$(finish_times tp16 hd ring16)
[[ $got == "$expected$expected" ]] || fail "tensor-parallel job on a Ring of 16: $got (ASTRA-sim: $expected$expected)"
echo PASS
