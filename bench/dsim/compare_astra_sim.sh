#!/usr/bin/env bash
# snr sim against an ASTRA-sim build on ASTRA-sim's own microbenchmarks:
# every native algorithm (ring, direct, direct2, halvingDoubling,
# doubleBinaryTree, the one* variants) x all-reduce, all-gather,
# reduce-scatter, all-to-all x LIFO/FIFO x baseline/localBWAware (all-reduce)
# x 1 or 2 active chunks x nine networks (Ring, FullyConnected and Switch of
# 8; Ring and FullyConnected of 16; four multi-dimensional ones, lists of
# one algorithm per dimension), on both analytical backends (the
# congestion-aware one on one-dimensional networks only: ASTRA-sim's
# supports no other). Then traces of `snr et generate` (data-, tensor- and
# pipeline-parallel and hybrid, with their communicator groups and
# point-to-point messages; 8 and 16 NPUs, 64 KiB and 4 MiB) x ring, direct,
# halvingDoubling x LIFO/FIFO x 1-2 active chunks over the networks of
# their size. Compares every NPU's `finished` line.
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
npus_of() { sed -n 's/^npus_count: \[ \(.*\) \]/\1/p' "net_$1.yml" | tr -d ' ' | tr ',' '*' | bc; }
dims_of() { sed -n 's/^npus_count: \[ \(.*\) \]/\1/p' "net_$1.yml" | tr ',' '\n' | wc -l; }
# system.json with one list for every collective: ALGORITHM once per
# dimension (the one* variants once).
write_system() {  # policy active optimization algorithm dims
  local list="\"$4\""
  if [[ $4 != one* ]]; then
    for ((d = 1; d < $5; d++)); do list+=", \"$4\""; done
  fi
  printf '{"scheduling-policy": "%s", "endpoint-delay": 10, "active-chunks-per-dimension": %s,
 "preferred-dataset-splits": 4, "all-reduce-implementation": [%s], "all-gather-implementation": [%s],
 "reduce-scatter-implementation": [%s], "all-to-all-implementation": [%s],
 "collective-optimization": "%s", "local-mem-bw": 1600}\n' "$1" "$2" "$list" "$list" "$list" "$list" "$3" >system.json
}
total=0
same=0
compare() {  # label workload network groups
  local backend astra_bin astra ours
  for backend in unaware aware; do
    [[ $backend == aware && $(dims_of "$3") -gt 1 ]] && continue
    astra_bin="$BIN/AstraSim_Analytical_Congestion_Unaware"
    [[ $backend == aware ]] && astra_bin="$BIN/AstraSim_Analytical_Congestion_Aware"
    astra=$(timeout 120 "$astra_bin" --workload-configuration="$2" --system-configuration=system.json \
      --network-configuration="net_$3.yml" --remote-memory-configuration="$MEM" \
      --comm-group-configuration="$4" 2>&1 | finished_lines)
    ours=$(timeout 120 "$SNR" sim --network-backend="analytical-congestion-$backend" \
      --workload-configuration="$2" --system-configuration=system.json --network-configuration="net_$3.yml" \
      --remote-memory-configuration="$MEM" --comm-group-configuration="$4" 2>&1 | finished_lines)
    total=$((total + 1))
    if [[ "$astra" == "$ours" ]]; then
      same=$((same + 1))
    else
      echo "DIFF $1 $3 $backend | ASTRA-sim: ${astra:0:100} | snr: ${ours:0:140}"
    fi
  done
}

# ---- ASTRA-sim's microbenchmarks ----
for coll in all_reduce all_gather reduce_scatter all_to_all; do
  for alg in ring direct direct2 halvingDoubling doubleBinaryTree oneRing oneDirect oneHalvingDoubling; do
    [[ $alg == doubleBinaryTree && $coll != all_reduce ]] && continue
    for policy in LIFO FIFO; do
      for optimization in baseline localBWAware; do
        [[ $optimization == localBWAware && $coll != all_reduce ]] && continue
        for active in 1 2; do
          for net in ring8 fc8 sw8 ring16 fc16 r2s4 f4r2 s4s4 r2r2r4; do
            workload="$D/workload/microbenchmarks/$coll/$(npus_of "$net")npus_1MB/$coll"
            [[ -e "$workload.0.et" ]] || continue
            write_system "$policy" "$active" "$optimization" "$alg" "$(dims_of "$net")"
            compare "$coll $alg $policy $optimization active$active" "$workload" "$net" empty
          done
        done
      done
    done
  done
done

# ---- traces of snr et generate, with groups and point-to-point ----
for pattern in dp tp pp hybrid; do
  for npus in 8 16; do
    for size in 64KiB 4MiB; do
      prefix="gen_${pattern}_${npus}_$size"
      extra=()
      [[ $pattern == tp || $pattern == hybrid ]] && extra=(--tp-size 2)
      [[ $pattern == pp ]] && extra=(--microbatches 3)
      "$SNR" et generate --pattern "$pattern" --npus "$npus" --layers 2 --size "$size" "${extra[@]}" \
        -o "$prefix" >/dev/null || continue
      groups=empty
      [[ -f "$prefix.comm_groups.json" ]] && groups="$prefix.comm_groups.json"
      for alg in ring direct halvingDoubling; do
        for policy in LIFO FIFO; do
          for active in 1 2; do
            for net in ring8 fc8 sw8 r2s4 f4r2 ring16 s4s4; do
              [[ $(npus_of "$net") == "$npus" ]] || continue
              write_system "$policy" "$active" localBWAware "$alg" "$(dims_of "$net")"
              compare "$prefix $alg $policy active$active" "$prefix" "$net" "$groups"
            done
          done
        done
      done
    done
  done
done
echo "compared $total cases: $same identical"
