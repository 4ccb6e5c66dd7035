#!/usr/bin/env bash
# Sweeps the GPU model's intra-wavefront parallelism (loop unrolling) and
# register-file proxy (outstanding requests per CU) on one shared plan, the
# knobs of seed 003 §5.3, and prints one table per knob.
#   usage: examples/collectives/gpu_knobs.sh [PLAN] [SIZE_BYTES]
# SNR names the binary (default: snr on PATH).
set -euo pipefail
SNR="${SNR:-snr}"
PLAN="${1:-../shared/data/mscclpp/allreduce.json}"
SIZE="${2:-8388608}"

field() {  # JSON on stdin -> "time_us busbw"
  python3 -c 'import json,sys; r=json.load(sys.stdin); print("%12.1f %10.2f" % (r["time_ns"] / 1000, r["busbw_gbps"]))'
}

echo "# $PLAN, $SIZE B per GPU, one wavefront per workgroup"
printf '%8s %12s %10s\n' unroll time_us busbw_GBps
for u in 1 2 4 8 16 32 64; do
  printf '%8s %s\n' "$u" "$("$SNR" collective "$PLAN" --size "$SIZE" --wavefront-threads 1024 --unroll "$u" --json | field)"
done
echo
echo "# $PLAN, $SIZE B per GPU, 32 wavefronts per workgroup"
printf '%8s %12s %10s\n' max_out time_us busbw_GBps
for m in 1 4 16 64 256; do
  printf '%8s %s\n' "$m" "$("$SNR" collective "$PLAN" --size "$SIZE" --max-outstanding "$m" --json | field)"
done
