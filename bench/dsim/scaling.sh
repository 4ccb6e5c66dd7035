#!/usr/bin/env bash
# Scaling benchmark of `snr sim`'s engine: ring all-reduce of 1 MiB and 1 GiB
# on Ring / Switch / FullyConnected with 8..4096 NPUs, both analytical
# backends. One line per run: simulated finish, wall time, peak RSS, events,
# messages. With SNR_BENCH_CALLGRIND=1, runs of at most 256 NPUs are also
# run under valgrind's callgrind and their instruction count is printed
# (`perf stat` cannot count instructions on the reference machine; callgrind
# is ~50x slower, so larger runs are not counted).
# Usage: bench/dsim/scaling.sh BUILD_DIR [NPU counts...]
set -euo pipefail
BIN="${1:?build dir}/bench/dsim/dsim_scaling"
shift
COUNTS=("${@:-8 64 256 1024 4096}")
read -r -a COUNTS <<< "${COUNTS[*]}"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
for topo in Ring Switch FullyConnected; do
  for npus in "${COUNTS[@]}"; do
    for bytes in 1048576 1073741824; do
      for backend in unaware aware; do
        line=$("$BIN" "$topo" "$npus" "$bytes" "$backend")
        if [[ "${SNR_BENCH_CALLGRIND:-0}" == 1 && "$npus" -le 256 ]]; then
          valgrind --tool=callgrind --callgrind-out-file="$SCRATCH/cg.out" \
            "$BIN" "$topo" "$npus" "$bytes" "$backend" > /dev/null 2> "$SCRATCH/cg.err"
          instr=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$SCRATCH/cg.err")
          line="$line instructions=$instr"
        fi
        echo "$line"
      done
    done
  done
done
