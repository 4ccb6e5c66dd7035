#!/usr/bin/env bash
# Seed 003 §5.5 / Table 1: a 1 MiB ring all-reduce across 8 GPUs on a
# two-tier Clos, on the ns-3 packet-level backend, from one InfraGraph
# description (clos-8gpu.yaml). Prints the Table 1 metrics as `name value`
# lines. Usage: run.sh [OUT_DIR]   (SNR: the snr binary, default: on PATH,
# else build/snr of this repository).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
SNR="${SNR:-$(command -v snr || echo "$here/../../../build/snr")}"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"

run() {  # run NAME PATTERN [generate options...]
  local name="$1"
  shift
  "$SNR" et generate --npus 8 -o "$out/$name/trace" "$@" >/dev/null
  "$SNR" sim --workload-configuration "$out/$name/trace" --system-configuration "$here/system.json" \
    --remote-memory-configuration "$here/remote_memory.json" --infragraph "$here/clos-8gpu.yaml" \
    --network-backend ns3 -o "$out/$name/result" >/dev/null
}

# The collective: 2 x 7 steps of 128 KiB messages around the ring.
run allreduce --pattern allreduce --layers 1 --size 1MiB
# Standalone: the same 128 KiB messages one at a time (a pipeline of eight
# stages passes one activation forward and one gradient back at a time);
# the slowest of them is the longest path alone on the fabric.
run standalone --pattern pp --microbatches 1 --layers 8 --size 128KiB --compute-us 1

python3 - "$out" <<'PY'
import csv, json, sys
out = sys.argv[1]
summary = json.load(open(f"{out}/allreduce/result/summary.json"))
finish_ns = summary["finish_ns"]
size_bits = 1048576 * 8
npus = summary["npus"]
# Bus bandwidth as NCCL defines it for all-reduce: size / time x 2(n-1)/n.
busbw_gbit_per_s = size_bits / finish_ns * 2 * (npus - 1) / npus
alone = [int(row["fct_ns"]) for row in csv.DictReader(open(f"{out}/standalone/result/flows.csv"))]
flows = summary["flows"]
print(f"completion_us {finish_ns / 1000:.2f}")
print(f"busbw_gbps {busbw_gbit_per_s:.2f}")
print(f"fct_min_ns {flows['fct_min_ns']}")
print(f"fct_avg_ns {flows['fct_avg_ns']:.0f}")
print(f"fct_max_ns {flows['fct_max_ns']}")
print(f"fct_standalone_ns {max(alone)}")
print(f"drops {summary['packets']['dropped']}")
PY
