#!/usr/bin/env bash
# Whole-process cost of `snr sim`, counted the way ASTRA-sim's figures are:
# valgrind's callgrind total (`Collected`) for the command a user runs,
# start-up, option and config parsing, reading one .et file per NPU, the
# simulation and its output included. The workload is one ring all-reduce of
# --size bytes per NPU (ASTRA-sim's microbenchmark shape, made with
# `snr et generate --pattern allreduce --layers 1`) on a 1-D TOPOLOGY of
# NPUS at 50 GB/s and 500 ns per link, with ASTRA-sim's Ring_4chunks system
# (4 chunks, LIFO, localBWAware, endpoint 10 ns, local-mem-bw 1600 GB/s).
# One line per run: topology, backend, instructions, simulated finish.
#
# Usage: bench/dsim/callgrind_process.sh SNR_BINARY [NPUS [SIZE [TOPOLOGIES...]]]
#   defaults: 256 NPUs, 1MiB, Ring Switch FullyConnected.
# SNR_BENCH_BACKENDS overrides the backends (default: aware).
# SNR_BENCH_KEEP=DIR keeps the generated inputs and callgrind profiles there
# (then `callgrind_annotate DIR/cg.TOPOLOGY.BACKEND.out` shows where it goes).
set -euo pipefail
SNR="${1:?snr binary}"
NPUS="${2:-256}"
SIZE="${3:-1MiB}"
shift $(( $# < 3 ? $# : 3 ))
TOPOLOGIES=("${@:-Ring Switch FullyConnected}")
read -r -a TOPOLOGIES <<< "${TOPOLOGIES[*]}"
read -r -a BACKENDS <<< "${SNR_BENCH_BACKENDS:-aware}"
command -v valgrind > /dev/null || { echo "valgrind is not installed" >&2; exit 2; }

if [[ -n "${SNR_BENCH_KEEP:-}" ]]; then
  WORK="$SNR_BENCH_KEEP"
  mkdir -p "$WORK"
else
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
fi

"$SNR" et generate --pattern allreduce --npus "$NPUS" --layers 1 --size "$SIZE" -o "$WORK/et/ar" > /dev/null
cat > "$WORK/system.json" <<'JSON'
{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
 "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring"],
 "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
 "all-to-all-implementation": ["ring"], "collective-optimization": "localBWAware",
 "local-mem-bw": 1600}
JSON
echo '{"memory-type": "NO_MEMORY_EXPANSION"}' > "$WORK/memory.json"

for topo in "${TOPOLOGIES[@]}"; do
  printf 'topology: [%s]\nnpus_count: [%s]\nbandwidth: [50]\nlatency: [500]\n' "$topo" "$NPUS" > "$WORK/net_$topo.yml"
  for backend in "${BACKENDS[@]}"; do
    cg="$WORK/cg.$topo.$backend.out"
    valgrind --tool=callgrind --callgrind-out-file="$cg" \
      "$SNR" sim --workload-configuration="$WORK/et/ar" --system-configuration="$WORK/system.json" \
      --network-configuration="$WORK/net_$topo.yml" --remote-memory-configuration="$WORK/memory.json" \
      --network-backend="analytical-congestion-$backend" > "$WORK/sim.out" 2> "$WORK/cg.err"
    instr=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$WORK/cg.err")
    finish=$(sed -n 's/.*sys\[0\] finished, \([0-9]*\) cycles.*/\1/p' "$WORK/sim.out")
    echo "$topo npus=$NPUS size=$SIZE backend=$backend instructions=$instr finish_ns=$finish"
  done
done
