#!/usr/bin/env bash
# Scalability of the load-store GPU model (seed 003 §5.4, Figures 14-15):
# All-Gather with 32 workgroups per GPU on the paper's GPU (generic-448),
# per-GPU buffer sizes 1..256 MiB, 2..128 GPUs. One Markdown table row per
# run: simulated time, wall time of the simulation, simulated ns per wall
# second, wavefront requests, request-hops, request-hops per wall second and
# per CPU second of the process (on a shared machine the CPU figure is the
# one that does not depend on the other jobs),
# events and peak resident memory of the process.
#
# Usage: bench/gpu/scale.sh [--snr PATH] [--gpus "2 4 ..."] [--sizes "1 4 ..."]
#                           [--max-gpus N] [--max-size MIB] [--timeout S]
#   --snr       the snr binary (default: snr on PATH)
#   --gpus      GPU counts (default: 2 4 8 16 32 64 128)
#   --sizes     per-GPU buffer sizes in MiB (default: 1 4 16 64 256)
#   --max-gpus, --max-size   skip larger points; they get a projected row
#               (request-hops from the measured hops per GPU and MiB, wall
#               time at the rate of the largest measured run)
#   --timeout   seconds per run (default 3600); a run past it is reported
#
# The rows go to stdout as they finish; the projection comes last.
set -euo pipefail

SNR=snr
GPUS="2 4 8 16 32 64 128"
SIZES="1 4 16 64 256"
MAX_GPUS=1000000
MAX_SIZE=1000000
TIMEOUT=3600
while [[ $# -gt 0 ]]; do
  case "$1" in
    --snr) SNR="$2"; shift 2 ;;
    --gpus) GPUS="$2"; shift 2 ;;
    --sizes) SIZES="$2"; shift 2 ;;
    --max-gpus) MAX_GPUS="$2"; shift 2 ;;
    --max-size) MAX_SIZE="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
MEASURED="$SCRATCH/measured.tsv"
SKIPPED="$SCRATCH/skipped.tsv"
: > "$MEASURED"
: > "$SKIPPED"

echo "| GPUs | MiB/GPU | simulated µs | wall s | CPU s | simulated ns / wall s | requests | request-hops | M request-hops / wall s | M request-hops / CPU s | events | peak RSS MiB |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for gpus in $GPUS; do
  for mib in $SIZES; do
    if (( gpus > MAX_GPUS || mib > MAX_SIZE )); then
      echo -e "$gpus\t$mib" >> "$SKIPPED"
      continue
    fi
    bytes=$((mib * 1048576))
    status=0
    timeout "$TIMEOUT" /usr/bin/time -f "%M %U %S" -o "$SCRATCH/rss" \
      "$SNR" collective allgather --gpus "$gpus" --workgroups 32 --size "$bytes" --json \
      > "$SCRATCH/run.json" 2> "$SCRATCH/run.err" || status=$?
    if (( status != 0 )); then
      if (( status == 124 )); then
        echo "| $gpus | $mib | | > $TIMEOUT | | | | | | | | |"
      else
        echo "| $gpus | $mib | failed ($(tail -1 "$SCRATCH/run.err")) | | | | | | | | | |"
      fi
      continue
    fi
    python3 - "$gpus" "$mib" "$SCRATCH/run.json" "$(tail -1 "$SCRATCH/rss")" "$MEASURED" <<'PY'
import json, sys
gpus, mib, path, usage, measured = sys.argv[1:6]
rss_kib, user_s, sys_s = usage.split()
cpu = float(user_s) + float(sys_s)
d = json.load(open(path))
wall = d["simulation"]["wall_s"]
hops = d["network"]["hops"]
t_ns = d["time_ns"]
print(f"| {gpus} | {mib} | {t_ns / 1000:.1f} | {wall:.2f} | {cpu:.2f} | {t_ns / wall:,.0f} | {d['requests']:,} | {hops:,} | "
      f"{hops / wall / 1e6:.2f} | {hops / max(cpu, 0.01) / 1e6:.2f} | {d['simulation']['events']:,} | "
      f"{int(rss_kib) / 1024:.0f} |", flush=True)
with open(measured, "a") as f:
    f.write(f"{gpus}\t{mib}\t{hops}\t{wall}\t{t_ns}\t{cpu}\n")
PY
  done
done

if [[ -s "$SKIPPED" && -s "$MEASURED" ]]; then
  python3 - "$MEASURED" "$SKIPPED" <<'PY'
import sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
skipped = [l.split("\t") for l in open(sys.argv[2]).read().split("\n") if l]
# Request-hops grow with GPUs x MiB (every GPU moves its buffer over the same
# paths); the rates are the largest measured run's, per wall second and per
# CPU second of the process (the latter does not depend on other jobs).
per_gpu_mib = max(int(h) / (int(g) * int(m)) for g, m, h, w, t, c in rows)
largest = max(rows, key=lambda r: int(r[2]))
wall_rate = int(largest[2]) / float(largest[3])
cpu_rate = int(largest[2]) / max(float(largest[5]), 0.01)
print()
print(f"Projected (not run): {per_gpu_mib:,.0f} request-hops per GPU and MiB at most, "
      f"{wall_rate / 1e6:.2f} M request-hops / wall s and {cpu_rate / 1e6:.2f} M / CPU s "
      f"(the {largest[0]}-GPU, {largest[1]} MiB run)")
print()
print("| GPUs | MiB/GPU | projected request-hops | projected wall s | projected CPU s |")
print("|---:|---:|---:|---:|---:|")
wall_total = cpu_total = 0.0
for g, m in skipped:
    hops = per_gpu_mib * int(g) * int(m)
    wall_total += hops / wall_rate
    cpu_total += hops / cpu_rate
    print(f"| {g} | {m} | {hops:,.0f} | {hops / wall_rate:,.0f} | {hops / cpu_rate:,.0f} |")
print(f"| all | | | {wall_total:,.0f} | {cpu_total:,.0f} |")
PY
fi
