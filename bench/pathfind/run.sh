#!/usr/bin/env bash
# Times the pathfinding model: the library calls (pathfind_bench, and the
# design-space search: pathfind_search_bench) and the
# `snr pathfind gemm` / `snr pathfind train` processes.
# Usage: bench/pathfind/run.sh [BUILD_DIR] (from the repository root).
set -euo pipefail
BUILD="${1:-build}"
C=../shared/data/pathfinder/calculon
SNR_SHARED_DATA="$(cd ../shared/data && pwd)" "$BUILD/bench/pathfind/pathfind_bench" --benchmark_min_time=0.5
"$BUILD/bench/pathfind/pathfind_search_bench"
echo "== snr pathfind gemm 8192 12288 12288 --hw a100-80gb --json (process)"
/usr/bin/time -f "%e s wall, %U s user, max RSS %M KiB" "$BUILD/snr" pathfind gemm 8192 12288 12288 --hw a100-80gb --json >/dev/null
echo "== snr pathfind train gpt3-175B seqsel (process)"
/usr/bin/time -f "%e s wall, %U s user, max RSS %M KiB" "$BUILD/snr" pathfind train --vocab 51200 --model "$C/models/gpt3-175B.json" \
  --system "$C/systems/a100_80g.json" --execution "$C/validation/seqsel/tab5/gpt3-175B_seqsel.json" >/dev/null
echo "== snr pathfind generate --json (process)"
/usr/bin/time -f "%e s wall, %U s user, max RSS %M KiB" "$BUILD/snr" pathfind generate --json >/dev/null
echo "== snr pathfind predict gpt3-175B tp=8,pp=8,sp,recompute=selective (process)"
/usr/bin/time -f "%e s wall, %U s user, max RSS %M KiB" "$BUILD/snr" pathfind predict --hw a100-80gb \
  --model examples/pathfind/gpt3-175B-train.yaml --parallelism tp=8,pp=8,sp,recompute=selective --json >/dev/null
echo "== snr pathfind emit gpt3-175B tp=8,pp=8,sp,recompute=selective (process; 64 ranks)"
out=$(mktemp -d)
/usr/bin/time -f "%e s wall, %U s user, max RSS %M KiB" "$BUILD/snr" pathfind emit --hw a100-80gb \
  --model examples/pathfind/gpt3-175B-train.yaml --parallelism tp=8,pp=8,sp,recompute=selective -o "$out/emit" >/dev/null
echo "== snr sim on the emitted GPT-3 traces (process)"
/usr/bin/time -f "%e s wall, %U s user, max RSS %M KiB" "$BUILD/snr" sim --workload-configuration="$out/emit/trace" \
  --system-configuration="$out/emit/system.json" --network-configuration="$out/emit/network.yml" \
  --remote-memory-configuration="$out/emit/remote_memory.json" \
  --comm-group-configuration="$out/emit/trace.comm_groups.json" >/dev/null
rm -rf "$out"
