#!/usr/bin/env bash
# The ns-3 packet-level backend against the congestion-aware analytical
# backend on the same InfraGraph description: a 1 MiB ring all-reduce on
# 8, 64 and 512 GPUs on two-level Clos fabrics of 100 Gb/s, 200 ns links
# (k = 4 with 1 GPU per host, k = 8 with 2, k = 32 with 1). Prints wall
# time, peak RSS, simulated time and events per second of each run.
# Usage: bench/infra/ns3_scale.sh SNR
set -euo pipefail
SNR="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
example="$here/../../examples/infragraph/clos-8gpu-allreduce"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf '| GPUs | backend | wall s | peak RSS MiB | simulated ns | snr events | events/s | packets |\n|---|---|---:|---:|---:|---:|---:|---:|\n'
for spec in "8 4 1" "64 8 2" "512 32 1"; do
  read -r gpus k per_host <<<"$spec"
  "$SNR" infra blueprint clos-fat-tree --set k="$k" --set levels=2 --set host_gpus="$per_host" \
    --set tier0_gbps=100 --set tier1_gbps=100 --set link_latency_ns=200 -o "$work/clos$gpus.yaml" >/dev/null
  "$SNR" et generate --pattern allreduce --npus "$gpus" --layers 1 --size 1MiB -o "$work/ar$gpus/ar" >/dev/null
  for backend in analytical-congestion-aware ns3; do
    out="$work/out-$gpus-$backend"
    /usr/bin/time -f "%e %M" -o "$work/time" "$SNR" sim --workload-configuration "$work/ar$gpus/ar" \
      --system-configuration "$example/system.json" --remote-memory-configuration "$example/remote_memory.json" \
      --infragraph "$work/clos$gpus.yaml" --network-backend "$backend" -o "$out" >/dev/null
    python3 - "$gpus" "$backend" "$work/time" "$out/summary.json" <<'PY'
import json, sys
gpus, backend, time_file, summary_file = sys.argv[1:]
wall_s, rss_kib = open(time_file).read().split()[-2:]
s = json.load(open(summary_file))
packets = s.get("packets", {}).get("sent", "—")
print(f"| {gpus} | {backend} | {float(wall_s):.2f} | {int(rss_kib) / 1024:.0f} | {s['finish_ns']:,} | {s['events']:,} | "
      f"{s['events'] / max(float(wall_s), 1e-3):,.0f} | {packets if packets == '—' else f'{packets:,}'} |")
PY
  done
done
