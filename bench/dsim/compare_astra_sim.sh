#!/usr/bin/env bash
# snr sim against an ASTRA-sim build on ASTRA-sim's own microbenchmarks:
# every native algorithm (ring, direct, direct2, halvingDoubling,
# doubleBinaryTree, the one* variants) x all-reduce, all-gather,
# reduce-scatter, all-to-all x LIFO/FIFO x baseline/localBWAware (all-reduce)
# x 1 or 2 active chunks x nine networks (Ring, FullyConnected and Switch of
# 8; Ring and FullyConnected of 16; four multi-dimensional ones, lists of
# one algorithm per dimension), on both analytical backends (the
# congestion-aware one on one-dimensional networks only: ASTRA-sim's
# supports no other). Compares every NPU's `finished` line.
#
# Usage: bench/dsim/compare_astra_sim.sh ASTRA_SIM_BIN_DIR SNR [SCRATCH_DIR]
# ASTRA_SIM_BIN_DIR holds AstraSim_Analytical_Congestion_{Aware,Unaware}.
# Prints one line per case that differs and a summary line.
set -uo pipefail
BIN="$(realpath "${1:?ASTRA-sim bin directory}")"
SNR="$(realpath "${2:?snr binary}")"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
D="${SNR_SHARED_DATA:-$ROOT/../shared/data}/astra-sim"
MEM="$D/remote_memory/analytical/no_memory_expansion.json"
SCRATCH="${3:-$(mktemp -d)}"
mkdir -p "$SCRATCH"
cd "$SCRATCH" || exit 2

network() {  # name topologies npus bandwidths latencies
  printf 'topology: [ %s ]\nnpus_count: [ %s ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n' "$2" "$3" "$4" "$5" >"net_$1.yml"
}
network ring8 Ring 8 50 500
network fc8 FullyConnected 8 50 500
network sw8 Switch 8 50 500
network ring16 Ring 16 50 500
network fc16 FullyConnected 16 100 300
network r2s4 "Ring, Switch" "2, 4" "200, 50" "50, 500"
network f4r2 "FullyConnected, Ring" "4, 2" "100, 25" "20, 1000"
network s4s4 "Switch, Switch" "4, 4" "400, 50" "100, 2000"
network r2r2r4 "Ring, Ring, Ring" "2, 2, 4" "300, 100, 25" "10, 100, 1000"

finished_lines() { grep -o "sys\[[0-9]*\] finished, [0-9]*\|error.*" | sort -V | tr '\n' ' '; }

total=0
same=0
for coll in all_reduce all_gather reduce_scatter all_to_all; do
  for alg in ring direct direct2 halvingDoubling doubleBinaryTree oneRing oneDirect oneHalvingDoubling; do
    [[ $alg == doubleBinaryTree && $coll != all_reduce ]] && continue
    for policy in LIFO FIFO; do
      for optimization in baseline localBWAware; do
        [[ $optimization == localBWAware && $coll != all_reduce ]] && continue
        for active in 1 2; do
          for net in ring8 fc8 sw8 ring16 fc16 r2s4 f4r2 s4s4 r2r2r4; do
            npus=$(sed -n 's/^npus_count: \[ \(.*\) \]/\1/p' "net_$net.yml" | tr -d ' ' | tr ',' '*' | bc)
            dims=$(sed -n 's/^npus_count: \[ \(.*\) \]/\1/p' "net_$net.yml" | tr ',' '\n' | wc -l)
            workload="$D/workload/microbenchmarks/$coll/${npus}npus_1MB/$coll"
            [[ -e "$workload.0.et" ]] || continue
            list="\"$alg\""
            if [[ $alg != one* ]]; then
              for ((d = 1; d < dims; d++)); do list+=", \"$alg\""; done
            fi
            printf '{"scheduling-policy": "%s", "endpoint-delay": 10, "active-chunks-per-dimension": %s,
 "preferred-dataset-splits": 4, "all-reduce-implementation": [%s], "all-gather-implementation": [%s],
 "reduce-scatter-implementation": [%s], "all-to-all-implementation": [%s],
 "collective-optimization": "%s", "local-mem-bw": 1600}\n' \
              "$policy" "$active" "$list" "$list" "$list" "$list" "$optimization" >system.json
            for backend in unaware aware; do
              [[ $backend == aware && $dims -gt 1 ]] && continue
              astra_bin="$BIN/AstraSim_Analytical_Congestion_Unaware"
              [[ $backend == aware ]] && astra_bin="$BIN/AstraSim_Analytical_Congestion_Aware"
              astra=$(timeout 120 "$astra_bin" --workload-configuration="$workload" --system-configuration=system.json \
                --network-configuration="net_$net.yml" --remote-memory-configuration="$MEM" \
                --comm-group-configuration=empty 2>&1 | finished_lines)
              ours=$(timeout 120 "$SNR" sim --network-backend="analytical-congestion-$backend" \
                --workload-configuration="$workload" --system-configuration=system.json \
                --network-configuration="net_$net.yml" --remote-memory-configuration="$MEM" 2>&1 | finished_lines)
              total=$((total + 1))
              if [[ "$astra" == "$ours" ]]; then
                same=$((same + 1))
              else
                echo "DIFF $coll $alg $policy $optimization active$active $net $backend | ASTRA-sim: ${astra:0:100} | snr: ${ours:0:140}"
              fi
            done
          done
        done
      done
    done
  done
done
echo "compared $total cases: $same identical"
