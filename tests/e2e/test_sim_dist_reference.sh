#!/usr/bin/env bash
# snr sim reproduces ASTRA-sim's published microbenchmark results through the
# CLI, prints ASTRA-sim's per-NPU lines, writes machine-readable results and a
# timeline, and rejects bad configs with a non-zero exit.
source "$(dirname "$0")/lib.sh"
A="$DATA/astra-sim"
if [[ ! -d "$A" ]]; then echo "SKIP: $A not present"; exit 0; fi

run_sim() {  # collective npus backend
  "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/$1/${2}npus_1MB/$1" \
    --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
    --network-configuration="$A/network/analytical/Ring_${2}npus.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" \
    --network-backend="$3" "${@:4}"
}

run_sim all_reduce 8 analytical-congestion-unaware > "$WORK/ar8.txt"
expect_contains "$WORK/ar8.txt" "sys[0] finished, 64440 cycles, exposed communication 64440 cycles."
expect_contains "$WORK/ar8.txt" "sys[7] finished, 64440 cycles, exposed communication 64440 cycles."

run_sim all_to_all 16 analytical-congestion-aware -o "$WORK/out" > "$WORK/a2a16.txt"
expect_contains "$WORK/a2a16.txt" "sys[15] finished, 391240 cycles"
for f in npus.json npus.csv links.csv summary.json timeline.json; do
  [[ -s "$WORK/out/$f" ]] || fail "missing $f"
done
expect_contains "$WORK/out/summary.json" '"finish_ns": 391240'
expect_contains "$WORK/out/npus.csv" "15,391240,0,391240,"

# Deterministic: a second run gives the same bytes.
run_sim all_to_all 16 analytical-congestion-aware -o "$WORK/out2" > /dev/null
cmp "$WORK/out/timeline.json" "$WORK/out2/timeline.json" || fail "timeline differs between runs"
cmp "$WORK/out/links.csv" "$WORK/out2/links.csv" || fail "links.csv differs between runs"

# HGX-H100-validated (Switch, 2 active chunks), congestion-aware.
"$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/HGX-H100-validated.json" \
  --network-configuration="$A/network/analytical/HGX-H100-validated.yml" \
  --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" > "$WORK/hgx.txt"
expect_contains "$WORK/hgx.txt" "sys[0] finished, 57426 cycles"

# snr et timeline shares the simulation.
"$SNR" et timeline "$A/workload/microbenchmarks/all_gather/4npus_1MB/all_gather" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --network-configuration="$A/network/analytical/Ring_4npus.yml" \
  --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" \
  -o "$WORK/tl.json" > "$WORK/tl.txt"
expect_contains "$WORK/tl.txt" "finish 64744 ns"
expect_contains "$WORK/tl.json" '"traceEvents"'

# A typo in the system config is an error naming the key; nothing is written.
sed 's/endpoint-delay/endpoint-dealy/' "$A/system/native_collectives/Ring_4chunks.json" > "$WORK/typo.json"
expect_fail "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce" \
  --system-configuration="$WORK/typo.json" --network-configuration="$A/network/analytical/Ring_4npus.yml" \
  --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" -o "$WORK/bad"
expect_contains "$WORK/expect_fail.out" "endpoint-dealy"
[[ ! -e "$WORK/bad" ]] || fail "output written despite error"
# Rank count must match the network.
expect_fail "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" --network-configuration="$A/network/analytical/Ring_8npus.yml" \
  --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json"
# Backends and algorithms are chosen by name; unknown names list the registered ones.
expect_fail run_sim all_reduce 4 garnet
expect_contains "$WORK/expect_fail.out" "unknown network backend 'garnet' (registered: analytical-congestion-aware, analytical-congestion-unaware, ns3, noc)"
sed 's/"ring"/"rnig"/' "$A/system/native_collectives/Ring_4chunks.json" > "$WORK/rnig.json"
expect_fail "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce" \
  --system-configuration="$WORK/rnig.json" --network-configuration="$A/network/analytical/Ring_4npus.yml" \
  --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json"
expect_contains "$WORK/expect_fail.out" "unknown collective implementation 'rnig' (registered: ring, direct[N], halvingDoubling, doubleBinaryTree"
# A key the chosen backend does not read names the backend and its keys.
{ cat "$A/network/analytical/Ring_4npus.yml"; echo "routing: xy"; } > "$WORK/extra_key.yml"
expect_fail "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" --network-configuration="$WORK/extra_key.yml" \
  --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" --network-backend=analytical-congestion-unaware
expect_contains "$WORK/expect_fail.out" "unknown key 'routing'"
expect_contains "$WORK/expect_fail.out" "for network backend 'analytical-congestion-unaware' (its keys: topology, npus_count, bandwidth, latency, multi-dim-delay)"
echo PASS
