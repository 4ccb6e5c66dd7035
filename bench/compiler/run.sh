#!/usr/bin/env bash
# Runs the measurements reported in docs/benchmarks.md (## Workload compiler).
# Usage: bench/compiler/run.sh BUILD_DIR   (from the repository root)
set -euo pipefail
B="${1:-build}/bench/compiler/bench_compiler"
SNR="${1:-build}/snr"
echo "== window of one layer, default decode example"
"$B" window examples/llm-decode.yaml
echo "== compile time, 8 chips x 8 layers decode (library, median of 5)"
"$B" compile examples/llm-decode.yaml parallel.tensor=8 model.layers=8
echo "== snr compile wall time incl. writing the directory, 8 chips x 8 layers"
out="$(mktemp -d)"
/usr/bin/time -f "snr_compile_wall_s %e max_rss_kb %M" "$SNR" compile examples/llm-decode.yaml -o "$out/m" \
  --set parallel.tensor=8 --set model.layers=8 >/dev/null
du -sh "$out/m"
rm -rf "$out"
for mode in chained parallel pinned; do
  echo "== all-gather setup: $mode"
  "$B" knobs examples/allgather.yaml "schedule.allgather_setup=$mode"
done
for d in 0 2 8 32; do
  echo "== decode prefetch_distance=$d"
  "$B" knobs examples/llm-decode.yaml "schedule.prefetch_distance=$d" "schedule.buffering=$((d + 1))"
done
for k in late ahead; do
  echo "== decode kv_prefetch=$k: step, and the attention op of layer 1"
  "$B" knobs examples/llm-decode.yaml "schedule.kv_prefetch=$k" | sed -n 1,3p
  "$B" profile examples/llm-decode.yaml "schedule.kv_prefetch=$k" | grep layer1.attn.attention
done
for p in first-fit best-fit size-segregated; do
  for s in step op; do
    echo "== decode VMEM page liveness, layer 1, chip 0: allocator $p, kv_staging=$s"
    "$B" vmem examples/llm-decode.yaml "schedule.vmem_allocator=$p" "schedule.kv_staging=$s"
  done
done
for p in first-fit best-fit size-segregated; do
  echo "== VMEM allocator $p (prefill example)"
  "$SNR" compile examples/llm-prefill.yaml -o "$(mktemp -d)/p" --set "schedule.vmem_allocator=$p" | grep VMEM || true
done
