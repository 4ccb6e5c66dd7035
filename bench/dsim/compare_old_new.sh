#!/usr/bin/env bash
# Old-versus-new identity check of the distributed simulator: runs two `snr`
# binaries on the same inputs and compares, byte for byte, everything a run
# produces — exit status, stdout, stderr and every file of `snr sim -o DIR`
# (npus.json/csv, links.csv, summary.json, timeline.json), plus
# `snr et timeline` on a subset.
#
# Inputs: every ASTRA-sim reference input in ../shared/data/astra-sim
# (microbenchmarks on their Ring networks and on other topologies, the
# HGX-H100 system, the custom collective), and traces made with
# `snr et generate` (all patterns) over Ring / Switch / FullyConnected and
# multi-dimensional networks, both backends, every algorithm name
# (incl. one* and directN), chunk counts, active chunks, LIFO/FIFO,
# baseline/localBWAware, communicator groups and custom collectives.
# Systems rotate over the workload grid so that every combination family
# is covered without running the full product.
#
# Usage: bench/dsim/compare_old_new.sh OLD_SNR NEW_SNR [SCRATCH_DIR]
# OLD_SNR / NEW_SNR: `snr` binaries, or `dsim_sim` (bench/dsim/sim_driver.cc:
# the same simulation and output without the rest of the CLI, quick to build
# in an old checkout). Traces are generated once with GEN_SNR (default
# OLD_SNR; must understand `et generate`) and fed to both.
# SNR_COMPARE_STRIDE=N runs every N-th case only (a quick deterministic
# sample; default 1 = all).
# Prints one line per difference and a summary; exits 1 on any difference.
set -uo pipefail
# Absolute paths: some comparisons run from inside their scratch folders.
OLD="$(realpath "${1:?old snr binary}")"
NEW="$(realpath "${2:?new snr binary}")"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DATA="${SNR_SHARED_DATA:-$ROOT/../shared/data}"
A="$DATA/astra-sim"
GEN_SNR="${GEN_SNR:-$OLD}"
SCRATCH="${3:-$(mktemp -d)}"
mkdir -p "$SCRATCH"
[[ -d "$A" ]] || { echo "missing $A"; exit 2; }
MEM="$A/remote_memory/analytical/no_memory_expansion.json"

runs=0
diffs=0
failures_both=0
cases_seen=0
STRIDE="${SNR_COMPARE_STRIDE:-1}"
# sampled: true for every STRIDE-th case.
sampled() {
  cases_seen=$((cases_seen + 1))
  (( (cases_seen - 1) % STRIDE == 0 ))
}

# compare_case NAME ARGS... : runs `snr sim ARGS -o DIR` with both binaries.
compare_case() {
  local name="$1"; shift
  sampled || return 0
  local d="$SCRATCH/run"
  rm -rf "$d"; mkdir -p "$d/old" "$d/new"
  "$OLD" "$@" -o "$d/old/out" > "$d/old/stdout" 2> "$d/old/stderr"; echo $? > "$d/old/rc"
  "$NEW" "$@" -o "$d/new/out" > "$d/new/stdout" 2> "$d/new/stderr"; echo $? > "$d/new/rc"
  runs=$((runs + 1))
  [[ "$(cat "$d/old/rc")" != 0 ]] && failures_both=$((failures_both + 1))
  if ! diff -r -q "$d/old" "$d/new" > "$d/diff" 2>&1; then
    diffs=$((diffs + 1))
    echo "DIFF $name: $(tr '\n' ' ' < "$d/diff" | cut -c1-300)"
    echo "  old rc $(cat "$d/old/rc"): $(head -c 300 "$d/old/stderr")"
    echo "  new rc $(cat "$d/new/rc"): $(head -c 300 "$d/new/stderr")"
  fi
}

# compare_timeline NAME PREFIX ARGS... : `snr et timeline` with both binaries.
compare_timeline() {
  local name="$1"; shift
  sampled || return 0
  local d="$SCRATCH/tl"
  rm -rf "$d"; mkdir -p "$d/old" "$d/new"
  (cd "$d/old" && "$OLD" et timeline "$@" -o tl.json > stdout 2> stderr; echo $? > rc)
  (cd "$d/new" && "$NEW" et timeline "$@" -o tl.json > stdout 2> stderr; echo $? > rc)
  runs=$((runs + 1))
  if ! diff -r -q "$d/old" "$d/new" > /dev/null 2>&1; then
    diffs=$((diffs + 1))
    echo "DIFF timeline $name"
  fi
}

sim_args() {  # workload system network backend [groups]
  local args=(sim --workload-configuration="$1" --system-configuration="$2" --network-configuration="$3"
              --remote-memory-configuration="$MEM" --network-backend="$4")
  [[ -n "${5:-}" ]] && args+=(--comm-group-configuration="$5")
  printf '%s\n' "${args[@]}"
}

run_sim() {  # name workload system network backend [groups]
  local name="$1"; shift
  mapfile -t args < <(sim_args "$@")
  compare_case "$name" "${args[@]}"
}

BACKENDS=(analytical-congestion-aware analytical-congestion-unaware)
CFG="$SCRATCH/configs"
mkdir -p "$CFG"

# ---- networks: NAME -> YAML ------------------------------------------------
net() {  # name topologies npus bandwidths latencies
  printf 'topology: [%s]\nnpus_count: [%s]\nbandwidth: [%s]\nlatency: [%s]\n' "$2" "$3" "$4" "$5" > "$CFG/net_$1.yml"
}
declare -A NETS_FOR  # npus -> network names
for n in 2 4 8 16; do
  net "ring$n" Ring "$n" 50 500
  net "switch$n" Switch "$n" 400 936.25
  net "fc$n" FullyConnected "$n" 150 20
  NETS_FOR[$n]="ring$n switch$n fc$n"
done
net r2r2 "Ring, Ring" "2, 2" "50, 25" "100, 700"
NETS_FOR[4]+=" r2r2"
net r2s4 "Ring, Switch" "2, 4" "200, 50" "50, 500"
net f4r2 "FullyConnected, Ring" "4, 2" "100, 25" "20, 1000.5"
net s2r2r2 "Switch, Ring, Ring" "2, 2, 2" "300, 100, 40" "10, 200, 2000"
NETS_FOR[8]+=" r2s4 f4r2 s2r2r2"
net r4s4 "Ring, Switch" "4, 4" "100, 50" "100, 700"
net s2f8 "Switch, FullyConnected" "2, 8" "400, 50" "936.25, 300"
net f2r2s4 "FullyConnected, Ring, Switch" "2, 2, 4" "500, 200, 25" "5, 50, 1500"
NETS_FOR[16]+=" r4s4 s2f8 f2r2s4"

# ---- systems: NAME -> JSON -----------------------------------------------
sys_json() {  # name policy splits active optimization ar ag rs a2a
  cat > "$CFG/sys_$1.json" <<JSON
{"scheduling-policy": "$2", "endpoint-delay": 10, "preferred-dataset-splits": $3,
 "active-chunks-per-dimension": $4, "collective-optimization": "$5", "local-mem-bw": 1600,
 "all-reduce-implementation": [$6], "all-gather-implementation": [$7],
 "reduce-scatter-implementation": [$8], "all-to-all-implementation": [$9]}
JSON
}
SYSTEMS=()
add_sys() { sys_json "$@"; SYSTEMS+=("$1"); }
add_sys ring_lifo LIFO 4 1 localBWAware '"ring"' '"ring"' '"ring"' '"ring"'
add_sys ring_fifo FIFO 4 2 baseline '"ring"' '"ring"' '"ring"' '"ring"'
add_sys ring_s1 LIFO 1 1 baseline '"Ring"' '"Ring"' '"Ring"' '"Ring"'
add_sys ring_s7 FIFO 7 3 localBWAware '"ring"' '"ring"' '"ring"' '"ring"'
add_sys direct LIFO 4 1 baseline '"direct"' '"direct"' '"direct"' '"direct"'
add_sys direct2 FIFO 2 2 localBWAware '"direct2"' '"direct2"' '"Direct2"' '"direct3"'
add_sys hd LIFO 4 1 localBWAware '"halvingDoubling"' '"halvingDoubling"' '"HalvingDoubling"' '"ring"'
add_sys hd_fifo FIFO 3 2 baseline '"halvingDoubling"' '"halvingDoubling"' '"halvingDoubling"' '"direct"'
add_sys dbt LIFO 4 1 localBWAware '"doubleBinaryTree"' '"ring"' '"ring"' '"ring"'
add_sys dbt_fifo FIFO 5 2 baseline '"doubleBinaryTree"' '"ring"' '"ring"' '"direct"'
add_sys one_ring LIFO 4 1 baseline '"oneRing"' '"oneRing"' '"oneRing"' '"oneRing"'
add_sys one_direct FIFO 4 2 localBWAware '"oneDirect"' '"oneDirect4"' '"oneDirect"' '"oneDirect"'
add_sys one_hd LIFO 2 1 baseline '"oneHalvingDoubling"' '"oneHalvingDoubling"' '"oneHalvingDoubling"' '"ring"'
add_sys mixed LIFO 4 2 localBWAware '"ring", "direct", "halvingDoubling"' '"halvingDoubling", "ring"' \
  '"direct2", "ring", "ring"' '"ring", "direct"'
add_sys mixed_tree FIFO 4 1 localBWAware '"doubleBinaryTree", "ring", "direct"' '"ring"' '"ring"' '"direct", "ring"'
# Roofline compute (the generated compute nodes carry num_ops).
cat > "$CFG/sys_roofline.json" <<JSON
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "preferred-dataset-splits": 4, "active-chunks-per-dimension": 1,
 "collective-optimization": "localBWAware", "local-mem-bw": 1600, "peak-perf": 900, "roofline-enabled": 1,
 "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
 "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"]}
JSON
SYSTEMS+=(roofline)

# ---- 1. ASTRA-sim reference inputs ----------------------------------------
for coll in all_reduce all_gather reduce_scatter all_to_all; do
  for n in 4 8 16; do
    w="$A/workload/microbenchmarks/$coll/${n}npus_1MB/$coll"
    for b in "${BACKENDS[@]}"; do
      run_sim "ref $coll $n $b" "$w" "$A/system/native_collectives/Ring_4chunks.json" \
        "$A/network/analytical/Ring_${n}npus.yml" "$b"
      compare_timeline "ref $coll $n $b" "$w" --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
        --network-configuration="$A/network/analytical/Ring_${n}npus.yml" --remote-memory-configuration="$MEM" \
        --network-backend="$b"
      for s in "${SYSTEMS[@]}"; do
        for nn in ${NETS_FOR[$n]}; do
          run_sim "ref $coll $n $b $s $nn" "$w" "$CFG/sys_$s.json" "$CFG/net_$nn.yml" "$b"
        done
      done
    done
  done
  for b in "${BACKENDS[@]}"; do
    run_sim "ref hgx $coll $b" "$A/workload/microbenchmarks/$coll/8npus_1MB/$coll" \
      "$A/system/native_collectives/HGX-H100-validated.json" "$A/network/analytical/HGX-H100-validated.yml" "$b"
  done
done

# ---- 2. custom collectives --------------------------------------------------
C="$A/system/custom_collectives"
PREFIX="$C/custom_ring_allreduce_8npus_1MB/custom_allreduce"
for policy in FIFO LIFO; do
  for splits in 1 2 4; do
    printf '{"scheduling-policy": "%s", "preferred-dataset-splits": %s, "endpoint-delay": 10, "local-mem-bw": 50, "all-reduce-implementation-custom": ["%s"]}\n' \
      "$policy" "$splits" "$PREFIX" > "$CFG/custom_${policy}_$splits.json"
  done
done
for b in "${BACKENDS[@]}"; do
  run_sim "custom reference $b" "$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
    "$C/custom_collective.json" "$A/network/analytical/Ring_8npus.yml" "$b"
  for f in "$CFG"/custom_*.json; do
    for nn in ${NETS_FOR[8]}; do
      run_sim "custom $(basename "$f") $nn $b" "$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
        "$f" "$CFG/net_$nn.yml" "$b"
    done
  done
done

# ---- 3. generated traces -----------------------------------------------------
GEN="$SCRATCH/gen"
mkdir -p "$GEN"
k=0
for pattern in allreduce allgather reducescatter alltoall dp tp pp hybrid; do
  for n in 2 4 8 16; do
    for size in 4KiB 1MiB 48MiB; do
      prefix="$GEN/${pattern}_${n}_$size/w"
      mkdir -p "$(dirname "$prefix")"
      extra=()
      [[ "$pattern" == hybrid || "$pattern" == tp ]] && extra+=(--tp-size 2)
      [[ "$pattern" == pp ]] && extra+=(--microbatches 3)
      if ! "$GEN_SNR" et generate --pattern "$pattern" --npus "$n" --layers 2 --size "$size" "${extra[@]}" \
             -o "$prefix" > /dev/null 2>&1; then
        continue
      fi
      groups=""
      [[ -f "$prefix.comm_groups.json" ]] && groups="$prefix.comm_groups.json"
      for nn in ${NETS_FOR[$n]}; do
        for b in "${BACKENDS[@]}"; do
          # Three systems per (workload, network, backend), rotating through all of them.
          for j in 0 1 2; do
            s="${SYSTEMS[$(( (k + j * 5) % ${#SYSTEMS[@]} ))]}"
            run_sim "gen $pattern $n $size $nn $b $s" "$prefix" "$CFG/sys_$s.json" "$CFG/net_$nn.yml" "$b" "$groups"
          done
          k=$((k + 1))
        done
      done
      if [[ "$pattern" == allreduce && "$n" == 8 ]]; then
        for f in "$CFG"/custom_*.json; do
          run_sim "gen custom $size $(basename "$f")" "$prefix" "$f" "$CFG/net_ring8.yml" analytical-congestion-aware
        done
      fi
      compare_timeline "gen $pattern $n $size" "$prefix" --system-configuration="$CFG/sys_ring_lifo.json" \
        --network-configuration="$CFG/net_ring$n.yml" --remote-memory-configuration="$MEM" \
        ${groups:+--comm-group-configuration="$groups"}
    done
  done
done

echo "compared $runs runs (each with both binaries): $diffs differ; $failures_both exited non-zero with the old binary"
[[ "$diffs" == 0 ]]
